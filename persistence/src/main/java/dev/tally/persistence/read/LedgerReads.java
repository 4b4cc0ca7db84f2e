package dev.tally.persistence.read;

import dev.tally.ledger.transfer.TransferKind;
import javax.sql.DataSource;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Reads the gateway serves from PostgreSQL: an account's entries and transfers, and a tenant's accounts, keyset paged;
 * transfers older than the ledger's in-memory window, by id or by reference; holds that have ended. Thread-safe (each
 * call borrows a pooled connection); never call it on the business thread.
 *
 * <p>Every query walks an index the writer keeps anyway, so the read side costs the writer nothing per row: an
 * account's entries and transfers the {@code (tenant_id, account_id, id)} key of {@code ledger_entries} (a time range is
 * a range of ids, whose first 48 bits are journaled milliseconds), then each transfer by its primary key; accounts the
 * {@code (tenant_id, account_id)} key; a reference the partial unique index on {@code (tenant_id, reference)}; a hold
 * its primary key (docs/PERSISTENCE.md, "The read side").
 *
 * <p>What PostgreSQL shows lags the ledger by the writer's lag (milliseconds in steady state): a transfer
 * just posted may be in memory and not yet here, so the gateway asks the ledger first.
 */
public final class LedgerReads
{
    /** Statement timeout of the interactive reads: a slow query must not hold a connection's replies for long. */
    public static final int READ_TIMEOUT_SECONDS = 5;
    /** Largest page of entries one call returns. */
    public static final int ENTRIES_PAGE_MAX = 1_000;
    private static final UUID BEFORE_ALL = new UUID(0, 0);
    private static final UUID AFTER_ALL = new UUID(-1L, -1L);
    /** The most milliseconds a Tally id's 48-bit time field holds. */
    private static final long ID_MS_MAX = (1L << 48) - 1;

    private static final String ENTRIES =
        "SELECT id, transfer_id, tenant_id, account_id, amount_minor, currency, journal_index, created_at, kind, balance_after_minor" +
        " FROM ledger_entries WHERE tenant_id = ? AND account_id = ? AND id > ? ORDER BY id LIMIT ?";
    private static final String TRANSFER_COLUMNS =
        "SELECT t.id, t.tenant_id, t.kind, t.debit_account_id, t.credit_account_id, t.amount_minor, t.currency, t.reference," +
        " t.reverses_id, t.hold_id, (SELECT coalesce(sum(r.amount_minor), 0) FROM transfers r WHERE r.reverses_id = t.id)," +
        " t.journal_index, t.created_at, t.metadata::text FROM transfers t";
    private static final String TRANSFER = TRANSFER_COLUMNS + " WHERE t.id = ? AND t.tenant_id = ?";
    private static final String TRANSFER_BY_REFERENCE = TRANSFER_COLUMNS + " WHERE t.tenant_id = ? AND t.reference = ?";
    /**
     * An account's transfers in entry id (time) order, on the account's entries index: the time range and the cursor
     * are a range of entry ids; the exact instants and the direction filter the rows that range gives.
     */
    private static final String ACCOUNT_TRANSFERS =
        "SELECT e.id, e.amount_minor < 0, t.id, t.tenant_id, t.kind, t.debit_account_id, t.credit_account_id, t.amount_minor," +
        " t.currency, t.reference, t.reverses_id, t.hold_id," +
        " (SELECT coalesce(sum(r.amount_minor), 0) FROM transfers r WHERE r.reverses_id = t.id)," +
        " t.journal_index, t.created_at, t.metadata::text" +
        " FROM ledger_entries e JOIN transfers t ON t.id = e.transfer_id" +
        " WHERE e.tenant_id = ? AND e.account_id = ? AND e.id > ? AND e.id < ? AND e.created_at >= ? AND e.created_at < ?";
    private static final String[] DIRECTION_FILTERS = {"", " AND e.amount_minor < 0", " AND e.amount_minor > 0"};
    private static final String ACCOUNTS =
        "SELECT a.account_id, a.currency, a.sub_balances, a.debits_must_not_exceed_credits, a.overdraft_limit_minor, a.created_at," +
        " (SELECT coalesce(sum(b.posted_minor), 0)::bigint FROM account_balances b WHERE b.tenant_id = a.tenant_id AND b.account_id = a.account_id)," +
        " (SELECT coalesce(sum(b.held_minor), 0)::bigint FROM account_balances b WHERE b.tenant_id = a.tenant_id AND b.account_id = a.account_id)," +
        " a.metadata::text FROM accounts a WHERE a.tenant_id = ? AND a.account_id > ? AND a.created_at >= ? AND a.created_at < ?";
    private static final String HOLD =
        "SELECT id, tenant_id, account_id, amount_minor, currency, status, expires_at, captured_transfer_id, captured_amount_minor," +
        " created_at, resolved_at, journal_index FROM holds WHERE id = ? AND tenant_id = ?";
    /** Stand-ins for an open end of a time range: PostgreSQL's timestamptz infinities. */
    private static final String NEGATIVE_INFINITY = "-infinity";
    private static final String POSITIVE_INFINITY = "infinity";

