package dev.tally.server.metrics;

import dev.tally.gateway.api.routing.Route;
import dev.tally.pipeline.InputRing;
import dev.tally.pipeline.PipelineHealth;
import dev.tally.journal.Journal;
import dev.tally.ledger.LedgerStats;
import dev.tally.ledger.result.ResultCode;
import dev.tally.gateway.http.HttpMeters;
import dev.tally.gateway.http.HttpServer;
import dev.tally.pipeline.StageMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tally's metrics, in Prometheus text format through Micrometer ({@code GET /metrics}).
 *
 * <p>Recorded by the responder (one thread) from what the ring slot carries: request latency per route
 * and status (receive on the I/O thread to reply written), outcomes per result code, idempotent
 * replays. The journaler and the business thread report once per batch ({@link StageMeters}): append
 * and flush times, ring wait, batch size, busy time. Meters are looked up once and cached in arrays, so recording allocates nothing. State
 * gauges are read when Prometheus scrapes: the ledger's from {@link LedgerStats}, which the business thread publishes
 * at the end of each batch (never its tables), the journal's and the ring's from single {@code long}s their threads
 * write; each exact as of its last publication, never torn. Every time is
 * exported in seconds, every count that only grows as a counter ({@code _total}), every meter with a description
 * (its HELP text); the JVM's and the process's meters follow Tally's in the scrape ({@link ProcessMetrics}).
 */
