package dev.tally.persistence.read;

import dev.tally.ledger.transfer.TransferKind;
import javax.sql.DataSource;
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