    private static final String ACCOUNT_AT_HEAD =
        "SELECT a.currency, a.sub_balances, a.debits_must_not_exceed_credits, a.overdraft_limit_minor, a.created_at, a.journal_index," +
        " last.balance_after_minor, last.journal_index, held.minor, w.journal_index, w.journal_time FROM accounts a";
    private static final String ACCOUNT_AT_TAIL = " CROSS JOIN ledger_watermark w WHERE a.tenant_id = ? AND a.account_id = ?";
    /**
     * At an instant: the account's last entry before the next millisecond's first id whose (microsecond) time is at or
     * before it, a backward probe of (tenant_id, account_id, id) that steps back at most inside one millisecond; and the
     * holds created by then and not resolved by then.
     */
    private static final String ACCOUNT_AT_TIME = ACCOUNT_AT_HEAD +
        " LEFT JOIN LATERAL (SELECT e.balance_after_minor, e.journal_index FROM ledger_entries e" +
        " WHERE e.tenant_id = a.tenant_id AND e.account_id = a.account_id AND e.id < ? AND e.created_at <= ? ORDER BY e.id DESC LIMIT 1)" +
        " last ON true" +
        " CROSS JOIN LATERAL (SELECT coalesce(sum(h.amount_minor), 0) AS minor FROM holds h" +
        " WHERE h.tenant_id = a.tenant_id AND h.account_id = a.account_id AND h.created_at <= ?" +
        " AND (h.resolved_at IS NULL OR h.resolved_at > ?)) held" + ACCOUNT_AT_TAIL;
    /** At a journal index: tally_entry_at_index (V7) finds the last entry; the holds by their creating and resolving indexes. */
    private static final String ACCOUNT_AT_INDEX = ACCOUNT_AT_HEAD +
        " LEFT JOIN LATERAL tally_entry_at_index(a.tenant_id, a.account_id, ?) last ON true" +
        " CROSS JOIN LATERAL (SELECT coalesce(sum(h.amount_minor), 0) AS minor FROM holds h" +
        " WHERE h.tenant_id = a.tenant_id AND h.account_id = a.account_id AND h.journal_index <= ?" +
        " AND (h.resolved_at IS NULL OR h.last_journal_index > ?)) held" + ACCOUNT_AT_TAIL;

    private final DataSource dataSource;

    public LedgerReads(final DataSource dataSource)
    {
        this.dataSource = dataSource;
    }

