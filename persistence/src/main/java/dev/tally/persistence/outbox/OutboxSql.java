package dev.tally.persistence.outbox;

import javax.sql.DataSource;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The relay's SQL: claim a batch, note which endpoints already took a retried event, record a round's
 * outcome, read the backlog. Each call is one short transaction on a pooled connection; no transaction is
 * ever open while a webhook is in flight.
 *
 * <h2>Claim: heads of aggregates, SKIP LOCKED, then a lease</h2>
 * <pre>
 * prefix  = the oldest {@code headWindowRows} unpublished rows, in id order      (partial index outbox_unpublished)
 * heads   = per (tenant_id, aggregate_type, aggregate_id), the first row of the prefix   (DISTINCT ON)
 * claimed = heads that are due, oldest first, LIMIT batch, FOR UPDATE SKIP LOCKED
 * UPDATE claimed SET next_attempt_at = now() + lease, attempts + 1  RETURNING …   then COMMIT
 * </pre>
 * The payload returned is {@code tally_outbox_payload}'s: the stored one, or a TransferPosted row's rendered from its
 * transfers row (migration V6), the same jsonb text either way.
 * Why this keeps the order per aggregate, with any number of relays:
 * <ol>
 *   <li>An event is claimable only while no earlier event of its aggregate is unpublished. The prefix starts
 *   at the oldest unpublished row and runs in id order, so an earlier unpublished event of the same
 *   aggregate, if any, is inside it and is the one DISTINCT ON keeps.</li>
 *   <li>The head test reads rows, not locks: a head that another relay has locked or leased (in flight) or
 *   that is backing off is still unpublished, so its successors stay out. SKIP LOCKED then only skips the
 *   head itself — it never lets a relay jump to the next event of a busy aggregate, which is what makes it
 *   safe here (a plain {@code SELECT … FOR UPDATE SKIP LOCKED … ORDER BY id} over all rows would).</li>
 *   <li>Claiming is a committed lease, not a lock held during delivery: once the claim commits, the head's
 *   {@code next_attempt_at} is in the future and no other relay's claim matches it (a relay whose snapshot
 *   predates that commit re-checks the row's conditions when it tries to lock it, and drops it).</li>
 *   <li>An event is marked published only after its delivery succeeded, so the successor becomes a head only
 *   then: delivery of event n+1 of an aggregate starts after event n was acknowledged.</li>
 *   <li>Id order is journal order, and the single writer commits batches in journal order, so a row never
 *   appears later with a smaller id than a row already visible for the same aggregate (the commit-order trap
 *   of {@code created_at} ordering does not arise).</li>
 * </ol>
 * A claim holds at most one event per aggregate, so a batch can be delivered concurrently. The cost: an
 * aggregate advances one event per round, and if more than {@code headWindowRows} unpublished rows pile up
 * before the first due head (a long outage of every endpoint), rows beyond the window wait until the window
 * drains.
 */
final class OutboxSql
{
    private static final String CLAIM =
        "WITH prefix AS (" +
        "    SELECT id, tenant_id, aggregate_type, aggregate_id, next_attempt_at FROM outbox" +
        "    WHERE published_at IS NULL ORDER BY id LIMIT ?" +
        "), heads AS (" +
        "    SELECT DISTINCT ON (tenant_id, aggregate_type, aggregate_id) id, next_attempt_at FROM prefix" +
        "    ORDER BY tenant_id, aggregate_type, aggregate_id, id" +
        ") " +
        "UPDATE outbox o SET next_attempt_at = now() + ?::float8 * interval '1 millisecond', attempts = o.attempts + 1 " +
        "WHERE o.id IN (" +
        "    SELECT c.id FROM outbox c" +
        "    WHERE c.id IN (SELECT id FROM heads WHERE next_attempt_at IS NULL OR next_attempt_at <= now())" +
        "      AND c.published_at IS NULL AND (c.next_attempt_at IS NULL OR c.next_attempt_at <= now())" +
        "    ORDER BY c.id LIMIT ? FOR UPDATE SKIP LOCKED) " +
        "RETURNING o.id, o.tenant_id, o.aggregate_type, o.aggregate_id, o.event_type," +
        " tally_outbox_payload(o.payload, o.id, o.tenant_id, o.event_type, o.aggregate_id, o.journal_index, o.created_at)::text, o.attempts";

    private static final String DELIVERED_ENDPOINTS =
        "SELECT DISTINCT event_id, endpoint_url FROM webhook_deliveries WHERE event_id = ANY(?) AND succeeded";

