package dev.tally.gateway.metrics;

import com.lmax.disruptor.RingBuffer;
import dev.tally.gateway.api.Route;
import dev.tally.gateway.pipeline.LedgerEvent;
import dev.tally.gateway.pipeline.PipelineHealth;
import dev.tally.journal.Journal;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.result.ResultCode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Tally's metrics, in Prometheus text format through Micrometer ({@code GET /metrics}).
 *
 * <p>Recorded by the responder (one thread) from what the ring slot carries: request latency per route
 * and status (receive on the I/O thread to reply written), outcomes per result code, idempotent
 * replays. Meters are looked up once and cached in arrays, so recording allocates nothing. State
 * gauges (journal index, live keys, holds, ring occupancy) are read when Prometheus scrapes: plain
 * reads of single {@code long}s the business thread writes, racy by a command or two, never torn.
 */
public final class TallyMetrics
{
    private static final int STATUS_MAX = 600;

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Timer[][] requestTimers = new Timer[Route.values().length][];
    private final Counter[] outcomes = new Counter[ResultCode.values().length];
    private final Counter replays;
    private final Counter transfersOk;

    public TallyMetrics()
    {
        for (final ResultCode code : ResultCode.values())
        {
            outcomes[code.ordinal()] = Counter.builder("tally.ledger.outcomes")
                .description("Ledger outcomes by result code (business rejections included)")
                .tag("code", code.name().toLowerCase(java.util.Locale.ROOT))
                .register(registry);
        }
        replays = Counter.builder("tally.idempotent.replays").description("Replies served from a stored result").register(registry);
        transfersOk = Counter.builder("tally.transfers.applied").description("Transfers applied (not replays)").register(registry);
    }

    /** Gauges on the live pipeline state; call once when the server is wired. */
    public void bind(final Ledger ledger, final Journal journal, final RingBuffer<LedgerEvent> ring, final PipelineHealth health)
    {
        Gauge.builder("tally.journal.index", journal, Journal::lastIndex).description("Last journaled index").register(registry);
        Gauge.builder("tally.ledger.applied.index", ledger, Ledger::lastJournalIndex).description("Last applied journal index").register(registry);
        Gauge.builder("tally.idempotency.keys.live", ledger, l -> l.idempotencyKeys().size()).description("Keys inside retention").register(registry);
        Gauge.builder("tally.idempotency.keys.capacity", ledger, l -> l.idempotencyKeys().capacity()).register(registry);
        Gauge.builder("tally.holds.live", ledger, l -> l.holds().size()).description("Active and unknown holds").register(registry);
        Gauge.builder("tally.holds.unknown", ledger, l -> l.holds().unknownCount()).description("Holds whose outcome is unknown").register(registry);
        Gauge.builder("tally.accounts", ledger, l -> l.accounts().count()).register(registry);
        Gauge.builder("tally.ring.occupancy", ring, r -> r.getBufferSize() - r.remainingCapacity())
            .description("Slots in use in the input ring").register(registry);
        Gauge.builder("tally.ready", health, h -> h.isReady() ? 1 : 0).register(registry);
    }

    /** Gauges on the PostgreSQL writer; call once when the server runs with a read model. */
    public void bindWriter(final dev.tally.persistence.writer.LedgerWriter writer)
    {
        Gauge.builder("tally.pg.writer.watermark", writer, w -> w.watermark()).description("Last journal index in PostgreSQL")
            .register(registry);
        Gauge.builder("tally.pg.writer.lag.commands", writer, w -> w.lagCommands()).description("Commands not yet in PostgreSQL")
            .register(registry);
        Gauge.builder("tally.pg.writer.lag.seconds", writer, w -> w.lagNs() / 1e9).description("Journaled time not yet in PostgreSQL")
            .register(registry);
        Gauge.builder("tally.pg.writer.rows", writer, w -> w.rowsWritten()).description("Rows written").register(registry);
        Gauge.builder("tally.pg.writer.batch.retries", writer, w -> w.batchRetries()).description("Batches retried").register(registry);
    }

    /** Gauges and counters of the outbox relay; call once when the server delivers webhooks. */
    public void bindRelay(final dev.tally.persistence.outbox.OutboxRelay relay)
    {
        Gauge.builder("tally.outbox.backlog.events", relay, r -> r.backlogEvents()).description("Unpublished outbox events")
            .register(registry);
        Gauge.builder("tally.outbox.oldest.unpublished.age.seconds", relay, r -> r.oldestUnpublishedAgeS())
            .description("Age of the oldest unpublished outbox event").register(registry);
        FunctionCounter.builder("tally.webhook.failures", relay, r -> r.deliveriesFailed())
            .description("Webhook attempts that failed (non-2xx, timeout, connection error)").register(registry);
        FunctionCounter.builder("tally.webhook.deliveries", relay, r -> r.deliveriesSucceeded())
            .description("Webhook attempts acknowledged with 2xx").register(registry);
        FunctionCounter.builder("tally.outbox.published", relay, r -> r.eventsPublished()).description("Outbox events published")
            .register(registry);
    }

    /**
     * Records one reply. Responder thread only.
     *
     * @param route      the route index ({@link Route#ordinal()}), or -1 when unknown.
     * @param status     the HTTP status written.
     * @param receivedNs {@link System#nanoTime()} when the I/O thread received the request, or 0.
     */
    public void recordReply(final int route, final int status, final long receivedNs)
    {
        if (route < 0 || status < 100 || status >= STATUS_MAX || receivedNs == 0)
        {
            return;
        }
        Timer[] byStatus = requestTimers[route];
        if (byStatus == null)
        {
            byStatus = new Timer[STATUS_MAX];
            requestTimers[route] = byStatus;
        }
        Timer timer = byStatus[status];
        if (timer == null)
        {
            timer = Timer.builder("tally.http.requests")
                .description("HTTP requests from receipt to reply written, by route and status")
                .tag("route", Route.values()[route].template())
                .tag("method", Route.values()[route].method())
                .tag("status", Integer.toString(status))
                .publishPercentiles(0.5, 0.95, 0.99)
                .distributionStatisticExpiry(Duration.ofMinutes(1))
                .register(registry);
            byStatus[status] = timer;
        }
        timer.record(System.nanoTime() - receivedNs, TimeUnit.NANOSECONDS);
    }

    /** Records one ledger outcome. Responder thread only. */
    public void recordOutcome(final ResultCode code, final boolean replayed, final boolean transfer)
    {
        outcomes[code.ordinal()].increment();
        if (replayed)
        {
            replays.increment();
        }
        else if (transfer && code == ResultCode.OK)
        {
            transfersOk.increment();
        }
    }

    /** @return the Prometheus text exposition of every meter. */
    public String scrape()
    {
        return registry.scrape();
    }
}
