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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Reads the gateway serves from PostgreSQL: an account's entries, paged, and transfers older than the
 * ledger's in-memory window. Thread-safe (each call borrows a pooled connection); never call it on the
 * business thread.
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

    private static final String ENTRIES =
        "SELECT id, transfer_id, tenant_id, account_id, amount_minor, currency, journal_index, created_at, kind, balance_after_minor" +
        " FROM ledger_entries WHERE tenant_id = ? AND account_id = ? AND id > ? ORDER BY id LIMIT ?";
    private static final String TRANSFER_COLUMNS =
        "SELECT t.id, t.tenant_id, t.kind, t.debit_account_id, t.credit_account_id, t.amount_minor, t.currency, t.reference," +
        " t.reverses_id, t.hold_id, (SELECT coalesce(sum(r.amount_minor), 0) FROM transfers r WHERE r.reverses_id = t.id)," +
        " t.journal_index, t.created_at, t.metadata::text FROM transfers t";
    private static final String TRANSFER = TRANSFER_COLUMNS + " WHERE t.id = ? AND t.tenant_id = ?";
    private static final String TRANSFER_BY_REFERENCE = TRANSFER_COLUMNS + " WHERE t.tenant_id = ? AND t.reference = ?";
    /** One round trip for a whole batch of references, on the (tenant_id, reference) unique index. */

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
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT currency FROM accounts WHERE tenant_id = ? AND account_id = ?"))
        {
            s.setQueryTimeout(READ_TIMEOUT_SECONDS);
            s.setLong(1, tenantId);
            s.setLong(2, accountId);
            try (ResultSet rs = s.executeQuery())
            {
                return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
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
            return Optional.of(new TransferRow(rs.getObject(1, UUID.class), rs.getLong(2), rs.getString(3), rs.getLong(4),
                rs.getLong(5), rs.getLong(6), rs.getString(7), rs.getString(8), rs.getObject(9, UUID.class),
                rs.getObject(10, UUID.class), rs.getLong(11), rs.getLong(12), rs.getTimestamp(13).toInstant(), rs.getString(14)));
        }
    }
}