    private static final String LOG_ATTEMPT =
        "INSERT INTO webhook_deliveries (event_id, tenant_id, endpoint_url, attempt, attempted_at, status_code, error," +
        " duration_ms, succeeded, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, now() + ?::float8 * interval '1 millisecond')";

    // Both record a round's outcome only while the round still holds its claim: every claim adds one to
    // attempts, so attempts = the claim's attempt means no other relay has claimed the event since.
    private static final String PUBLISH =
        "UPDATE outbox SET published_at = now(), next_attempt_at = NULL, last_error = NULL" +
        " WHERE id = ? AND attempts = ? AND published_at IS NULL";

    private static final String RESCHEDULE =
        "UPDATE outbox SET next_attempt_at = now() + ?::float8 * interval '1 millisecond', last_error = ?" +
        " WHERE id = ? AND attempts = ? AND published_at IS NULL";

    private static final String BACKLOG =
        "SELECT (SELECT count(*) FROM outbox WHERE published_at IS NULL)," +
        " (SELECT extract(epoch FROM now() - created_at) FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 1)";

    private final DataSource dataSource;

    OutboxSql(final DataSource dataSource)
    {
        this.dataSource = dataSource;
    }

    /** Claims up to {@code eventsMax} due heads of aggregates, leased for {@code leaseMs}. */
    List<OutboxEvent> claim(final int headWindowRows, final int eventsMax, final long leaseMs) throws SQLException
    {
        final List<OutboxEvent> events = new ArrayList<>(eventsMax);
        try (Connection c = dataSource.getConnection())
        {
            c.setAutoCommit(false);
            try (PreparedStatement s = c.prepareStatement(CLAIM))
            {
                s.setInt(1, headWindowRows);
                s.setLong(2, leaseMs);
                s.setInt(3, eventsMax);
                try (ResultSet rs = s.executeQuery())
                {
                    while (rs.next())
                    {
                        events.add(new OutboxEvent(rs.getObject(1, UUID.class), rs.getLong(2), rs.getString(3), rs.getString(4),
                            rs.getString(5), rs.getString(6), rs.getInt(7)));
                    }
                }
                c.commit();
            }
            finally
            {
                rollbackQuietly(c);
            }
        }
        // RETURNING gives no order; deliver (and log) oldest first.
        events.sort((a, b) -> compareUuids(a.id(), b.id()));
        return events;
    }

