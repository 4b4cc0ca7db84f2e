package dev.tally.persistence.verify;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.account.Accounts;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.query.TransferView;
import dev.tally.ledger.transfer.TransferKind;

import javax.sql.DataSource;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Compares PostgreSQL with a ledger rebuilt from the journal (the source of truth), for
 * {@code tally verify --data-dir D [--db-url U]}. Read-only: one REPEATABLE READ transaction, so a writer
 * running meanwhile cannot skew one check against another; the ledger is read through its read-only queries
 * ({@code forEachAccount}, {@code forEachLiveHold}, {@code readTransferAt}), never its tables.
 *
 * <p>Precondition: the writer has caught up, {@code watermark == ledger.lastJournalIndex()}; otherwise that
 * is the one difference reported. The checks, and why each is sound:
 * <ol>
 *   <li><b>Accounts</b>: the ledger never forgets an account, so the two sets must be equal, with the same
 *   currency, sub-balance count, flags, lifecycle status (active, frozen with its scope, closed) and whether it has
 *   metadata (the ledger keeps only that bit; the journal, not the ledger, has the object itself).</li>
 *   <li><b>Balances</b>, per sub-balance (posted, held) and per account (their sums): equal.</li>
 *   <li><b>Entries sum to posted</b>: posted only ever changes through entries, so per account
 *   {@code sum(ledger_entries.amount_minor) == posted total}.</li>
 *   <li><b>Running balances</b>: each entry's {@code balance_after_minor} is the previous entry's (in id, that is
 *   journal, order; 0 before the first) plus its amount, and each account's last one is its posted total: the
 *   column a balance at an instant and a statement read is the ledger's own running sum.</li>
 *   <li><b>Held is the live holds</b>: per account {@code sum(holds.amount_minor)} over active and unknown holds
 *   {@code == held total}; and the live holds in memory are exactly PostgreSQL's active/unknown rows.</li>
 *   <li><b>Transfers</b>: only transfers still in memory (the reversal window) can be compared row by row:
 *   each must exist with the same fields, and as many must be found as the ledger holds (so per tenant
 *   PostgreSQL has at least the ledger's count). Metadata only by presence: the ledger keeps a bit per
 *   transfer, not the bytes (those are in the journal). Older ones are checked structurally by the next check.</li>
 *   <li><b>Double entry</b>: every transfer has exactly two legs, on its two accounts, of -amount and +amount;
 *   no entry lacks its transfer.</li>
 *   <li><b>Outbox</b>: one event per fact, counted per event type against the rows that record the fact
 *   (accounts, transfers by kind, holds by outcome), over the outbox still retained (older months may have
 *   been dropped: {@code outbox_retention.retained_from}). HoldMarkedUnknown is not counted (a hold marked
 *   unknown and later captured no longer says so). Every TransferPosted row finds the transfer its payload is
 *   rendered from (same id, tenant and journal index).</li>
 * </ol>
 */
public final class Verifier
{
    /** Differences printed at most (all are counted). */
    public static final int PRINTED_DIFFERENCES_MAX = 100;

    private final Ledger ledger;
    private final DataSource dataSource;

    /**
     * @param ledger a ledger rebuilt from the journal, not being applied to while this runs: the thread running the
     *               checks owns it (it publishes its figures, {@code publishStats}).
     */
    public Verifier(final Ledger ledger, final DataSource dataSource)
    {
        this.ledger = ledger;
        this.dataSource = dataSource;
    }

    /**
     * The outcome.
     *
     * @param watermark    PostgreSQL's last applied journal index.
     * @param ledgerIndex  the ledger's last journal index.
     * @param checks       comparisons made.
     * @param differences  every difference found, human-readable.
     */
    public record Report(long watermark, long ledgerIndex, long checks, List<String> differences)
    {
        public boolean ok()
        {
            return differences.isEmpty();
        }
    }

    /** Runs every check, prints a summary and the differences, and returns the exit status: 0 equal, 1 different, 2 error. */
    public int run(final PrintStream out)
    {
        final Report report;
        try
        {
            report = verify();
        }
        catch (final SQLException ex)
        {
            out.println("verify: ERROR reading PostgreSQL: " + ex.getMessage());
            return 2;
        }
        out.println("verify: ledger at journal index " + report.ledgerIndex() + ", PostgreSQL watermark " + report.watermark() +
            ", " + report.checks() + " comparisons");
        int printed = 0;
        for (final String difference : report.differences())
        {
            if (printed++ == PRINTED_DIFFERENCES_MAX)
            {
                out.println("  ... and " + (report.differences().size() - PRINTED_DIFFERENCES_MAX) + " more");
                break;
            }
            out.println("  DIFFERENT: " + difference);
        }
        out.println(report.ok() ? "verify: OK" : "verify: " + report.differences().size() + " difference(s)");
        return report.ok() ? 0 : 1;
    }

    /** Runs every check. */
    public Report verify() throws SQLException
    {
        final Checks checks = new Checks();
        try (Connection c = dataSource.getConnection())
        {
            c.setReadOnly(true);
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try (Statement s = c.createStatement())
            {
                final long watermark = singleLong(s, "SELECT journal_index FROM ledger_watermark");
                if (checks.equal("watermark", ledger.lastJournalIndex(), watermark))
                {
                    accounts(s, checks);
                    balances(s, checks);
                    entrySums(s, checks);
                    runningBalances(s, checks);
                    heldAndHolds(s, checks);
                    transfers(s, checks);
                    doubleEntry(s, checks);
                    outbox(s, checks);
                }
                c.rollback();
                return new Report(watermark, ledger.lastJournalIndex(), checks.count, checks.differences);
            }
        }
    }

    private record Key(long tenant, long account)
    {
    }

    private void accounts(final Statement s, final Checks checks) throws SQLException
    {
        final Map<Key, String> rows = new HashMap<>();
        try (ResultSet rs = s.executeQuery("SELECT tenant_id, account_id, currency, sub_balances, debits_must_not_exceed_credits," +
            " overdraft_limit_minor, status, credits_frozen, metadata IS NOT NULL FROM accounts"))
        {
            while (rs.next())
            {
                rows.put(new Key(rs.getLong(1), rs.getLong(2)), rs.getString(3) + "/" + rs.getInt(4) + "/" + rs.getBoolean(5) + "/" +
                    rs.getLong(6) + "/" + rs.getString(7) + "/" + rs.getBoolean(8) + "/" + metadataName(rs.getBoolean(9)));
            }
        }
        ledger.forEachAccount(account ->
        {
            final Key key = new Key(account.tenantId, account.accountId);
            final String expected = CurrencyCode.unpack(account.currency) + "/" + account.subBalances + "/" +
                account.debitsMustNotExceedCredits + "/" + account.overdraftLimitMinor + "/" + statusName(account.status) + "/" +
                ((account.status & Accounts.Status.CREDITS_FROZEN) != 0) + "/" + metadataName(account.hasMetadata);
            checks.equal("account " + key.tenant() + "/" + key.account(), expected, rows.remove(key));
        });
        for (final Key extra : rows.keySet())
        {
            checks.differ("account " + extra.tenant() + "/" + extra.account() + " is in PostgreSQL but not in the ledger");
        }
    }

    /** @return how a difference names whether an account has metadata (the ledger keeps only that; the read model the object). */
    private static String metadataName(final boolean hasMetadata)
    {
        return hasMetadata ? "metadata" : "no metadata";
    }

    /** @return the read model's name of a ledger status (V8): the same words the API shows. */
    private static String statusName(final int status)
    {
        if ((status & Accounts.Status.CLOSED) != 0)
        {
            return "closed";
        }
        return (status & Accounts.Status.DEBITS_FROZEN) != 0 ? "frozen" : "active";
    }

    private void balances(final Statement s, final Checks checks) throws SQLException
    {
        final Map<Key, long[]> rows = new HashMap<>();
        try (ResultSet rs = s.executeQuery("SELECT tenant_id, account_id, sub_index, posted_minor, held_minor FROM account_balances"))
        {
            while (rs.next())
            {
                final long[] values = rows.computeIfAbsent(new Key(rs.getLong(1), rs.getLong(2)), k -> new long[2 * 64 + 1]);
                final int sub = rs.getInt(3);
                values[2 * sub] = rs.getLong(4);
                values[2 * sub + 1] = rs.getLong(5);
                values[2 * 64] |= 1L << sub;
            }
        }
        ledger.forEachAccount(account ->
        {
            final Key key = new Key(account.tenantId, account.accountId);
            final String name = "account " + key.tenant() + "/" + key.account();
            final long[] values = rows.remove(key);
            final int subs = account.subBalances;
            final long presentExpected = subs == 64 ? -1L : (1L << subs) - 1;
            if (values == null || !checks.equal(name + " sub-balance rows (bitmap)", presentExpected, values[2 * 64]))
            {
                if (values == null)
                {
                    checks.differ(name + " has no balance rows in PostgreSQL");
                }
                return;
            }
            long postedSum = 0;
            long heldSum = 0;
            for (int i = 0; i < subs; i++)
            {
                checks.equal(name + " sub " + i + " posted", account.postedMinor[i], values[2 * i]);
                checks.equal(name + " sub " + i + " held", account.heldMinor[i], values[2 * i + 1]);
                postedSum += values[2 * i];
                heldSum += values[2 * i + 1];
            }
            checks.equal(name + " posted total", account.postedTotal(), postedSum);
            checks.equal(name + " held total", account.heldTotal(), heldSum);
        });
        for (final Key extra : rows.keySet())
        {
            checks.differ("balance rows of account " + extra.tenant() + "/" + extra.account() + " have no account in the ledger");
        }
    }

    private void entrySums(final Statement s, final Checks checks) throws SQLException
    {
        final Map<Key, Long> sums = sums(s, "SELECT tenant_id, account_id, sum(amount_minor) FROM ledger_entries GROUP BY 1, 2");
        ledger.forEachAccount(account ->
        {
            final Key key = new Key(account.tenantId, account.accountId);
            final Long sum = sums.remove(key);
            checks.equal("account " + key.tenant() + "/" + key.account() + " sum of entries vs posted",
                account.postedTotal(), sum == null ? 0 : sum);
        });
        for (final Key extra : sums.keySet())
        {
            checks.differ("entries of account " + extra.tenant() + "/" + extra.account() + " which the ledger does not have");
        }
    }

    private void runningBalances(final Statement s, final Checks checks) throws SQLException
    {
        checks.equal("entries whose balance after is not the one before plus their amount", 0L, singleLong(s,
            "SELECT count(*) FROM (SELECT balance_after_minor - amount_minor AS before, lag(balance_after_minor, 1, 0::bigint)" +
            " OVER (PARTITION BY tenant_id, account_id ORDER BY id) AS previous FROM ledger_entries) AS e WHERE before <> previous"));
        final Map<Key, Long> last = sums(s, "SELECT DISTINCT ON (tenant_id, account_id) tenant_id, account_id, balance_after_minor" +
            " FROM ledger_entries ORDER BY tenant_id, account_id, id DESC");
        ledger.forEachAccount(account ->
        {
            final Long after = last.remove(new Key(account.tenantId, account.accountId));
            checks.equal("account " + account.tenantId + "/" + account.accountId + " last balance after vs posted",
                account.postedTotal(), after == null ? 0 : after);
        });
    }

    private void heldAndHolds(final Statement s, final Checks checks) throws SQLException
    {
        final Map<Key, Long> live = sums(s,
            "SELECT tenant_id, account_id, sum(amount_minor) FROM holds WHERE status IN ('active', 'unknown') GROUP BY 1, 2");
        ledger.forEachAccount(account ->
        {
            final Key key = new Key(account.tenantId, account.accountId);
            final Long sum = live.remove(key);
            checks.equal("account " + key.tenant() + "/" + key.account() + " live holds vs held", account.heldTotal(),
                sum == null ? 0 : sum);
        });
        for (final Key extra : live.keySet())
        {
            checks.differ("live holds on account " + extra.tenant() + "/" + extra.account() + " which the ledger does not have");
        }

        final Map<UUID, String> rows = new HashMap<>();
        try (ResultSet rs = s.executeQuery("SELECT id, tenant_id, account_id, amount_minor, currency, status FROM holds" +
            " WHERE status IN ('active', 'unknown')"))
        {
            while (rs.next())
            {
                rows.put(rs.getObject(1, UUID.class), rs.getLong(2) + "/" + rs.getLong(3) + "/" + rs.getLong(4) + "/" +
                    rs.getString(5) + "/" + rs.getString(6));
            }
        }
        ledger.forEachLiveHold(hold ->
        {
            final UUID id = new UUID(Uuid7.hi(hold.timestampNs, Uuid7.KIND_HOLD), Uuid7.lo(hold.journalIndex, 0));
            final String expected = hold.tenantId + "/" + hold.accountId + "/" + hold.amountMinor + "/" +
                CurrencyCode.unpack(hold.currency) + "/" + (hold.unknown ? "unknown" : "active");
            checks.equal("live hold " + id, expected, rows.remove(id));
        });
        for (final UUID extra : rows.keySet())
        {
            checks.differ("hold " + extra + " is live in PostgreSQL but not in the ledger");
        }
    }

    private void transfers(final Statement s, final Checks checks) throws SQLException
    {
        final TransferView transfer = new TransferView();
        long inMemoryFound = 0;
        try (ResultSet rs = s.executeQuery("SELECT journal_index, id, tenant_id, kind, debit_account_id, credit_account_id," +
            " amount_minor, currency, reference, reverses_id, metadata IS NOT NULL FROM transfers"))
        {
            while (rs.next())
            {
                final long tenant = rs.getLong(3);
                if (!ledger.readTransferAt(rs.getLong(1), transfer).found)
                {
                    continue;   // older than the in-memory window
                }
                inMemoryFound++;
                final long index = transfer.journalIndex;
                final UUID id = new UUID(Uuid7.hi(transfer.timestampNs, Uuid7.KIND_TRANSFER), Uuid7.lo(index, 0));
                final UUID reverses = transfer.kind != TransferKind.REVERSAL ? null :
                    new UUID(Uuid7.hi(transfer.reversesTimestampNs, Uuid7.KIND_TRANSFER), Uuid7.lo(transfer.reversesIndex, 0));
                final String expected = id + "/" + transfer.tenantId + "/" + TransferKind.name(transfer.kind) +
                    "/" + transfer.debitAccountId + "/" + transfer.creditAccountId + "/" +
                    transfer.amountMinor + "/" + CurrencyCode.unpack(transfer.currency) + "/" +
                    transfer.referenceText() + "/" + reverses + "/metadata " + transfer.hasMetadata;
                final String actual = rs.getObject(2, UUID.class) + "/" + tenant + "/" + rs.getString(4) + "/" + rs.getLong(5) +
                    "/" + rs.getLong(6) + "/" + rs.getLong(7) + "/" + rs.getString(8) + "/" + rs.getString(9) + "/" +
                    rs.getObject(10, UUID.class) + "/metadata " + rs.getBoolean(11);
                checks.equal("transfer at journal index " + index, expected, actual);
            }
        }
        checks.equal("transfers in the ledger's window that PostgreSQL has", ledger.publishStats().transferCount(), inMemoryFound);
    }

    private void doubleEntry(final Statement s, final Checks checks) throws SQLException
    {
        checks.equal("transfers whose legs are not exactly two summing to zero", 0L, singleLong(s,
            "SELECT count(*) FROM (SELECT transfer_id FROM ledger_entries GROUP BY transfer_id" +
            " HAVING count(*) <> 2 OR sum(amount_minor) <> 0) AS broken"));
        checks.equal("entries without a transfer", 0L, singleLong(s,
            "SELECT count(*) FROM ledger_entries e WHERE NOT EXISTS (SELECT 1 FROM transfers t WHERE t.id = e.transfer_id)"));
        checks.equal("transfers without entries", 0L, singleLong(s,
            "SELECT count(*) FROM transfers t WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.transfer_id = t.id)"));
        checks.equal("entries not on their transfer's accounts and amount", 0L, singleLong(s,
            "SELECT count(*) FROM ledger_entries e JOIN transfers t ON t.id = e.transfer_id WHERE NOT (" +
            "(e.account_id = t.debit_account_id AND e.amount_minor = -t.amount_minor) OR" +
            " (e.account_id = t.credit_account_id AND e.amount_minor = t.amount_minor))"));
    }

    private void outbox(final Statement s, final Checks checks) throws SQLException
    {
        final String from = "(SELECT retained_from FROM outbox_retention)";
        final Map<String, Long> events = new HashMap<>();
        try (ResultSet rs = s.executeQuery("SELECT event_type, count(*) FROM outbox WHERE created_at >= " + from + " GROUP BY 1"))
        {
            while (rs.next())
            {
                events.put(rs.getString(1), rs.getLong(2));
            }
        }
        final String[][] facts = {
            {"AccountCreated", "SELECT count(*) FROM accounts WHERE created_at >= " + from},
            {"TransferPosted", "SELECT count(*) FROM transfers WHERE kind = 'transfer' AND created_at >= " + from},
            {"TransferReversed", "SELECT count(*) FROM transfers WHERE kind = 'reversal' AND created_at >= " + from},
            {"HoldCaptured", "SELECT count(*) FROM transfers WHERE kind = 'capture' AND created_at >= " + from},
            {"HoldCreated", "SELECT count(*) FROM holds WHERE created_at >= " + from},
            {"HoldVoided", "SELECT count(*) FROM holds WHERE status = 'voided' AND resolved_at >= " + from},
            {"HoldExpired", "SELECT count(*) FROM holds WHERE status = 'expired' AND resolved_at >= " + from},
        };
        for (final String[] fact : facts)
        {
            checks.equal("outbox " + fact[0] + " events vs rows", singleLong(s, fact[1]), events.getOrDefault(fact[0], 0L));
        }
        // A TransferPosted row's payload is rendered from its transfers row (V6): each must find it, with the same posting.
        checks.equal("outbox TransferPosted events without their transfer", 0L, singleLong(s,
            "SELECT count(*) FROM outbox o WHERE o.event_type = 'TransferPosted' AND o.created_at >= " + from + " AND NOT EXISTS" +
            " (SELECT 1 FROM transfers t WHERE t.id = o.aggregate_id::uuid AND t.tenant_id = o.tenant_id AND t.kind = 'transfer'" +
            " AND t.journal_index = o.journal_index)"));
    }

    private static Map<Key, Long> sums(final Statement s, final String query) throws SQLException
    {
        final Map<Key, Long> sums = new HashMap<>();
        try (ResultSet rs = s.executeQuery(query))
        {
            while (rs.next())
            {
                sums.put(new Key(rs.getLong(1), rs.getLong(2)), rs.getBigDecimal(3).longValueExact());
            }
        }
        return sums;
    }

    private static long singleLong(final Statement s, final String query) throws SQLException
    {
        try (ResultSet rs = s.executeQuery(query))
        {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Counts comparisons and collects differences. */
    private static final class Checks
    {
        private final List<String> differences = new ArrayList<>();
        private long count;

        boolean equal(final String what, final String expected, final String actual)
        {
            return record(what, Objects.equals(expected, actual), expected, actual);
        }

        boolean equal(final String what, final long expected, final long actual)
        {
            return record(what, expected == actual, expected, actual);
        }

        private boolean record(final String what, final boolean same, final Object expected, final Object actual)
        {
            count++;
            if (!same)
            {
                differences.add(what + ": ledger " + expected + ", PostgreSQL " + actual);
            }
            return same;
        }

        void differ(final String what)
        {
            count++;
            differences.add(what);
        }
    }
}