    /**
     * One page of an account's entries in id (time) order: keyset paging, so a page costs the same at any depth.
     *
     * @param afterEntryIdExclusive the last id of the previous page, or null for the first page.
     * @param limit                 1 to {@link #ENTRIES_PAGE_MAX}.
     * @return at most {@code limit} entries; fewer means the end. Another tenant's account gives none.
     */
    public List<EntryRow> entries(final long tenantId, final long accountId, final UUID afterEntryIdExclusive, final int limit)
        throws SQLException
    {
        if (limit < 1 || limit > ENTRIES_PAGE_MAX)
        {
            throw new IllegalArgumentException("limit must be in [1, " + ENTRIES_PAGE_MAX + "], was " + limit);
        }
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(ENTRIES))
        {
            s.setQueryTimeout(READ_TIMEOUT_SECONDS);
            s.setLong(1, tenantId);
            s.setLong(2, accountId);
            s.setObject(3, afterEntryIdExclusive == null ? BEFORE_ALL : afterEntryIdExclusive);
            s.setInt(4, limit);
            final List<EntryRow> rows = new ArrayList<>(Math.min(limit, 64));
            try (ResultSet rs = s.executeQuery())
            {
                while (rs.next())
                {
                    rows.add(entryRow(rs));
                }
            }
            return rows;
        }
    }

    /** @return the entry at the result set's row, selected as {@link #ENTRIES} selects it. */
    static EntryRow entryRow(final ResultSet rs) throws SQLException
    {
        return new EntryRow(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class), rs.getLong(3), rs.getLong(4),
            rs.getLong(5), rs.getString(6), rs.getLong(7), rs.getTimestamp(8).toInstant(), TransferKind.name(rs.getInt(9)), rs.getLong(10));
    }

    /** @return the tenant's transfer (any age) with that id; empty when unknown or another tenant's. */
    public Optional<TransferRow> transfer(final long tenantId, final UUID id) throws SQLException
    {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(TRANSFER))
        {
            s.setQueryTimeout(READ_TIMEOUT_SECONDS);
            s.setObject(1, id);
            s.setLong(2, tenantId);
            return one(s);
        }
    }

    /**
     * The tenant's account as it stood right after the last command whose journaled time, to the microsecond, is at or
     * before {@code at} (PostgreSQL keeps microseconds): one round trip, one index probe for posted.
     *
     * @return empty when the tenant has no such account (now); the caller compares the point with the row's watermark
     * and the account's creation.
     */
    public Optional<AccountAtRow> accountAtInstant(final long tenantId, final long accountId, final Instant at) throws SQLException
    {
        final Instant micros = at.truncatedTo(ChronoUnit.MICROS);
        final long nextMs = Math.addExact(micros.toEpochMilli(), 1L);
        final OffsetDateTime time = micros.atOffset(ZoneOffset.UTC);
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(ACCOUNT_AT_TIME))
        {
            s.setQueryTimeout(READ_TIMEOUT_SECONDS);
            s.setObject(1, new UUID(nextMs << 16, 0));   // the smallest id of the next millisecond (Uuid7: ms in the top 48 bits)
            s.setObject(2, time);
            s.setObject(3, time);
            s.setObject(4, time);
            s.setLong(5, tenantId);
            s.setLong(6, accountId);
            return accountAt(s);
        }
    }

    /** The tenant's account as it stood right after journal index {@code atIndex} (0: before everything); see {@link #accountAtInstant}. */
    public Optional<AccountAtRow> accountAtIndex(final long tenantId, final long accountId, final long atIndex) throws SQLException
    {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(ACCOUNT_AT_INDEX))
        {
            s.setQueryTimeout(READ_TIMEOUT_SECONDS);
            s.setLong(1, atIndex);
            s.setLong(2, atIndex);
            s.setLong(3, atIndex);
            s.setLong(4, tenantId);
            s.setLong(5, accountId);
            return accountAt(s);
        }
    }

    private static Optional<AccountAtRow> accountAt(final PreparedStatement s) throws SQLException
    {
        try (ResultSet rs = s.executeQuery())
        {
            if (!rs.next())
            {
                return Optional.empty();
            }
            final java.sql.Timestamp watermarkTime = rs.getTimestamp(11);
            return Optional.of(new AccountAtRow(rs.getString(1), rs.getInt(2), rs.getBoolean(3), rs.getLong(4), rs.getTimestamp(5).toInstant(),
                rs.getLong(6), rs.getLong(7), rs.getLong(9), rs.getLong(8), rs.getLong(10), watermarkTime == null ? null : watermarkTime.toInstant()));
        }
    }

    /**
     * Opens a keyset cursor over the tenant's account's entries journaled after {@code from} and at or before {@code to}
     * (to the microsecond, as {@link #accountAtInstant}): each {@link StatementCursor#next} is one page, one index range
     * scan from where the last stopped, on one connection held until {@link StatementCursor#close}.
     */
    public StatementCursor statement(final long tenantId, final long accountId, final Instant from, final Instant to) throws SQLException
    {
        final Connection c = dataSource.getConnection();
        try
        {
            return new StatementCursor(c, tenantId, accountId, from.truncatedTo(ChronoUnit.MICROS), to.truncatedTo(ChronoUnit.MICROS));
        }
        catch (final SQLException | RuntimeException ex)
        {
            c.close();
            throw ex;
        }
    }

    /** Pages of a statement's entries, oldest first; see {@link #statement}. Not thread-safe: one reader. */
    public static final class StatementCursor implements AutoCloseable
    {
        private static final String PAGE =
            "SELECT id, transfer_id, tenant_id, account_id, amount_minor, currency, journal_index, created_at, kind, balance_after_minor" +
            " FROM ledger_entries WHERE tenant_id = ? AND account_id = ? AND id > ? AND id < ? AND created_at > ? AND created_at <= ?" +
            " ORDER BY id LIMIT ?";

        private final Connection connection;
        private final PreparedStatement page;
        private UUID after;

        private StatementCursor(final Connection connection, final long tenantId, final long accountId, final Instant from, final Instant to)
            throws SQLException
        {
            this.connection = connection;
            this.page = connection.prepareStatement(PAGE);
            page.setQueryTimeout(READ_TIMEOUT_SECONDS);
            page.setLong(1, tenantId);
            page.setLong(2, accountId);
            // ids start with their journaled millisecond: from the lowest id of from's millisecond (no real id is that low) to
            // the lowest of the millisecond after to's, exclusive; the times then cut inside those two milliseconds
            after = new UUID(from.toEpochMilli() << 16, 0);
            page.setObject(4, new UUID(Math.addExact(to.toEpochMilli(), 1L) << 16, 0));
            page.setObject(5, from.atOffset(ZoneOffset.UTC));
            page.setObject(6, to.atOffset(ZoneOffset.UTC));
        }

        /** @return the next at most {@code limit} entries (1 to {@link #ENTRIES_PAGE_MAX}); fewer means the end. */
        public List<EntryRow> next(final int limit) throws SQLException
        {
            if (limit < 1 || limit > ENTRIES_PAGE_MAX)
            {
                throw new IllegalArgumentException("limit must be in [1, " + ENTRIES_PAGE_MAX + "], was " + limit);
            }
            page.setObject(3, after);
            page.setInt(7, limit);
            final List<EntryRow> rows = new ArrayList<>(limit);
            try (ResultSet rs = page.executeQuery())
            {
                while (rs.next())
                {
                    rows.add(entryRow(rs));
                }
            }
            if (!rows.isEmpty())
            {
                after = rows.get(rows.size() - 1).id();
            }
            return rows;
        }

        @Override
        public void close() throws SQLException
        {
            try
            {
                page.close();
            }
            finally
            {
                connection.close();
            }
        }
    }

    /** @return the ISO 4217 code of the tenant's account, if PostgreSQL holds it. */
    public Optional<String> accountCurrency(final long tenantId, final long accountId) throws SQLException
    {
        return accountText(tenantId, accountId, "currency");
    }

    /**
     * @return the tenant's account's {@code expression} (text), read by the account's key; empty when the tenant has no
     *         such account, or the value is NULL.
     */
    private Optional<String> accountText(final long tenantId, final long accountId, final String expression) throws SQLException
    {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT " + expression + " FROM accounts WHERE tenant_id = ? AND account_id = ?"))
        {
            s.setQueryTimeout(READ_TIMEOUT_SECONDS);
            s.setLong(1, tenantId);
            s.setLong(2, accountId);
            try (ResultSet rs = s.executeQuery())
            {
                return rs.next() ? Optional.ofNullable(rs.getString(1)) : Optional.empty();
            }
        }
    }

    /**
     * @return the tenant's transfer carrying {@code reference}, if any, of any age.
     */
    public Optional<TransferRow> transferByReference(final long tenantId, final String reference) throws SQLException
    {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(TRANSFER_BY_REFERENCE))
        {
            s.setQueryTimeout(READ_TIMEOUT_SECONDS);
            s.setLong(1, tenantId);
            s.setString(2, reference);
            return one(s);
        }
    }

    /**
     * One page of the transfers that moved an account, in time order (keyset paging on the account's entry ids).
     *
     * @return at most {@code filter.limit()} transfers; fewer means the end. Another tenant's account gives none.
     */
    public List<AccountTransferRow> accountTransfers(final long tenantId, final long accountId, final AccountTransfersFilter filter)
        throws SQLException
    {
        checkLimit(filter.limit());
        final String sql = accountTransfersSql(filter.direction());
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql))
        {
            s.setQueryTimeout(READ_TIMEOUT_SECONDS);
            final UUID from = filter.from() == null ? BEFORE_ALL : idLowerBound(floorMs(filter.from()));
            final UUID after = filter.afterEntryId() == null ? BEFORE_ALL : filter.afterEntryId();
            s.setLong(1, tenantId);
            s.setLong(2, accountId);
            // "id > greatest(after, from - 1)": the first id of from's millisecond is never an entry's (its version is 0)
            s.setObject(3, isBelow(after, from) ? from : after);
            s.setObject(4, filter.to() == null ? AFTER_ALL : idLowerBound(ceilMs(filter.to())));
            setInstant(s, 5, filter.from(), NEGATIVE_INFINITY);
            setInstant(s, 6, filter.to(), POSITIVE_INFINITY);
            s.setInt(7, filter.limit());
            final List<AccountTransferRow> rows = new ArrayList<>(Math.min(filter.limit(), 64));
            try (ResultSet rs = s.executeQuery())
            {
                while (rs.next())
                {
                    rows.add(new AccountTransferRow(rs.getObject(1, UUID.class), rs.getBoolean(2), transferRow(rs, 3)));
                }
            }
            return rows;
        }
    }

    /**
     * One page of a tenant's accounts in id order (keyset paging on the accounts' key), with balances as the read model
     * holds them.
     *
     * @return at most {@code filter.limit()} accounts; fewer means the end.
     */
    public List<AccountRow> accounts(final long tenantId, final AccountsFilter filter) throws SQLException
    {
        checkLimit(filter.limit());
        final String sql = accountsSql(filter.currency() != null, filter.metadata().size());
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql))
        {
            s.setQueryTimeout(READ_TIMEOUT_SECONDS);
            s.setLong(1, tenantId);
            s.setLong(2, filter.afterAccountId());
            setInstant(s, 3, filter.createdFrom(), NEGATIVE_INFINITY);
            setInstant(s, 4, filter.createdTo(), POSITIVE_INFINITY);
            int next = 5;
            if (filter.currency() != null)
            {
                s.setString(next++, filter.currency());
            }
            for (final String member : filter.metadata())
            {
                s.setString(next++, member);
            }
            s.setInt(next, filter.limit());
            final List<AccountRow> rows = new ArrayList<>(Math.min(filter.limit(), 64));
            try (ResultSet rs = s.executeQuery())
            {
                while (rs.next())
                {
                    rows.add(new AccountRow(rs.getLong(1), rs.getString(2), rs.getInt(3), rs.getBoolean(4), rs.getLong(5),
                        rs.getTimestamp(6).toInstant(), rs.getLong(7), rs.getLong(8), rs.getString(9)));
                }
            }
            return rows;
        }
    }

    /**
     * @return the statement {@link #accountTransfers} runs for a direction: parameters tenant, account, the id after
     *         which the page starts, the id before which the range ends, from, to, limit (tests EXPLAIN it).
     */
    public static String accountTransfersSql(final int direction)
    {
        return ACCOUNT_TRANSFERS + DIRECTION_FILTERS[direction] + " ORDER BY e.id LIMIT ?";
    }

    /**
     * @return the statement {@link #accounts} runs: parameters tenant, the account id after which the page starts, created
     *         from, created to, the currency (when {@code byCurrency}), limit (tests EXPLAIN it).
     */
    public static String accountsSql(final boolean byCurrency)
    {
        return accountsSql(byCurrency, 0);
    }

    /**
     * @return the statement {@link #accounts} runs with {@code metadataMembers} metadata members to match, each a parameter
     *         after the currency: {@code metadata @> member}, which the partial GIN index of V9 answers (tests EXPLAIN it).
     */
    public static String accountsSql(final boolean byCurrency, final int metadataMembers)
    {
        return ACCOUNTS + (byCurrency ? " AND a.currency = ?" : "") + " AND a.metadata @> ?::jsonb".repeat(metadataMembers) +
            " ORDER BY a.account_id LIMIT ?";
    }

    /**
     * @return the tenant's account's metadata as PostgreSQL's jsonb text; empty when the account has none, or the tenant no
     *         such account.
     */
    public Optional<String> accountMetadata(final long tenantId, final long accountId) throws SQLException
    {
        return accountText(tenantId, accountId, "metadata::text");
    }

    /** @return the tenant's hold with that id, whatever its state; empty when unknown or another tenant's. */
    public Optional<HoldRow> hold(final long tenantId, final UUID id) throws SQLException
    {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(HOLD))
        {
            s.setQueryTimeout(READ_TIMEOUT_SECONDS);
            s.setObject(1, id);
            s.setLong(2, tenantId);
            try (ResultSet rs = s.executeQuery())
            {
                if (!rs.next())
                {
                    return Optional.empty();
                }
                final Timestamp resolvedAt = rs.getTimestamp(11);
                return Optional.of(new HoldRow(rs.getObject(1, UUID.class), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getString(5),
                    rs.getString(6), rs.getTimestamp(7).toInstant(), rs.getObject(8, UUID.class), rs.getLong(9),
                    rs.getTimestamp(10).toInstant(), resolvedAt == null ? null : resolvedAt.toInstant(), rs.getLong(12)));
            }
        }
    }

    private static void checkLimit(final int limit)
    {
        if (limit < 1 || limit > ENTRIES_PAGE_MAX)
        {
            throw new IllegalArgumentException("limit must be in [1, " + ENTRIES_PAGE_MAX + "], was " + limit);
        }
    }

    /** An open end as PostgreSQL's infinity, so that one statement serves bounded and open ranges alike. */
    private static void setInstant(final PreparedStatement s, final int parameter, final Instant instant, final String openEnd)
        throws SQLException
    {
        if (instant == null)
        {
            s.setObject(parameter, openEnd, java.sql.Types.OTHER);
        }
        else
        {
            s.setObject(parameter, java.time.OffsetDateTime.ofInstant(instant, java.time.ZoneOffset.UTC));
        }
    }

    private static boolean isBelow(final UUID a, final UUID b)
    {
        return Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits()) < 0 ||
            a.getMostSignificantBits() == b.getMostSignificantBits() &&
            Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits()) < 0;
    }

    /** @return the smallest id of millisecond {@code epochMs} (clamped to what an id holds): below every Tally id of it. */
    static UUID idLowerBound(final long epochMs)
    {
        return new UUID(Math.max(0, Math.min(epochMs, ID_MS_MAX)) << 16, 0);
    }

    private static long floorMs(final Instant instant)
    {
        return instant.getEpochSecond() * 1000 + instant.getNano() / 1_000_000;   // nanos are never negative: a floor
    }

    private static long ceilMs(final Instant instant)
    {
        return floorMs(instant) + (instant.getNano() % 1_000_000 == 0 ? 0 : 1);
    }

    /** @return the last journal index whose effects are all in PostgreSQL (the writer's watermark). */
    public long watermark() throws SQLException
    {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement("SELECT journal_index FROM ledger_watermark");
             ResultSet rs = s.executeQuery())
        {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private static Optional<TransferRow> one(final PreparedStatement s) throws SQLException
    {
        try (ResultSet rs = s.executeQuery())
        {
            if (!rs.next())
            {
                return Optional.empty();
            }
            return Optional.of(transferRow(rs, 1));
        }
    }

    /** Reads the transfer's columns of {@link #TRANSFER_COLUMNS}' order, the first at {@code first}. */
    private static TransferRow transferRow(final ResultSet rs, final int first) throws SQLException
    {
        final int f = first - 1;
        return new TransferRow(rs.getObject(f + 1, UUID.class), rs.getLong(f + 2), rs.getString(f + 3), rs.getLong(f + 4),
            rs.getLong(f + 5), rs.getLong(f + 6), rs.getString(f + 7), rs.getString(f + 8), rs.getObject(f + 9, UUID.class),
            rs.getObject(f + 10, UUID.class), rs.getLong(f + 11), rs.getLong(f + 12), rs.getTimestamp(f + 13).toInstant(),
            rs.getString(f + 14));
    }
}
