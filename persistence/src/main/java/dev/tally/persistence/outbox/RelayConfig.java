package dev.tally.persistence.outbox;

import java.util.List;

/**
 * Settings of the outbox relay, each with its unit, validated together when built (a relay that could lease an
 * event for less time than a delivery takes would deliver it twice in the happy path, so that is refused here).
 *
 * @param endpoints          where every event goes; at least one, at most {@value #ENDPOINTS_MAX}.
 * @param batchEventsMax     events claimed per round (each a head of its aggregate, delivered concurrently).
 * @param headWindowRows     how many of the oldest unpublished rows a claim looks at to find heads of
 *                           aggregates (see {@link OutboxSql}); at least {@code batchEventsMax}.
 * @param pollIntervalMs     sleep when a round found nothing due.
 * @param connectTimeoutMs   TCP connect timeout of a delivery.
 * @param requestTimeoutMs   whole-response timeout of a delivery: slower counts as a failed attempt.
 * @param leaseMs            how long a claimed event is hidden from other relays; a relay that dies mid-round
 *                           delays its events by this much. Must exceed {@code requestTimeoutMs} with margin.
 * @param backoffBaseMs      delay after the first failed attempt; doubled per further failure ...
 * @param backoffCapMs       ... up to this cap.
 * @param retentionMs        published events (and delivery log rows, but the acknowledgements of events not yet
 *                           published) older than this are deleted.
 * @param cleanupIntervalMs  how often the cleanup runs (on the relay's thread, between rounds).
 * @param cleanupBatchRows   rows deleted per cleanup transaction (short transactions, small WAL bursts).
 * @param statsIntervalMs    how often the backlog gauges are refreshed (one query each).
 * @param databaseTimeoutMs  longest wait for PostgreSQL's answer on the relay's connections (their network timeout):
 *                           a silent network partition fails the relay's statement after this long, instead of the
 *                           operating system's keep-alive (about two hours), and {@code close()} waits no longer.
 *                           Only the connections the relay borrows get it; the pool's other users keep none.
 */
