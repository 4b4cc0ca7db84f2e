package dev.tally.persistence.outbox;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;

/**
 * Deletes published outbox rows older than the retention, and delivery-log rows older than it (except the
 * successful attempts of events not yet published), in small transactions.
 *
 * <p>What it deletes is always a <b>prefix in id (= journaled time) order</b>: every row older than a cut
 * {@code C = min(now − retention, created_at of the oldest unpublished event)}, truncated to the millisecond.
 * It first moves {@code outbox_retention.retained_from} to {@code C}, then deletes. Two reasons:
 * <ul>
 *   <li>the verifier compares outbox events with the facts they record from {@code retained_from} on; a gap
 *   in the middle of the retained range would read as missing events, a clean prefix does not;</li>
 *   <li>a row's id carries its journaled millisecond, so "older than C" is the id range below the smallest id
 *   of C's millisecond — a primary-key range scan, pruned to the old partitions, with no index on
 *   {@code published_at} for the writer to maintain.</li>
 * </ul>
 * An unpublished row is never deleted ({@code published_at IS NOT NULL} stays in the statement even below the
 * cut: a replay onto a fresh database can write rows with old journaled times).
 *
 * <p>Whole months that ended before the cut are first <b>dropped</b> with V2's {@code tally_drop_outbox_partitions}
 * (instant, no dead tuples, and it never drops a month holding an unpublished event); the row deletes then only
 * see the month the cut falls in. Dropping needs a brief exclusive lock on {@code outbox}, which conflicts with the
 * writer's COPY: the attempt gives up after {@value #DROP_LOCK_TIMEOUT_MS} ms (the writer waits at most that
 * long behind it) and is retried at the next run.
 */
final class OutboxCleaner
{
    /** Transactions per cleanup run at most, so a run never monopolises the relay's thread. */
    static final int BATCHES_PER_RUN_MAX = 100;

    /** Longest wait for the exclusive lock a partition drop needs; the writer queues behind it meanwhile. */
    static final long DROP_LOCK_TIMEOUT_MS = 100;
    /** PostgreSQL's lock_not_available: the lock timeout passed. */
    private static final String LOCK_NOT_AVAILABLE = "55P03";

    private static final String CUT =
        "SELECT now() - ?::float8 * interval '1 millisecond'," +
        " (SELECT created_at FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 1)";
    private static final String MOVE_RETAINED_FROM =
        "UPDATE outbox_retention SET retained_from = greatest(retained_from, ?)";
    private static final String DELETE_OUTBOX =
        "DELETE FROM outbox WHERE id IN (" +
        " SELECT id FROM outbox WHERE id < ? AND published_at IS NOT NULL ORDER BY id LIMIT ?)";
    // One window of the delivery log in id order (identity ids follow insertion, which follows attempt time
    // closely): deletes its rows past the retention except the successful attempts of events not yet published,
    // which the relay reads so as not to call again an endpoint that acknowledged (OutboxSql.deliveredEndpoints).
    // The probe is a lookup in the small partial index outbox_unpublished. Returns {deleted, rows in the window,
    // the window's last id, whether the window reached rows inside the retention}.
    private static final String DELETE_DELIVERIES =
        "WITH scanned AS (" +
        "    SELECT id, event_id, attempted_at, succeeded FROM webhook_deliveries WHERE id > ? ORDER BY id LIMIT ?" +
        "), gone AS (" +
        "    DELETE FROM webhook_deliveries WHERE id IN (" +
        "        SELECT s.id FROM scanned s WHERE s.attempted_at < now() - ?::float8 * interval '1 millisecond'" +
        "          AND NOT (s.succeeded AND EXISTS (" +
        "              SELECT 1 FROM outbox o WHERE o.id = s.event_id AND o.published_at IS NULL)))" +
        "    RETURNING 1" +
        ") " +
        "SELECT (SELECT count(*) FROM gone), count(*), coalesce(max(id), 0)," +
        " coalesce(bool_or(attempted_at >= now() - ?::float8 * interval '1 millisecond'), false) FROM scanned";

    private final DataSource dataSource;
    private final long retentionMs;
    private final int batchRows;
    /** Where the next run's delivery log scan starts: past the kept rows a run had no budget left to go beyond. */
    private long deliveriesFrom;

    OutboxCleaner(final DataSource dataSource, final long retentionMs, final int batchRows)
    {
        this.dataSource = dataSource;
        this.retentionMs = retentionMs;
        this.batchRows = batchRows;
    }

