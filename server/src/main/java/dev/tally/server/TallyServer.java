package dev.tally.server;

import dev.tally.gateway.http.ApiHandler;
import dev.tally.gateway.http.HttpServer;
import dev.tally.gateway.http.RateLimiter;
import dev.tally.gateway.http.ReadModelQueries;
import dev.tally.gateway.http.HttpResponder;
import dev.tally.server.metrics.TallyMetrics;
import dev.tally.pipeline.UnitListener;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.pipeline.PipelineHealth;
import dev.tally.pipeline.SnapshotCommandPublisher;
import dev.tally.journal.EndWitness;
import dev.tally.journal.Journal;
import dev.tally.journal.JournalConfig;
import dev.tally.journal.ReplayResult;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.persistence.db.DataFolderInUseException;
import dev.tally.persistence.db.DataFolderLock;
import dev.tally.persistence.outbox.OutboxRelay;
import dev.tally.snapshotter.LedgerRecovery;
import dev.tally.snapshotter.LedgerRulesFile;
import dev.tally.snapshotter.RecoveredLedger;
import dev.tally.snapshotter.RecoveryWitnesses;
import dev.tally.snapshotter.ReplayProgress;
import dev.tally.snapshotter.SnapshotConfig;
import dev.tally.snapshotter.SnapshotDirectory;
import dev.tally.snapshotter.Snapshotter;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Tally server, wired in one place, in the order things must happen:
 *
 * <ol>
 *   <li>lock the data folder (one process per folder: {@link DataFolderLock});</li>
 *   <li>gather the witnesses of how far the journal got: PostgreSQL's watermark (starting the read model's database)
 *   and the newest snapshot file;</li>
 *   <li>open the journal (cutting a torn tail, never below a witness), then start the PostgreSQL writer on it;</li>
 *   <li>build the ledger: the newest valid snapshot, then the journal after it, which must reach the journal's end and
 *   every witness;</li>
 *   <li>start the pipeline (journaler → business thread → responder), the snapshotter, and the outbox relay
 *   if webhooks are configured;</li>
 *   <li>mark ready, then open the HTTP port.</li>
 * </ol>
 * Closing runs the steps backwards: stop reading requests, drain the ring (every published request is
 * answered), close the connections, finish a snapshot in hand, stop the relay, let the PostgreSQL writer
 * catch up, close the journal, release the data folder.
 */