public record RelayConfig(
    List<WebhookEndpoint> endpoints,
    int batchEventsMax,
    int headWindowRows,
    long pollIntervalMs,
    long connectTimeoutMs,
    long requestTimeoutMs,
    long leaseMs,
    long backoffBaseMs,
    long backoffCapMs,
    long retentionMs,
    long cleanupIntervalMs,
    int cleanupBatchRows,
    long statsIntervalMs,
    long databaseTimeoutMs)
{
    public static final int ENDPOINTS_MAX = 16;
    public static final int BATCH_EVENTS_MAX = 1_000;
    public static final int HEAD_WINDOW_ROWS_MAX = 100_000;
    public static final int CLEANUP_BATCH_ROWS_MAX = 100_000;
    /** Lease beyond the request timeout: bookkeeping of a round and scheduling jitter. */
    public static final long LEASE_MARGIN_MS = 2_000;
    /** Bounds of {@link #databaseTimeoutMs}: above the cleanup's partition-drop lock timeout, at most an hour. */
    public static final long DATABASE_TIMEOUT_MS_MIN = 200;
    public static final long DATABASE_TIMEOUT_MS_MAX = 3_600_000;

    public RelayConfig
    {
        endpoints = List.copyOf(endpoints);
        require(!endpoints.isEmpty() && endpoints.size() <= ENDPOINTS_MAX, "endpoints must be 1.." + ENDPOINTS_MAX);
        // The delivery log tells endpoints apart by their display form, so that is what must differ.
        require(endpoints.stream().map(WebhookEndpoint::displayUrl).distinct().count() == endpoints.size(),
            "endpoint URLs must differ (without user info and query)");
        require(batchEventsMax >= 1 && batchEventsMax <= BATCH_EVENTS_MAX, "batchEventsMax must be 1.." + BATCH_EVENTS_MAX);
        require(headWindowRows >= batchEventsMax && headWindowRows <= HEAD_WINDOW_ROWS_MAX,
            "headWindowRows must be batchEventsMax.." + HEAD_WINDOW_ROWS_MAX);
        require(pollIntervalMs >= 1 && pollIntervalMs <= 60_000, "pollIntervalMs must be 1..60000");
        require(connectTimeoutMs >= 1 && connectTimeoutMs <= requestTimeoutMs, "connectTimeoutMs must be 1..requestTimeoutMs");
        require(requestTimeoutMs >= 1 && requestTimeoutMs <= 300_000, "requestTimeoutMs must be 1..300000");
        require(leaseMs >= requestTimeoutMs + LEASE_MARGIN_MS, "leaseMs must be at least requestTimeoutMs + " + LEASE_MARGIN_MS);
        require(backoffBaseMs >= 1 && backoffBaseMs <= backoffCapMs, "backoffBaseMs must be 1..backoffCapMs");
        require(backoffCapMs <= 86_400_000, "backoffCapMs must be at most a day");
        require(retentionMs >= 1, "retentionMs must be positive");
        require(cleanupIntervalMs >= 1, "cleanupIntervalMs must be positive");
        require(cleanupBatchRows >= 1 && cleanupBatchRows <= CLEANUP_BATCH_ROWS_MAX, "cleanupBatchRows must be 1.." + CLEANUP_BATCH_ROWS_MAX);
        require(statsIntervalMs >= 1, "statsIntervalMs must be positive");
        require(databaseTimeoutMs >= DATABASE_TIMEOUT_MS_MIN && databaseTimeoutMs <= DATABASE_TIMEOUT_MS_MAX,
            "databaseTimeoutMs must be " + DATABASE_TIMEOUT_MS_MIN + ".." + DATABASE_TIMEOUT_MS_MAX);
    }

    /**
     * Production defaults: 100 events a round from a 2,000-row window, poll every 200 ms, 10 s per delivery,
     * retries after 1 s, 2 s, 4 s … capped at 10 min, published events kept 7 days, cleanup every minute
     * in 1,000-row transactions, backlog gauges every 5 s, 30 s at most waiting for PostgreSQL on one statement.
     */
    public static RelayConfig defaults(final List<WebhookEndpoint> endpoints)
    {
        return new RelayConfig(endpoints, 100, 2_000, 200, 3_000, 10_000, 30_000, 1_000, 600_000,
            7L * 24 * 3_600_000, 60_000, 1_000, 5_000, 30_000);
    }

    /** @return these settings with another retry schedule (tests use milliseconds). */
    public RelayConfig withBackoff(final long baseMs, final long capMs)
    {
        return new RelayConfig(endpoints, batchEventsMax, headWindowRows, pollIntervalMs, connectTimeoutMs, requestTimeoutMs,
            leaseMs, baseMs, capMs, retentionMs, cleanupIntervalMs, cleanupBatchRows, statsIntervalMs,
            databaseTimeoutMs);
    }

    /** @return these settings with other delivery timings. */
    public RelayConfig withTimings(final long pollMs, final long requestTimeoutMs, final long leaseMs)
    {
        return new RelayConfig(endpoints, batchEventsMax, headWindowRows, pollMs, Math.min(connectTimeoutMs, requestTimeoutMs),
            requestTimeoutMs, leaseMs, backoffBaseMs, backoffCapMs, retentionMs, cleanupIntervalMs, cleanupBatchRows, statsIntervalMs,
            databaseTimeoutMs);
    }

    /** @return these settings with another batch size (the head window grows to stay at least as large). */
    public RelayConfig withBatch(final int eventsMax)
    {
        return new RelayConfig(endpoints, eventsMax, Math.max(headWindowRows, eventsMax), pollIntervalMs, connectTimeoutMs,
            requestTimeoutMs, leaseMs, backoffBaseMs, backoffCapMs, retentionMs, cleanupIntervalMs, cleanupBatchRows, statsIntervalMs,
            databaseTimeoutMs);
    }

    /** @return these settings with another retention and cleanup period. */
    public RelayConfig withRetention(final long retentionMs, final long cleanupIntervalMs)
    {
        return new RelayConfig(endpoints, batchEventsMax, headWindowRows, pollIntervalMs, connectTimeoutMs, requestTimeoutMs,
            leaseMs, backoffBaseMs, backoffCapMs, retentionMs, cleanupIntervalMs, cleanupBatchRows, statsIntervalMs,
            databaseTimeoutMs);
    }

    /** @return these settings with another longest wait for PostgreSQL on one relay statement. */
    public RelayConfig withDatabaseTimeout(final long databaseTimeoutMs)
    {
        return new RelayConfig(endpoints, batchEventsMax, headWindowRows, pollIntervalMs, connectTimeoutMs, requestTimeoutMs,
            leaseMs, backoffBaseMs, backoffCapMs, retentionMs, cleanupIntervalMs, cleanupBatchRows, statsIntervalMs,
            databaseTimeoutMs);
    }

    /**
     * The retry schedule: the delay before attempt {@code failedAttempts + 1}, i.e. {@code base × 2^(failed − 1)}
     * capped, without jitter (the relay adds up to {@value RetrySchedule#JITTER_PERCENT} %).
     */
    public long backoffMs(final int failedAttempts)
    {
        return RetrySchedule.delayMs(backoffBaseMs, backoffCapMs, failedAttempts);
    }

    private static void require(final boolean condition, final String message)
    {
        if (!condition)
        {
            throw new IllegalArgumentException("relay config: " + message);
        }
    }
}