    /** @return {outbox rows deleted, delivery log rows deleted, outbox months dropped}. */
    synchronized long[] run() throws SQLException
    {
        final long cutMs = cutMs();
        moveRetainedFrom(cutMs);
        final int dropped = dropMonths(cutMs);
        // The smallest possible id of the cut's millisecond: ids below it are exactly the rows older than the cut.
        final UUID bound = new UUID(cutMs << 16, 0);
        final long outbox = deleteInBatches(DELETE_OUTBOX, s ->
        {
            s.setObject(1, bound);
            s.setInt(2, batchRows);
        });
        return new long[] {outbox, deleteDeliveries(), dropped};
    }

    /**
     * Deletes the delivery log past the retention, window after window of {@code batchRows} rows in id order, one
     * transaction each, up to the first window that reaches rows inside the retention (or the end of the log).
     * The successful attempts of unpublished events are kept, so windows step over them instead of stopping at
     * them; a run that used up its {@value #BATCHES_PER_RUN_MAX} windows before reaching the retained rows leaves
     * the next run to go on from there. Cost per run: at most that many windows of {@code batchRows} rows, each
     * row probed once in the partial index of unpublished events.
     */
    private long deleteDeliveries() throws SQLException
    {
        long deleted = 0;
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(DELETE_DELIVERIES))
        {
            for (int batch = 0; batch < BATCHES_PER_RUN_MAX; batch++)
            {
                s.setLong(1, deliveriesFrom);
                s.setInt(2, batchRows);
                s.setLong(3, retentionMs);
                s.setLong(4, retentionMs);
                try (ResultSet rs = s.executeQuery())   // autocommit: one short transaction per window
                {
                    rs.next();
                    deleted += rs.getLong(1);
                    if (rs.getLong(2) < batchRows || rs.getBoolean(4))
                    {
                        deliveriesFrom = 0;   // reached the retained rows: the next run starts from the oldest again
                        return deleted;
                    }
                    deliveriesFrom = rs.getLong(3);
                }
            }
        }
        return deleted;
    }

    private int dropMonths(final long cutMs) throws SQLException
    {
        try (Connection c = dataSource.getConnection())
        {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement(); PreparedStatement drop = c.prepareStatement("SELECT tally_drop_outbox_partitions(?)"))
            {
                s.execute("SET LOCAL lock_timeout = '" + DROP_LOCK_TIMEOUT_MS + "ms'");
                drop.setTimestamp(1, new Timestamp(cutMs));
                try (ResultSet rs = drop.executeQuery())
                {
                    rs.next();
                    final int dropped = rs.getInt(1);
                    c.commit();
                    return dropped;
                }
            }
            catch (final SQLException ex)
            {
                c.rollback();
                if (LOCK_NOT_AVAILABLE.equals(ex.getSQLState()))
                {
                    return 0;   // the writer was busy on outbox: next run
                }
                throw ex;
            }
            finally
            {
                c.setAutoCommit(true);
            }
        }
    }

    private long cutMs() throws SQLException
    {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(CUT))
        {
            s.setLong(1, retentionMs);
            try (ResultSet rs = s.executeQuery())
            {
                rs.next();
                Instant cut = rs.getTimestamp(1).toInstant();
                final Timestamp oldestUnpublished = rs.getTimestamp(2);
                if (oldestUnpublished != null && oldestUnpublished.toInstant().isBefore(cut))
                {
                    cut = oldestUnpublished.toInstant();
                }
                return cut.toEpochMilli();   // truncates to the millisecond, as ids do
            }
        }
    }

    private void moveRetainedFrom(final long cutMs) throws SQLException
    {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(MOVE_RETAINED_FROM))
        {
            s.setTimestamp(1, new Timestamp(cutMs));
            s.executeUpdate();
        }
    }

    private long deleteInBatches(final String sql, final Binder binder) throws SQLException
    {
        long deleted = 0;
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql))
        {
            for (int batch = 0; batch < BATCHES_PER_RUN_MAX; batch++)
            {
                binder.bind(s);
                final int rows = s.executeUpdate();   // autocommit: one short transaction per batch
                deleted += rows;
                if (rows < batchRows)
                {
                    break;
                }
            }
        }
        return deleted;
    }

    @FunctionalInterface
    private interface Binder
    {
        void bind(PreparedStatement statement) throws SQLException;
    }
}