public final class TallyServer implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(TallyServer.class);
    /** How often a long start-up replay says how far it got. */
    private static final long REPLAY_PROGRESS_INTERVAL_NS = 5_000_000_000L;

    /** Held from before the journal opens until the very end of {@link #close()}. */
    private final DataFolderLock dataFolderLock;
    private final Journal journal;
    private final Ledger ledger;
    private final PipelineHealth health = new PipelineHealth();
    private final TallyMetrics metrics = new TallyMetrics();
    private final LedgerPipeline pipeline;
    private final HttpServer http;
    private final ReplayResult replay;
    private final ReadModel readModel;
    private final ReadModelQueries queries;
    private final OutboxRelay relay;
    private final Snapshotter snapshotter;
    /** Where memory's keys, references and transfers go once the ledger lets them go. */
    private final ColdIndexService cold;

    /** A server with the default snapshot schedule (see {@link SnapshotConfig#defaults()}). */
    public TallyServer(final ServerConfig config) throws Exception
    {
        this(config, SnapshotConfig.defaults());
    }

    /**
     * @throws DataFolderInUseException when another process (or another server in this one) uses the data folder.
     */
    public TallyServer(final ServerConfig config, final SnapshotConfig snapshots) throws Exception
    {
        // 1. The data folder's lock: a second process appending to the same journal would corrupt it, and would stop
        //    this one's PostgreSQL as an orphan.
        HttpServer.requirePortFree(config.host(), config.port());   // before anything slow: PostgreSQL, the replay
        Files.createDirectories(config.dataDir());
        dataFolderLock = DataFolderLock.acquire(config.dataDir(), "tally serve");
        final StartupUndo undo = new StartupUndo();
        undo.onFailure("release the data folder", dataFolderLock);
        try
        {
            final LedgerConfig recordedRules = LedgerRulesFile.read(config.dataDir());
            LedgerRulesFile.requireSame(config.dataDir(), recordedRules, config.ledger());   // an in-process start has no LedgerOptions

            // 2. The witnesses of how far the journal got, kept outside it: PostgreSQL's watermark (the read model's
            //    database starts first, for that) and the newest snapshot file. A journal that ends below either lost
            //    records it held on stable storage: damage, not a torn write, and no start (docs/JOURNAL.md).
            readModel = config.persistence() ? ReadModel.open(config, dataFolderLock) : null;
            if (readModel != null)
            {
                undo.onFailure("stop the PostgreSQL read model", readModel);
            }
            final SnapshotDirectory snapshotDir = snapshots.enabled() ?
                SnapshotDirectory.open(SnapshotDirectory.inDataDir(config.dataDir()), snapshots.retainCount()) : null;
            cold = ColdIndexService.open(config);
            undo.onFailure("close the cold index", cold);
            final EndWitness witness = RecoveryWitnesses.newestSnapshot(snapshotDir != null ? snapshotDir :
                SnapshotDirectory.forReading(SnapshotDirectory.inDataDir(config.dataDir())))
                .higher(readModel == null ? EndWitness.NONE : readModel.watermarkWitness())
                .higher(cold.watermarkWitness());

            // 3. The journal, the source of truth: its torn tail cut (never below a witness), then the writer on it, so
            //    that the replay below can feed it the effects of every command past its watermark.
            journal = Journal.open(config.journal().applyTo(JournalConfig.of(config.journalDir(), config.durability())), witness);
            undo.onFailure("close the journal", journal);
            LedgerRulesFile.requireCurrentGeneration(config.dataDir(), journal.lastIndex());
            JournalCuts.report(journal.recovery(), config.journalDir(), health);
            if (readModel != null)
            {
                readModel.startWriter(journal);
            }
            cold.startWriter(journal::stableIndex);
            final UnitListener readModelListener = readModel == null ? UnitListener.NONE : readModel::onCommand;
            final UnitListener coldListener = cold.unitListener();
            final UnitListener replayListener = (replayed, lastCommand) ->
            {
                readModelListener.onUnit(replayed, lastCommand);
                coldListener.onUnit(replayed, lastCommand);
            };

            // 4. The ledger: the newest valid snapshot, then the journal after it. No snapshot newer than the cold
            //    index's watermark, nor (with a read model) than PostgreSQL's: the commands in between must be replayed
            //    for them to receive what those commands filed.
            final long journalEnd = journal.lastIndex();
            final LongSupplier restartIndexMax = () -> Math.min(cold.watermark(),
                readModel == null ? Long.MAX_VALUE : readModel.writer().watermark());
            final RecoveredLedger recovered = LedgerRecovery.recover(snapshotDir, journal::replay, config.ledger(),
                restartIndexMax.getAsLong(), witness, LedgerRecovery.OnBrokenJournal.REFUSE,
                ReplayProgress.every(REPLAY_PROGRESS_INTERVAL_NS, (index, commands, elapsedNs) -> LOG.info(
                    "replaying the journal: at index {} of {}, {} commands in {} s", index, journalEnd, commands,
                    elapsedNs / 1_000_000_000L), replayListener::onUnit));
            JournalCuts.requireReplayReachedTheEnd(recovered.replay(), journal);
            ledger = recovered.ledger();
            replay = recovered.replay();
            LOG.info("started from {}, loaded in {} ms; replayed {} commands up to journal index {} in {} ms ({}), state hash {}",
                recovered.snapshotPath() == null ? "the journal's start" : "snapshot " + recovered.snapshotPath(), recovered.loadMs(),
                replay.deliveredCount(), ledger.lastJournalIndex(), recovered.replayMs(), replay.status(), dev.tally.ledger.StateDigest.hex(ledger.stateHash()));
            snapshotter = snapshotDir == null ? null : new Snapshotter(snapshotDir, recovered.snapshotIndex(), snapshots);
            if (snapshotDir != null)
            {
                // retention keeps a snapshot the next start may load, however far the writers fall behind
                snapshotDir.keepOneUpTo(restartIndexMax);
            }
            if (snapshotter != null)
            {
                snapshotter.writeOnlyOnceStable(journal::stableIndex);
                snapshotter.prepare(ledger);   // its schedule and image, here rather than on the business thread
            }
            final List<UnitListener> fanOut = new ArrayList<>(List.of(readModelListener, coldListener));
            if (snapshotter != null)
            {
                fanOut.add(snapshotter::onCommand);
            }

            // 5. The pipeline: journaler -> business thread -> responder.
            queries = readModel == null ? null : new ReadModelQueries(readModel);
            if (queries != null)
            {
                undo.onFailure("close the read-model queries", queries);
            }
            if (recordedRules == null || LedgerRulesFile.version(config.dataDir()) < LedgerRulesFile.RULES_VERSION)
            {
                recordRules(config, undo);   // a new folder, or an older generation's with nothing journaled
            }
            pipeline = new LedgerPipeline(ledger, journal, ring -> new HttpResponder(ring, metrics, queries, cold.responderReads()), fanOut, config.pipeline(),
                health, metrics, cold.check());
            undo.onFailure("stop the pipeline", pipeline);   // empty ring: nothing to drain, its threads stop
            if (snapshotter != null)
            {
                snapshotter.start(new SnapshotCommandPublisher(pipeline.ring(), health));
                undo.onFailure("stop the snapshotter", snapshotter);   // before the pipeline: it publishes into the ring
                metrics.bindSnapshotter(snapshotter);
            }
            metrics.bind(ledger.stats(), journal, pipeline.ring(), health);
            metrics.bindColdIndex(cold.writer(), cold.recorder(), cold.check());
            if (readModel != null)
            {
                metrics.bindWriter(readModel.writer());
                metrics.bindReadModelQueries(queries);
                if (readModel.supervisor() != null)
                {
                    metrics.bindEmbeddedDatabase(readModel.supervisor());
                }
            }
            // 5b. The outbox relay, on its own thread with the read model's pool: it only reads what the writer
            //     committed, so it may start any time after the read model; nothing waits for it.
            relay = readModel == null || config.webhooks() == null ? null
                : new OutboxRelay(readModel.database().dataSource(), config.webhooks(), config.apiKeys()::tenantName).start();
            if (relay != null)
            {
                undo.onFailure("stop the outbox relay", relay);
                metrics.bindRelay(relay);
            }

            // 6. Ready, then open the door.
            health.markReplayed();
            final RateLimiter rateLimiter = RateLimiter.of(config.http());
            final SnapshotterRequests snapshotRequests = snapshotter == null ? null : new SnapshotterRequests(snapshotter);
            http = new HttpServer(config.host(), config.port(), config.ioThreads(), config.transport(), config.http(), config.tls(),
                () -> new ApiHandler(config.apiKeys(), pipeline.ring(), health, metrics, readModel, queries, rateLimiter, snapshotRequests));
            metrics.bindHttp(http);
        }
        catch (final Exception | Error ex)
        {
            undo.undoAll(ex);
            throw ex;
        }
        LOG.info("tally serving {} on {}:{} (durability {}, data {}, transport {}, collector {})", config.tls() == null ? "http" : "https",
            config.host(), http.port(), config.durability(), config.dataDir().toAbsolutePath(), http.transport().cliName(),
            GarbageCollector.names());
        if (GarbageCollector.isG1())
        {
            LOG.info("G1 costs about a quarter more CPU per request than -XX:+UseParallelGC on 2 cores (docs/CONFIG.md, JVM)");
        }
    }

    /**
     * Records the rules of this start for a folder that has none, once the ledger is built (a start that cannot even
     * allocate its tables records nothing) and before the pipeline journals its first command: from then on every
     * replay decides under them. A start that fails before journaling anything forgets them again, so the next start
     * may ask for others.
     */
    private void recordRules(final ServerConfig config, final StartupUndo undo)
    {
        final long journaledBefore = journal.lastIndex();   // 0: requireCurrentGeneration refused any other
        LedgerRulesFile.write(config.dataDir(), config.ledger());
        undo.onFailure("forget the ledger rules recorded by this start", () ->
        {
            if (journal.lastIndex() == journaledBefore)
            {
                LedgerRulesFile.forget(config.dataDir());
            }
        });
    }

    /** @return the HTTP port bound. */
    public int port()
    {
        return http.port();
    }

    /** @return the transport the HTTP port is served on: NIO or io_uring, never AUTO. */
    public dev.tally.gateway.http.NettyTransport transport()
    {
        return http.transport();
    }

    /** @return what the start-up replay found. */
    public ReplayResult replayResult()
    {
        return replay;
    }

    /** @return the PostgreSQL read model, or null when the server runs without one. */
    public ReadModel readModel()
    {
        return readModel;
    }

    /** @return the ledger (tests and tools; owned by the business thread while serving). */
    public Ledger ledger()
    {
        return ledger;
    }

    public PipelineHealth health()
    {
        return health;
    }

    /** @return the snapshotter (ask it for a snapshot with {@code requestNow()}), or null when snapshots are off. */
    public Snapshotter snapshotter()
    {
        return snapshotter;
    }

    /**
     * Stops gracefully: no new request is read, every request already in the ring is journaled, applied and
     * answered, the replies are flushed, then the PostgreSQL writer catches up (bounded), the database and
     * the journal close.
     */
    @Override
    public void close()
    {
        final long startNs = System.nanoTime();
        http.stopAccepting();
        if (snapshotter != null)
        {
            // First: no SNAPSHOT command may be published once the drain below has begun, or the business
            // thread could still be copying into the image when this thread takes the last snapshot.
            snapshotter.close();
        }
        pipeline.close();
        if (queries != null)
        {
            // Before the connections close: a reply a PostgreSQL read holds back holds every later reply of its
            // connection behind it (HttpReplies.hold), and those must leave before the close does.
            queries.close();
        }
        http.close();
        if (relay != null)
        {
            relay.close();   // before the pool closes; events it had claimed are delivered after their lease
        }
        try
        {
            journal.forceForStop();   // under async, what the last timed force left: the writers take only what is stable
        }
        catch (final RuntimeException ex)
        {
            LOG.error("journal force at stop failed: the cold index and PostgreSQL get only what was forced before", ex);
        }
        final long filedUpTo = Math.min(ledger.lastJournalIndex(), journal.stableIndex());
        cold.close(filedUpTo);
        if (readModel != null)
        {
            readModel.close(filedUpTo);
        }
        boolean journalClosed = false;
        try
        {
            journal.close();
            journalClosed = true;
        }
        catch (final RuntimeException ex)
        {
            LOG.error("journal close failed", ex);
        }
        // Last, once everything durable is done (a supervisor's kill deadline cuts what comes last): the
        // ring is drained and the stages are idle, so this thread owns the ledger. A halted ledger's state
        // is not trusted enough to become a start point, nor one the journal may not hold on disk.
        if (snapshotter != null && !health.isHalted() && journalClosed)
        {
            snapshotter.closeWithFinalSnapshot(ledger);
        }
        LOG.info("tally stopped at journal index {} in {} ms", journal.lastIndex(), (System.nanoTime() - startNs) / 1_000_000);
        dataFolderLock.close();   // last: the final snapshot above writes into the folder too
    }
}
