package dev.tally.persistence.outbox;

import dev.tally.ledger.id.Uuid7;
import dev.tally.persistence.db.Database;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;

/**
 * Outbox rows written straight into the table, as the writer would (same id scheme: journaled time first,
 * then the journal index), so relay tests choose their aggregates, times and publication state.
 */
public final class OutboxRows
{
    private final Database db;
    private long journalIndex;

    public OutboxRows(final Database db)
    {
        this.db = db;
    }

    /** Inserts an unpublished TransferPosted (or other type) event of tenant 7's {@code aggregateId} at {@code at}. */
    public UUID insert(final String aggregateType, final String aggregateId, final String eventType, final Instant at)
        throws SQLException
    {
        return insert(7, aggregateType, aggregateId, eventType, at);
    }

    /** Inserts an unpublished event of {@code tenantId}'s {@code aggregateId} at {@code at}. */
    public UUID insert(final long tenantId, final String aggregateType, final String aggregateId, final String eventType,
                       final Instant at) throws SQLException
    {
        final long index = ++journalIndex;
        final long timeNs = at.getEpochSecond() * 1_000_000_000L + at.getNano();
        final UUID id = new UUID(Uuid7.hi(timeNs, Uuid7.KIND_EVENT), Uuid7.lo(index, 0));
        final String payload = "{\"schemaVersion\":1,\"eventId\":\"" + id + "\",\"type\":\"" + eventType + "\",\"tenantId\":" + tenantId + "," +
            "\"journalIndex\":" + index + ",\"aggregateId\":\"" + aggregateId + "\"}";
        try (Connection c = db.dataSource().getConnection(); PreparedStatement s = c.prepareStatement(
            "INSERT INTO outbox (id, tenant_id, aggregate_type, aggregate_id, event_type, payload, journal_index, created_at)" +
            " VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, ?)"))
        {
            s.setObject(1, id);
            s.setLong(2, tenantId);
            s.setString(3, aggregateType);
            s.setString(4, aggregateId);
            s.setString(5, eventType);
            s.setString(6, payload);
            s.setLong(7, index);
            s.setTimestamp(8, Timestamp.from(at));
            s.executeUpdate();
        }
        return id;
    }

    public UUID insert(final String aggregateId, final String eventType) throws SQLException
    {
        return insert("transfer", aggregateId, eventType, Instant.now());
    }

    public void markPublished(final UUID id) throws SQLException
    {
        update("UPDATE outbox SET published_at = now() WHERE id = '" + id + "'");
    }

    public void update(final String sql) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement())
        {
            s.executeUpdate(sql);
        }
    }

    public long count(final String sql) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery(sql))
        {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Waits up to {@code timeoutMs} until the count {@code sql} reads reaches {@code atLeast}; @return the last count read. */
    public long awaitCount(final String sql, final long atLeast, final long timeoutMs) throws SQLException, InterruptedException
    {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        long count;
        while ((count = count(sql)) < atLeast && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(10);
        }
        return count;
    }

    /** Waits until no outbox row is unpublished. */
    public void awaitAllPublished(final long timeoutMs) throws SQLException, InterruptedException
    {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (count("SELECT count(*) FROM outbox WHERE published_at IS NULL") > 0)
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("outbox not drained within " + timeoutMs + " ms: "
                    + count("SELECT count(*) FROM outbox WHERE published_at IS NULL") + " unpublished");
            }
            Thread.sleep(10);
        }
    }
}