public final class TallyMetrics implements StageMeters, HttpMeters
{
    private static final int STATUS_MAX = 600;
    /**
     * Memory one stored idempotency key costs: a 96-byte ring entry and 16 bytes of index, as
     * {@code IdempotencyTable}'s Javadoc counts them. The table is allocated at its capacity at start.
     */
    static final long IDEMPOTENCY_KEY_BYTES = 112;
    private static final double NS_PER_SECOND = 1e9;
    private static final String READ_PAUSES_HELP = "Times a connection stopped reading: at the pipelining depth (requests not yet " +
        "answered; it reads again as replies leave), or with its unread replies past the write buffer's high water mark";
    private static final String READS_REFUSED_HELP = "Reads of the read model answered 503 with Retry-After: its writer had not " +
        "reached what the ledger had applied when the read arrived within 2 s, or was failing or over its lag bound (writer_behind); " +
        "too many reads queued or waiting already (busy)";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    /** The JVM's and the process's meters, shared by every server of the process. */
    private final PrometheusMeterRegistry process = ProcessMetrics.registry();
    private final Timer[][] requestTimers = new Timer[Route.values().length][];
    private final Counter[] outcomes = new Counter[ResultCode.values().length];
    private final Counter replays;
    private final Counter transfersOk;
    private final Counter ringFull;
    private final Counter writerBehind;
    private final Timer journalAppend;
    private final Timer journalFlush;
    private final Timer ringWait;
    private final DistributionSummary journalBatchCommands;
    /** Nanoseconds the business thread spent on batches; written by it alone, read by scrapes. */
    private final AtomicLong businessBusyNs = new AtomicLong();

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
        ringFull = Counter.builder("tally.ring.rejections")
            .description("Requests refused with 503 because the input ring was full (the I/O thread never waits to publish)")
            .register(registry);
        writerBehind = Counter.builder("tally.pg.writer.refusals")
            .description("Writes refused with 503 because the PostgreSQL writer was behind its lag bound (nothing applied)")
            .register(registry);
        journalAppend = pipelineTimer("tally.journal.append", "Appending one pipeline batch of commands to the journal");
        journalFlush = pipelineTimer("tally.journal.flush", "The journal flush ending a batch: an fsync in sync mode (group commit)");
        ringWait = pipelineTimer("tally.ring.wait", "Oldest request of a batch: receipt on an I/O thread to the journaler taking it");
        journalBatchCommands = DistributionSummary.builder("tally.journal.batch.commands")
            .description("Commands per journal batch: how many replies one flush serves").register(registry);
        FunctionCounter.builder("tally.business.busy", businessBusyNs, busyNs -> busyNs.get() / NS_PER_SECOND)
            .baseUnit("seconds")
            .description("Time the business thread spent on batches; its rate is the thread's busy ratio")
            .register(registry);
    }

    private Timer pipelineTimer(final String name, final String description)
    {
        return Timer.builder(name).description(description)
            .publishPercentiles(0.5, 0.99, 0.999)
            .distributionStatisticExpiry(Duration.ofMinutes(1))
            .register(registry);
    }

    /** Gauges on the live pipeline state; call once when the server is wired. */
    public void bind(final LedgerStats ledger, final Journal journal, final InputRing ring, final PipelineHealth health)
    {
        Gauge.builder("tally.journal.index", journal, Journal::lastIndex).description("Last journaled index").register(registry);
        Gauge.builder("tally.journal.stable.index", journal, Journal::stableIndex).description("Last journal index on stable storage")
            .register(registry);
        FunctionCounter.builder("tally.journal.tail.cut.records", journal, j -> j.recovery().droppedRecordCount())
            .description("Records the start-up cut from the journal's torn tail (logged at WARN, shown in /health)").register(registry);
        FunctionCounter.builder("tally.journal.tail.cut", journal, j -> j.recovery().droppedBytes()).baseUnit("bytes")
            .description("Bytes the start-up cut from the journal's torn tail").register(registry);
        Gauge.builder("tally.ledger.applied.index", ledger, LedgerStats::lastJournalIndex).description("Last applied journal index")
            .register(registry);
        FunctionCounter.builder("tally.ledger.hot.account.moves", ledger, LedgerStats::hotAccountMoves)
            .description("Money movements touching an account with more than one sub-balance (divide by tally.ledger.outcomes for the rate)")
            .register(registry);
        Gauge.builder("tally.idempotency.keys.live", ledger, LedgerStats::idempotencyKeyCount).description("Keys inside retention")
            .register(registry);
        Gauge.builder("tally.idempotency.keys.capacity", ledger, l -> l.config().idempotencyKeysMax())
            .description("Keys the idempotency table holds at most (--keys-max)").register(registry);
        Gauge.builder("tally.holds.live", ledger, LedgerStats::holdCount).description("Active and unknown holds").register(registry);
        Gauge.builder("tally.holds.unknown", ledger, LedgerStats::unknownHoldCount).description("Holds whose outcome is unknown")
            .register(registry);
        Gauge.builder("tally.holds.active", ledger, LedgerStats::activeHoldCount).description("Active holds").register(registry);
        Gauge.builder("tally.holds.unknown.oldest.age", ledger, l -> l.oldestUnknownHoldAgeNs() / NS_PER_SECOND).baseUnit("seconds")
            .description("Journaled time since the oldest hold of unknown outcome was placed; 0 when none").register(registry);
        Gauge.builder("tally.idempotency.keys.memory", ledger, l -> (double)l.idempotencyKeyCount() * IDEMPOTENCY_KEY_BYTES)
            .baseUnit("bytes").tag("kind", "used").description("Memory of the stored idempotency keys").register(registry);
        Gauge.builder("tally.idempotency.keys.memory", ledger, l -> (double)l.config().idempotencyKeysMax() * IDEMPOTENCY_KEY_BYTES)
            .baseUnit("bytes").tag("kind", "allocated").description("Memory of the idempotency key table, allocated at start")
            .register(registry);
        Gauge.builder("tally.accounts", ledger, LedgerStats::accountCount).description("Accounts in the ledger, every tenant's")
            .register(registry);
        Gauge.builder("tally.ledger.references.live", ledger, LedgerStats::referenceCount)
            .description("Transfer references in memory").register(registry);
        Gauge.builder("tally.ledger.transfers.live", ledger, LedgerStats::transferCount)
            .description("Transfers in memory for reversal").register(registry);
        Gauge.builder("tally.ledger.transfers.capacity", ledger, l -> l.config().transfersMax())
            .description("Transfers (and references) memory holds at most (--transfers-max)").register(registry);
        Gauge.builder("tally.ledger.cold.transfers", ledger, LedgerStats::coldTransferCount)
            .description("Transfers reversals keep in memory until the cold index holds their new state").register(registry);
        FunctionCounter.builder("tally.ledger.evicted", ledger, LedgerStats::keysEvicted).tag("table", "keys")
            .description("Items memory let go for room once the cold index held them").register(registry);
        FunctionCounter.builder("tally.ledger.evicted", ledger, LedgerStats::referencesEvicted).tag("table", "references")
            .description("Items memory let go for room once the cold index held them").register(registry);
        FunctionCounter.builder("tally.ledger.evicted", ledger, LedgerStats::transfersEvicted).tag("table", "transfers")
            .description("Items memory let go for room once the cold index held them").register(registry);
        Gauge.builder("tally.ring.occupancy", ring, InputRing::occupancy)
            .description("Slots in use in the input ring").register(registry);
        Gauge.builder("tally.ready", health, h -> h.isReady() ? 1 : 0)
            .description("1 while the pipeline takes writes (replayed, not halted), else 0").register(registry);
    }

    /** Meters on the HTTP front door; call once when the port is open. */
    public void bindHttp(final HttpServer http)
    {
        Gauge.builder("tally.http.connections.open", http, HttpServer::openConnections).description("Open connections")
            .register(registry);
        FunctionCounter.builder("tally.http.connections.refused", http, HttpServer::refusedConnections)
            .description("Connections closed at accept because --connections-max were open").register(registry);
        FunctionCounter.builder("tally.http.read.timeouts", http, HttpServer::readTimeouts)
            .description("Connections cut off with 408 for not sending a request whole within --read-timeout-ms").register(registry);
        FunctionCounter.builder("tally.http.read.pauses", http, HttpServer::pipelineDepthPauses).tag("reason", "pipeline_depth")
            .description(READ_PAUSES_HELP).register(registry);
        FunctionCounter.builder("tally.http.read.pauses", http, HttpServer::repliesBackedUpPauses).tag("reason", "replies_backed_up")
            .description(READ_PAUSES_HELP).register(registry);
        FunctionCounter.builder("tally.http.pipeline.overflows", http, HttpServer::pipelineOverflows)
            .description("Connections that pipelined more requests past the depth than the server holds for them: those past " +
                "the limit were dropped unapplied and the connection closed after the replies before them").register(registry);
    }

    /**
     * Snapshot meters; call once when the server takes snapshots. Each reads a field the writing thread
     * publishes after a file is complete, so a scrape never sees a snapshot that is not on disk yet.
     */
    public void bindSnapshotter(final dev.tally.snapshotter.Snapshotter snapshotter)
    {
        Gauge.builder("tally.snapshot.last.index", snapshotter, s -> s.writtenIndex())
            .description("Journal index of the newest snapshot written, or loaded at start (0: none)").register(registry);
        FunctionCounter.builder("tally.snapshots.written", snapshotter, s -> s.writtenCount())
            .description("Snapshots written since start (the one at a graceful stop included)").register(registry);
        FunctionCounter.builder("tally.snapshots.skipped", snapshotter, s -> s.skippedCount())
            .description("SNAPSHOT commands let through without a copy because the previous snapshot was still being written")
            .register(registry);
        FunctionCounter.builder("tally.snapshots.failed", snapshotter, s -> s.failedCount())
            .description("Snapshot writes that failed (serving goes on; the next attempt waits 10 s)").register(registry);
        Gauge.builder("tally.snapshot.last.copy.duration", snapshotter, s -> s.lastCopyNs() / NS_PER_SECOND).baseUnit("seconds")
            .description("The last snapshot's copy of the ledger on the business thread: the pause it cost the pipeline")
            .register(registry);
        Gauge.builder("tally.snapshot.last.write.duration", snapshotter, s -> s.lastWriteNs() / NS_PER_SECOND).baseUnit("seconds")
            .description("The last snapshot's hash, encode, write and fsync on the snapshotter thread").register(registry);
        Gauge.builder("tally.snapshot.last.size", snapshotter, s -> s.lastSizeBytes()).baseUnit("bytes")
            .description("Size of the last snapshot file written (0: none since start)").register(registry);
    }

    /** Meters on the PostgreSQL writer; call once when the server runs with a read model. */
    public void bindWriter(final dev.tally.persistence.writer.LedgerWriter writer)
    {
        Gauge.builder("tally.pg.writer.watermark", writer, w -> w.watermark()).description("Last journal index in PostgreSQL")
            .register(registry);
        Gauge.builder("tally.pg.writer.lag.commands", writer, w -> w.lagCommands()).description("Commands not yet in PostgreSQL")
            .register(registry);
        Gauge.builder("tally.pg.writer.lag.seconds", writer, w -> w.lagNs() / NS_PER_SECOND).description("Journaled time not yet in PostgreSQL")
            .register(registry);
        FunctionCounter.builder("tally.pg.writer.rows", writer, w -> w.rowsWritten()).description("Rows inserted or updated in PostgreSQL, all tables")
            .register(registry);
        FunctionCounter.builder("tally.pg.writer.batch.retries", writer, w -> w.batchRetries())
            .description("Writer batches PostgreSQL refused for a transient reason, each retried").register(registry);
    }

    /** The reads the PostgreSQL read model answers; call once when the server runs with a read model. */
    public void bindReadModelQueries(final dev.tally.gateway.http.ReadModelQueries queries)
    {
        FunctionCounter.builder("tally.pg.reads.refused", queries, q -> q.refusedWriterBehind()).tag("reason", "writer_behind")
            .description(READS_REFUSED_HELP).register(registry);
        FunctionCounter.builder("tally.pg.reads.refused", queries, q -> q.refusedBusy()).tag("reason", "busy")
            .description(READS_REFUSED_HELP).register(registry);
    }

    /** The cold index: its writer, the business thread's recorder, and the journal stage's lookups and refusals. */
    public void bindColdIndex(
        final dev.tally.coldindex.ColdIndexWriter writer, final dev.tally.coldindex.ColdRecorder recorder,
        final dev.tally.pipeline.ColdCheck check)
    {
        Gauge.builder("tally.cold.watermark", writer, w -> w.watermark()).description("Last journal index whose items are all in the cold index")
            .register(registry);
        Gauge.builder("tally.cold.lag.commands", writer, w -> w.lagCommands()).description("Commands applied whose items are not yet in the cold index")
            .register(registry);
        Gauge.builder("tally.cold.lag.max.commands", check, c -> c.lagMax())
            .description("The lag at which requests are refused (503 cold-index-unavailable)").register(registry);
        Gauge.builder("tally.cold.degraded", writer, w -> w.degraded() ? 1 : 0)
            .description("1 while cold index commits fail or its recorder stopped: its watermark does not move").register(registry);
        FunctionCounter.builder("tally.cold.items.filed", writer, w -> w.itemsFiled())
            .description("Keys, references and transfers committed to the cold index").register(registry);
        FunctionCounter.builder("tally.cold.commits", writer, w -> w.commits()).description("Cold index commits (each a synced write-ahead log)")
            .register(registry);
        FunctionCounter.builder("tally.cold.commit.seconds", writer, w -> w.commitNanos() / NS_PER_SECOND)
            .description("Time spent committing to the cold index, summed").register(registry);
        FunctionCounter.builder("tally.cold.commit.failures", writer, w -> w.commitFailures())
            .description("Cold index commits RocksDB refused (each retried)").register(registry);
        FunctionCounter.builder("tally.cold.ring.full.waits", recorder, r -> r.ringFullWaits())
            .description("Times the business thread waited for room in the cold index ring").register(registry);
        FunctionCounter.builder("tally.cold.units.dropped", recorder, r -> r.unitsDropped())
            .description("Units not offered to the cold index after its recorder stopped (filed from the journal at the next start)")
            .register(registry);
        FunctionCounter.builder("tally.cold.lookups", check, c -> c.lookups())
            .description("Commands the journal stage looked up in the cold index").register(registry);
        FunctionCounter.builder("tally.cold.lookup.seconds", check, c -> c.lookupNanos() / NS_PER_SECOND)
            .description("Time the journal stage spent on cold index lookups, summed").register(registry);
        FunctionCounter.builder("tally.cold.lookup.failures", check, c -> c.lookupFailures())
            .description("Cold index lookups that failed").register(registry);
        FunctionCounter.builder("tally.cold.refused", check, c -> c.refusedBehind()).tag("reason", "behind")
            .description("Commands refused with 503 cold-index-unavailable").register(registry);
        FunctionCounter.builder("tally.cold.refused", check, c -> c.refusedUnavailable()).tag("reason", "unavailable")
            .description("Commands refused with 503 cold-index-unavailable").register(registry);
    }

    /** The embedded PostgreSQL's supervision; call once when the server runs one. */
    public void bindEmbeddedDatabase(final dev.tally.persistence.db.EmbeddedDatabaseSupervisor supervisor)
    {
        Gauge.builder("tally.pg.embedded.up", supervisor, s -> s.isUp() ? 1 : 0)
            .description("1 while the embedded PostgreSQL runs, 0 while it is down and being restarted").register(registry);
        FunctionCounter.builder("tally.pg.embedded.deaths", supervisor, s -> s.deaths())
            .description("Deaths of the embedded PostgreSQL's postmaster seen since start").register(registry);
        FunctionCounter.builder("tally.pg.embedded.restarts", supervisor, s -> s.restarts())
            .description("Restarts that brought the embedded PostgreSQL back").register(registry);
        FunctionCounter.builder("tally.pg.embedded.restart.failures", supervisor, s -> s.restartFailures())
            .description("Restart attempts of the embedded PostgreSQL that failed (retried with backoff)").register(registry);
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
    @Override
    public void recordReply(final int route, final int status, final long receivedNs)   // responder and read-pool threads:
                                                                                        // a racing lazy registration gets the same meter
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
    @Override
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

    /** Counts a request refused because the input ring was full. Any I/O thread. */
    @Override
    public void recordRingFull()
    {
        ringFull.increment();
    }

    /** Counts a write refused because the PostgreSQL writer was behind its lag bound. Any I/O thread. */
    @Override
    public void recordWriterBehind()
    {
        writerBehind.increment();
    }

    @Override
    public void journalBatch(final int commands, final long appendNs, final long flushNs, final long ringWaitNs)
    {
        journalAppend.record(appendNs, TimeUnit.NANOSECONDS);
        journalFlush.record(flushNs, TimeUnit.NANOSECONDS);
        journalBatchCommands.record(commands);
        if (ringWaitNs >= 0)
        {
            ringWait.record(ringWaitNs, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void businessBatch(final long busyNs)
    {
        // one writer: a plain read-add-write published with release semantics is enough, no CAS
        businessBusyNs.lazySet(businessBusyNs.get() + busyNs);
    }

    /** @return the Prometheus text exposition of every meter, this server's and then the process's ({@link ProcessMetrics}). */
    @Override
    public String scrape()
    {
        return registry.scrape() + process.scrape();
    }
}