    /** @return "eventId endpointUrl" pairs that already succeeded, for retried events of several endpoints. */
    Set<String> deliveredEndpoints(final List<OutboxEvent> events) throws SQLException
    {
        final Set<String> delivered = new HashSet<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(DELIVERED_ENDPOINTS))
        {
            s.setArray(1, uuidArray(c, events.stream().map(OutboxEvent::id).toArray(UUID[]::new)));
            try (ResultSet rs = s.executeQuery())
            {
                while (rs.next())
                {
                    delivered.add(deliveredKey(rs.getObject(1, UUID.class), rs.getString(2)));
                }
            }
        }
        return delivered;
    }

    /** {@code outbox.last_error} holds at most this many characters (V3's CHECK). */
    static final int LAST_ERROR_LENGTH_MAX = 1_000;

    /**
     * @return {@code error} made safe for SQL ({@link #sqlText}) and cut to fit {@code outbox.last_error}: an overlong
     * one must not fail the round's bookkeeping.
     */
    static String lastError(final String error)
    {
        final String text = sqlText(error);
        return text.length() <= LAST_ERROR_LENGTH_MAX ? text : text.substring(0, LAST_ERROR_LENGTH_MAX);
    }

    /**
     * @return {@code text} with every control character written as {@code \\uXXXX} (NUL as {@code \\u0000}). Error texts quote what a remote
     * server sent (the HTTP client's message can hold its raw status line), and PostgreSQL's {@code text} refuses a
     * NUL: one would fail the whole {@link #record} of a round, every endpoint's acknowledgements with it, on every
     * retry. The other control characters are escaped too, so that the reason stays one readable line.
     */
    static String sqlText(final String text)
    {
        if (text == null)
        {
            return null;
        }
        int i = 0;
        while (i < text.length() && !Character.isISOControl(text.charAt(i)))
        {
            i++;
        }
        if (i == text.length())
        {
            return text;
        }
        final StringBuilder escaped = new StringBuilder(text.length() + 16).append(text, 0, i);
        for (; i < text.length(); i++)
        {
            final char ch = text.charAt(i);
            if (Character.isISOControl(ch))
            {
                escaped.append(String.format("\\u%04x", (int)ch));
            }
            else
            {
                escaped.append(ch);
            }
        }
        return escaped.toString();
    }

    static String deliveredKey(final UUID eventId, final String endpointUrl)
    {
        return eventId + " " + endpointUrl;
    }

    /** An event whose round failed: when to try it again and why (for {@code outbox.last_error}). */
    record Retry(OutboxEvent event, long delayMs, String error)
    {
    }

    /**
     * Records a round in one transaction: one log row per attempt (what happened, always), then published and
     * rescheduled events — each only if the round still holds its claim. A round that outlived its lease (a POST
     * hanging for the whole request timeout and a database stall) may find the event claimed again by another
     * relay: publishing it then would let the aggregate's next event go out while that relay still delivers this
     * one, and rescheduling it would cut that relay's lease short. The other relay decides instead.
     *
     * @return how many of {@code published} this round did mark published (not those it no longer held).
     */
    int record(final List<DeliveryAttempt> attempts, final List<OutboxEvent> published, final List<Retry> retries)
        throws SQLException
    {
        int publishedRows = 0;
        final Map<UUID, Long> retryDelayMs = new HashMap<>();
        retries.forEach(r -> retryDelayMs.put(r.event().id(), r.delayMs()));
        try (Connection c = dataSource.getConnection())
        {
            c.setAutoCommit(false);
            try
            {
                logAttempts(c, attempts, retryDelayMs);
                if (!published.isEmpty())
                {
                    try (PreparedStatement s = c.prepareStatement(PUBLISH))
                    {
                        for (final OutboxEvent e : published)
                        {
                            s.setObject(1, e.id());
                            s.setInt(2, e.attempt());
                            s.addBatch();
                        }
                        for (final int rows : s.executeBatch())
                        {
                            // 1 or 0 (claimed again meanwhile); a driver that cannot tell says SUCCESS_NO_INFO
                            publishedRows += rows > 0 || rows == Statement.SUCCESS_NO_INFO ? 1 : 0;
                        }
                    }
                }
                if (!retries.isEmpty())
                {
                    try (PreparedStatement s = c.prepareStatement(RESCHEDULE))
                    {
                        for (final Retry r : retries)
                        {
                            s.setLong(1, r.delayMs());
                            s.setString(2, lastError(r.error()));
                            s.setObject(3, r.event().id());
                            s.setInt(4, r.event().attempt());
                            s.addBatch();
                        }
                        s.executeBatch();
                    }
                }
                c.commit();
            }
            finally
            {
                rollbackQuietly(c);
            }
        }
        return publishedRows;
    }

    private static void logAttempts(final Connection c, final List<DeliveryAttempt> attempts, final Map<UUID, Long> retryDelayMs)
        throws SQLException
    {
        try (PreparedStatement s = c.prepareStatement(LOG_ATTEMPT))
        {
            for (final DeliveryAttempt a : attempts)
            {
                final OutboxEvent e = a.event();
                s.setObject(1, e.id());
                s.setLong(2, e.tenantId());
                s.setString(3, a.endpointUrl());
                s.setInt(4, e.attempt());
                s.setTimestamp(5, Timestamp.from(a.attemptedAt()));
                if (a.statusCode() == 0)
                {
                    s.setNull(6, Types.INTEGER);
                }
                else
                {
                    s.setInt(6, a.statusCode());
                }
                s.setString(7, DeliveryAttempt.truncate(sqlText(a.error())));
                s.setInt(8, (int)Math.min(Integer.MAX_VALUE, a.durationMs()));
                s.setBoolean(9, a.succeeded());
                // The row says when this event is tried next: only a failed event of a failed round has a time.
                final Long delayMs = a.succeeded() ? null : retryDelayMs.get(e.id());
                if (delayMs == null)
                {
                    s.setNull(10, Types.DOUBLE);
                }
                else
                {
                    s.setLong(10, delayMs);
                }
                s.addBatch();
            }
            s.executeBatch();
        }
    }

    /** @return {unpublished rows, age in seconds of the oldest (0 when none)}. */
    double[] backlog() throws SQLException
    {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(BACKLOG);
             ResultSet rs = s.executeQuery())
        {
            rs.next();
            return new double[] {rs.getLong(1), Math.max(0, rs.getDouble(2))};
        }
    }

    static Array uuidArray(final Connection c, final UUID[] ids) throws SQLException
    {
        return c.createArrayOf("uuid", ids);
    }

    /** PostgreSQL orders uuids as unsigned bytes; {@link UUID#compareTo} compares signed longs. */
    static int compareUuids(final UUID a, final UUID b)
    {
        final int high = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
        return high != 0 ? high : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
    }

    private static void rollbackQuietly(final Connection c)
    {
        try
        {
            if (!c.getAutoCommit())
            {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
        catch (final SQLException ignored)
        {
            // the pool discards a broken connection; the caller already has the original failure
        }
    }
}
