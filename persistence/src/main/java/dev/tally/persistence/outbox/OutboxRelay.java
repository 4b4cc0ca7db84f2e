package dev.tally.persistence.outbox;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The outbox relay: an Agrona {@link Agent} on its own thread that delivers every outbox event to every
 * configured webhook endpoint, at least once, in order per aggregate, and cleans up after the retention.
 *
 * <pre>
 *  one round (doWork)                                                       PostgreSQL (pooled connection)
 *  claim ≤ batch heads of aggregates ─── FOR UPDATE SKIP LOCKED + lease ──► UPDATE … RETURNING, COMMIT
 *  POST each event to each endpoint concurrently (signed), wait ≤ request timeout
 *  record: a webhook_deliveries row per attempt; published, or rescheduled with backoff ──► one transaction
 *  every cleanupIntervalMs: delete published rows older than the retention, in small transactions
 *  every statsIntervalMs: read the backlog (unpublished rows, oldest age) for the gauges
 *  (both scheduled before they run, and failing on their own: neither ever holds back a round)
 * </pre>
 *
 * <p>Any number of relays may run on one database (other processes, or several in one for tests): claims
 * skip each other's rows and the order per aggregate holds across them (see {@link OutboxSql}). A relay that
 * dies mid-round leaves its events leased; another (or its restart) delivers them once the lease passes —
 * at least once, so consumers deduplicate on the event id ({@code Inbox}).
 *
 * <p>An event is published only when every endpoint answered 2xx; on a retry, endpoints that already took it
 * (per the delivery log) are skipped. A failing event is retried forever on the backoff schedule, holding back
 * only the later events of its own aggregate; {@code outbox.last_error} and the delivery log say why.
 *
 * <p>Never on the business thread; never holds a database transaction open across an HTTP request; logs
 * URLs, ids and statuses, never a secret or a payload.
 */
