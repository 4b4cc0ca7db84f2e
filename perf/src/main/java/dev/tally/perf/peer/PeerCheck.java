package dev.tally.perf.peer;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The peer's own correctness check, in SQL over the whole database (every account, key, row), after a
 * run has drained (a compare empties the tables before each run, so "the whole database" is that run):
 *
 * <ol>
 *   <li>no balance row of a constrained account below zero;</li>
 *   <li>money conserved: the sum of all balance rows equals the starting total (0: every unit entered
 *       through a transfer from an unconstrained funding account), and the ledger rows sum to zero;</li>
 *   <li>each key applied at most once: every transfer has exactly 2 ledger rows, rows == 2 x keys answered
 *       201 for a transfer, and every such key's transfer has its rows; one outbox row per such key;</li>
 *   <li>every account's balance (the sum of its rows) equals the sum of its ledger rows;</li>
 *   <li>an account of several rows that received many credits holds money in more than one of them: the
 *       credits did spread over the rows.</li>
 * </ol>
 */
public final class PeerCheck
{
    private final PeerDatabase database;

    PeerCheck(final PeerDatabase database)
    {
        this.database = database;
    }

    /**
     * What the check found.
     *
     * @param verified the properties that held.
     * @param failures the properties that did not; empty when the check passed.
     */
    public record Report(List<String> verified, List<String> failures)
    {
        public boolean ok()
        {
            return failures.isEmpty();
        }
    }

    /**
     * @param startingTotalMinor the sum of all balances before any transfer (0 for the load generator's
     *                           layout: accounts start at zero).
     */
    public Report run(final long startingTotalMinor) throws SQLException
    {
        final List<String> verified = new ArrayList<>();
        final List<String> failures = new ArrayList<>();
        try (Connection connection = database.connect(); Statement sql = connection.createStatement())
        {
            final long accounts = number(sql, "SELECT count(*) FROM accounts WHERE slot = 0");
            final long rowsOfAccounts = number(sql, "SELECT count(*) FROM accounts");
            final long negative = number(sql, "SELECT count(*) FROM accounts WHERE constrained AND balance < 0");
            expect(negative == 0, String.format(Locale.ROOT, "no balance row of a constrained account below zero (%,d accounts in %,d rows, " +
                "%,d negative)", accounts, rowsOfAccounts, negative), verified, failures);

            final long total = number(sql, "SELECT coalesce(sum(balance), 0) FROM accounts");
            expect(total == startingTotalMinor, String.format(Locale.ROOT, "money conserved: balances sum to %,d minor units (start %,d)",
                total, startingTotalMinor), verified, failures);
            final long ledgerSum = number(sql, "SELECT coalesce(sum(amount_minor), 0) FROM ledger_entries");
            expect(ledgerSum == 0, String.format(Locale.ROOT, "ledger rows sum to zero (%,d)", ledgerSum), verified, failures);

            final long notTwo = number(sql,
                "SELECT count(*) FROM (SELECT 1 FROM ledger_entries GROUP BY transfer_id HAVING count(*) <> 2) t");
            final long rows = number(sql, "SELECT count(*) FROM ledger_entries");
            final long committed = number(sql, "SELECT count(*) FROM idempotency_keys WHERE operation = 'transfer' AND response_code = 201");
            final long withoutRows = number(sql, "SELECT count(*) FROM idempotency_keys k WHERE k.operation = 'transfer' AND " +
                "k.response_code = 201 AND NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.transfer_id = k.transfer_id)");
            final long events = number(sql, "SELECT count(*) FROM outbox");
            expect(notTwo == 0, String.format(Locale.ROOT, "every transfer has exactly 2 ledger rows (%,d have not)", notTwo), verified, failures);
            expect(rows == 2 * committed && withoutRows == 0, String.format(Locale.ROOT,
                "ledger rows (%,d) == 2 x transfer keys answered 201 (%,d), each key's transfer among them (%,d missing)", rows, committed,
                withoutRows), verified, failures);
            expect(events == committed, String.format(Locale.ROOT, "outbox rows (%,d) == transfer keys answered 201 (%,d)", events, committed),
                verified, failures);

            final long drifted = number(sql,
                "SELECT count(*) FROM (SELECT id, sum(balance) AS b FROM accounts GROUP BY id) a " +
                "LEFT JOIN (SELECT account_id, sum(amount_minor) AS s FROM ledger_entries GROUP BY account_id) e " +
                "ON e.account_id = a.id WHERE a.b <> coalesce(e.s, 0)");
            expect(drifted == 0, String.format(Locale.ROOT, "every account's balance (the sum of its rows) equals the sum of its ledger rows " +
                "(%,d differ)", drifted), verified, failures);

            // Credits land on the row their key hashes to: with 4 credits per row or more, one row holding everything is a bug.
            final long unspread = number(sql,
                "SELECT count(*) FROM (SELECT a.id FROM accounts a JOIN (SELECT account_id, count(*) AS credits FROM ledger_entries " +
                "WHERE amount_minor > 0 GROUP BY account_id) c ON c.account_id = a.id WHERE a.slots > 1 AND c.credits >= 4 * a.slots " +
                "GROUP BY a.id HAVING count(*) FILTER (WHERE a.balance <> 0) <= 1) t");
            final long multiRow = number(sql, "SELECT count(*) FROM accounts WHERE slot = 0 AND slots > 1");
            if (multiRow > 0)
            {
                expect(unspread == 0, String.format(Locale.ROOT, "credits spread over the rows of the %,d accounts of several rows (%,d " +
                    "hold all their money in one row)", multiRow, unspread), verified, failures);
            }
        }
        return new Report(List.copyOf(verified), List.copyOf(failures));
    }

    private static void expect(final boolean holds, final String property, final List<String> verified, final List<String> failures)
    {
        (holds ? verified : failures).add(property);
    }

    private static long number(final Statement sql, final String query) throws SQLException
    {
        try (ResultSet rows = sql.executeQuery(query))
        {
            rows.next();
            return rows.getLong(1);
        }
    }
}