public final class OutboxRelay implements Agent, AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    /** Waiting for a round's responses beyond the request timeout: the client's own scheduling. */
    private static final long RESPONSE_WAIT_MARGIN_MS = 1_000;
    /** After a database error the relay retries its round after this long (the pool reconnects). */
    private static final long DATABASE_RETRY_MS = 1_000;

    private final RelayConfig config;
    private final String name;
    private final OutboxSql sql;
    private final OutboxCleaner cleaner;
    private final WebhookSender sender;
    private final TenantNames tenantNames;
    private final List<WebhookSignature> signers = new ArrayList<>();
    private AgentRunner runner;

    // relay thread state
    private long nextCleanupNs;
    private long nextStatsNs;
    private long databaseRetryAtNs;
    private boolean databaseDown;
    private boolean cleanupFailing;
    private boolean backlogFailing;

    // metrics: written by the relay thread, read by any
    private volatile long eventsPublished;
    private volatile long deliveriesSucceeded;
    private volatile long deliveriesFailed;
    private volatile long rowsCleaned;
    private volatile long backlogEvents;
    private volatile double oldestUnpublishedAgeS;

    /**
     * A relay on {@code dataSource} (the read model's pool is fine: it borrows a connection per step, and gives each
     * the network timeout {@link RelayConfig#databaseTimeoutMs()} while it holds it).
     */
    public OutboxRelay(final DataSource dataSource, final RelayConfig config)
    {
        this(dataSource, config, TenantNames.NONE);
    }

    /**
     * A relay as above that names each event's tenant ({@code "tenant"} in the body, {@link DeliveredBody}) from
     * {@code tenantNames}, called on the relay thread.
     */
    public OutboxRelay(final DataSource dataSource, final RelayConfig config, final TenantNames tenantNames)
    {
        this.config = config;
        this.tenantNames = tenantNames;
        name = "tally-outbox-relay-" + INSTANCES.incrementAndGet();
        // Every statement of the relay waits at most databaseTimeoutMs for PostgreSQL; the pool's other users are unaffected.
        final DataSource bounded = new BoundedWaitDataSource(dataSource, config.databaseTimeoutMs());
        sql = new OutboxSql(bounded);
        cleaner = new OutboxCleaner(bounded, config.retentionMs(), config.cleanupBatchRows());
        sender = new WebhookSender(name, config.connectTimeoutMs(), config.requestTimeoutMs());
        for (final WebhookEndpoint endpoint : config.endpoints())
        {
            signers.add(new WebhookSignature(endpoint.secret()));
        }
        // nanoTime may be negative: deadlines start at "now" (due at once), never at 0.
        final long nowNs = System.nanoTime();
        nextCleanupNs = nowNs;
        nextStatsNs = nowNs;
        databaseRetryAtNs = nowNs;
    }

    /** Starts the relay's thread. */
    public synchronized OutboxRelay start()
    {
        if (runner != null)
        {
            throw new IllegalStateException("relay already started");
        }
        runner = new AgentRunner(new SleepingMillisIdleStrategy(config.pollIntervalMs()),
            error -> LOG.error("outbox relay {} failed a round", name, error), null, this);
        AgentRunner.startOnThread(runner);
        LOG.info("outbox relay {} delivering to {} endpoint(s): {}", name, config.endpoints().size(), config.endpoints());
        return this;
    }

    @Override
    public String roleName()
    {
        return name;
    }

    @Override
    public int doWork()
    {
        final long nowNs = System.nanoTime();
        if (nowNs - databaseRetryAtNs < 0)
        {
            return 0;
        }
        // Housekeeping never gates delivery: each is scheduled before it runs and fails on its own, so one that fails
        // every time (a statement timeout, a partition drop blocked by a dependent view) runs at its own pace while
        // the rounds go on.
        if (nowNs - nextStatsNs >= 0)
        {
            nextStatsNs = nowNs + TimeUnit.MILLISECONDS.toNanos(config.statsIntervalMs());
            refreshBacklog();
        }
        if (nowNs - nextCleanupNs >= 0)
        {
            nextCleanupNs = nowNs + TimeUnit.MILLISECONDS.toNanos(config.cleanupIntervalMs());
            cleanup();
        }
        try
        {
            final int events = round();
            if (databaseDown)
            {
                databaseDown = false;
                LOG.info("outbox relay {}: PostgreSQL reachable again", name);
            }
            return events;
        }
        catch (final SQLException ex)
        {
            // Leased events stay leased and come back when the lease passes: nothing is lost, at worst resent.
            if (!databaseDown)
            {
                LOG.warn("outbox relay {}: PostgreSQL error, retrying every {} ms: {}", name, DATABASE_RETRY_MS, ex.toString());
                databaseDown = true;
            }
            databaseRetryAtNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DATABASE_RETRY_MS);
            return 0;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();   // closing: the leased events are delivered after the lease
            return 0;
        }
    }

    /** One claim-deliver-record round. @return events claimed. */
    int round() throws SQLException, InterruptedException
    {
        final List<OutboxEvent> events = sql.claim(config.headWindowRows(), config.batchEventsMax(), config.leaseMs());
        if (events.isEmpty())
        {
            return 0;
        }
        final List<DeliveryAttempt> attempts = deliver(events);
        final List<OutboxSql.Retry> retries = retries(attempts);
        final Set<UUID> failedIds = new HashSet<>();
        retries.forEach(r -> failedIds.add(r.event().id()));
        final List<OutboxEvent> published = new ArrayList<>(events.size());
        for (final OutboxEvent event : events)
        {
            if (!failedIds.contains(event.id()))
            {
                published.add(event);
            }
        }
        final int publishedRows = sql.record(attempts, published, retries);

        long failed = 0;
        for (final DeliveryAttempt a : attempts)
        {
            failed += a.succeeded() ? 0 : 1;
        }
        deliveriesSucceeded += attempts.size() - failed;
        deliveriesFailed += failed;
        eventsPublished += publishedRows;   // not the events another relay claimed again while this round ran
        return events.size();
    }

    /** POSTs every event to every endpoint that has not acknowledged it yet, all at once; waits for the outcomes. */
    private List<DeliveryAttempt> deliver(final List<OutboxEvent> events) throws SQLException, InterruptedException
    {
        final List<WebhookEndpoint> endpoints = config.endpoints();
        // Only a retried event can have been acknowledged by some endpoints already (a round records all or nothing).
        final Set<String> alreadyDelivered = endpoints.size() > 1 && events.stream().anyMatch(e -> e.attempt() > 1)
            ? sql.deliveredEndpoints(events) : Collections.emptySet();
        final List<CompletableFuture<DeliveryAttempt>> inFlight = new ArrayList<>(events.size() * endpoints.size());
        final List<DeliveryAttempt> unanswered = new ArrayList<>(events.size() * endpoints.size());
        for (final OutboxEvent event : events)
        {
            final String tenant = tenantNames.nameOf(event.tenantId());
            for (int i = 0; i < endpoints.size(); i++)
            {
                final String url = endpoints.get(i).displayUrl();
                if (!alreadyDelivered.contains(OutboxSql.deliveredKey(event.id(), url)))
                {
                    unanswered.add(new DeliveryAttempt(event, url, Instant.now(), 0, "no outcome within the request timeout",
                        config.requestTimeoutMs()));
                    inFlight.add(sender.send(event, tenant, endpoints.get(i), signers.get(i)));
                }
            }
        }
        return await(inFlight, unanswered);
    }

    /** @return one retry per event with a failed attempt, due after the backoff of its attempt count. */
    private List<OutboxSql.Retry> retries(final List<DeliveryAttempt> attempts)
    {
        final Set<UUID> seen = new HashSet<>();
        final List<OutboxSql.Retry> retries = new ArrayList<>();
        for (final DeliveryAttempt a : attempts)
        {
            if (!a.succeeded() && seen.add(a.event().id()))
            {
                final long delayMs = RetrySchedule.jitteredDelayMs(config.backoffBaseMs(), config.backoffCapMs(), a.event().attempt());
                retries.add(new OutboxSql.Retry(a.event(), delayMs, OutboxSql.lastError(a.endpointUrl() + ": " + a.error())));
            }
        }
        return retries;
    }

    /**
     * @param unanswered per future, the failed attempt recorded if it has no outcome in time (the sender
     *                   completes every future within the request timeout; this is the safety net).
     */
    private List<DeliveryAttempt> await(final List<CompletableFuture<DeliveryAttempt>> inFlight, final List<DeliveryAttempt> unanswered)
        throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.requestTimeoutMs() + RESPONSE_WAIT_MARGIN_MS);
        final List<DeliveryAttempt> attempts = new ArrayList<>(inFlight.size());
        for (int i = 0; i < inFlight.size(); i++)
        {
            final CompletableFuture<DeliveryAttempt> f = inFlight.get(i);
            try
            {
                attempts.add(f.get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS));
            }
            catch (final ExecutionException | TimeoutException ex)
            {
                LOG.warn("outbox relay {}: a delivery had no outcome in time ({})", name, ex.toString());
                f.cancel(true);
                attempts.add(unanswered.get(i));
            }
        }
        return attempts;
    }

    /** Refreshes the backlog gauges; a failure keeps the last values (and is logged once per streak). */
    private void refreshBacklog()
    {
        try
        {
            final double[] backlog = sql.backlog();
            backlogEvents = (long)backlog[0];
            oldestUnpublishedAgeS = backlog[1];
            if (backlogFailing)
            {
                backlogFailing = false;
                LOG.info("outbox relay {}: backlog gauges refreshed again", name);
            }
        }
        catch (final SQLException ex)
        {
            if (!backlogFailing)
            {
                backlogFailing = true;
                LOG.warn("outbox relay {}: cannot read the backlog, retrying every {} ms: {}", name, config.statsIntervalMs(), ex.toString());
            }
        }
    }

    /** Cleans up past the retention; a failure is retried at the next cleanup time (and logged once per streak). */
    private void cleanup()
    {
        final long[] deleted;
        try
        {
            deleted = cleaner.run();
        }
        catch (final SQLException ex)
        {
            if (!cleanupFailing)
            {
                cleanupFailing = true;
                LOG.warn("outbox relay {}: cleanup failed, retrying every {} ms; delivery goes on: {}", name,
                    config.cleanupIntervalMs(), ex.toString());
            }
            return;
        }
        if (cleanupFailing)
        {
            cleanupFailing = false;
            LOG.info("outbox relay {}: cleanup works again", name);
        }
        rowsCleaned += deleted[0];
        if (deleted[0] + deleted[1] + deleted[2] > 0)
        {
            LOG.info("outbox relay {}: past the retention, dropped {} outbox month(s), deleted {} published event(s) and {} delivery"
                + " log row(s)", name, deleted[2], deleted[0], deleted[1]);
        }
    }

    /**
     * Runs a cleanup now, on the caller's thread (tests, tools); the relay need not be started.
     *
     * @return {published events deleted, delivery log rows deleted, outbox months dropped}.
     */
    public long[] cleanupNow() throws SQLException
    {
        return cleaner.run();
    }

    /** @return events published by this relay. */
    public long eventsPublished()
    {
        return eventsPublished;
    }

    /** @return POSTs answered 2xx. */
    public long deliveriesSucceeded()
    {
        return deliveriesSucceeded;
    }

    /** @return POSTs that failed (non-2xx, timeout, connection error): the webhook failures counter. */
    public long deliveriesFailed()
    {
        return deliveriesFailed;
    }

    /** @return published events this relay deleted past the retention. */
    public long rowsCleaned()
    {
        return rowsCleaned;
    }

    /** @return unpublished events at the last refresh (every {@link RelayConfig#statsIntervalMs()}). */
    public long backlogEvents()
    {
        return backlogEvents;
    }

    /** @return age in seconds of the oldest unpublished event at the last refresh; 0 when none. */
    public double oldestUnpublishedAgeS()
    {
        return oldestUnpublishedAgeS;
    }

    @Override
    public void onClose()
    {
        sender.close();
    }

    /**
     * Stops the thread; a round in progress finishes (bounded by the request timeout, and a statement by
     * {@link RelayConfig#databaseTimeoutMs()}: a JDBC socket read cannot be interrupted) or is interrupted.
     */
    @Override
    public synchronized void close()
    {
        if (runner != null)
        {
            runner.close();
            runner = null;
        }
        else
        {
            sender.close();
        }
    }
}
