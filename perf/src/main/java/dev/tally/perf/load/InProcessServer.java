package dev.tally.perf.load;

import dev.tally.gateway.http.ApiKeys;
import dev.tally.gateway.http.HttpLimits;
import dev.tally.gateway.http.NettyTransport;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.pipeline.WaitStrategyName;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import dev.tally.snapshotter.SnapshotConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * A real {@link TallyServer} in this process, on a free loopback port, with a temporary data folder
 * (deleted on close unless kept) and capacities sized for a load run.
 *
 * <p>Sizing: idempotency keys and transfers stay in memory for the retention window, so the tables
 * must hold {@code rate x window}. A benchmark runs at up to about a million transfers a second, so the
 * window is short (5 s by default) and expired every 100 ms, instead of 24 h.
 */
public final class InProcessServer implements AutoCloseable
{
    /**
     * Snapshots out of the measured windows, as the peer's PostgreSQL gets no checkpoint inside one
     * ({@code max_wal_size}, {@code checkpoint_timeout}): a snapshot copies the state on the business thread,
     * 0.6–2 s with the 3–6 million keys a {@code batch} run keeps, which is measured on its own
     * (docs/benchmarks/history/2026-11-30-snapshots-inside-load-run.md). Written at stop: no.
     */
    public static final SnapshotConfig SNAPSHOTS = new SnapshotConfig(true, 1_000_000_000L, 60 * 60 * 1000L, 3, false);

    private final TallyServer server;
    private final Path dataDir;
    private final boolean deleteOnClose;
    private final String apiKey;
    private final NettyTransport transport;
    private final Path postmasterPidFile;
    private final io.zonky.test.db.postgres.embedded.EmbeddedPostgres postgres;
    private final ReadModelPostgres.Database sharedDatabase;

    /**
     * The server's settings.
     *
     * @param durability       async or sync.
     * @param waitStrategy     the pipeline's wait strategy.
     * @param ioThreads        Netty I/O threads.
     * @param ringSize         input ring slots.
     * @param tickIntervalMs   journaled tick period.
     * @param retentionMs      key, reference and reversal window.
     * @param accountsMax      accounts.
     * @param subBalancesMax   sub-balances.
     * @param keysMax          idempotency keys (and transfers) kept in the window.
     * @param dataDir          the data folder; null for a temporary one, deleted on close.
     * @param readModel        also run the PostgreSQL read model (an embedded PostgreSQL under the data folder,
     *                         Tally's batched writer feeding it), as {@code tally serve} does by default.
     * @param asyncForceIntervalMs under async, how often at most the journal is forced ({@code --async-force-interval-ms}).
     * @param transport        the HTTP transport ({@code --transport}).
     */
    public record Settings(
        Durability durability, WaitStrategyName waitStrategy, int ioThreads, int ringSize, long tickIntervalMs, long retentionMs,
        int accountsMax, int subBalancesMax, int keysMax, Path dataDir, boolean readModel, long asyncForceIntervalMs,
        NettyTransport transport)
    {
        public Settings
        {
            transport = transport.resolve();
        }

        /** Over {@link NettyTransport#AUTO}. */
        public Settings(
            final Durability durability, final WaitStrategyName waitStrategy, final int ioThreads, final int ringSize,
            final long tickIntervalMs, final long retentionMs, final int accountsMax, final int subBalancesMax, final int keysMax,
            final Path dataDir, final boolean readModel, final long asyncForceIntervalMs)
        {
            this(durability, waitStrategy, ioThreads, ringSize, tickIntervalMs, retentionMs, accountsMax, subBalancesMax, keysMax,
                dataDir, readModel, asyncForceIntervalMs, NettyTransport.AUTO);
        }

        /** With {@code tally serve}'s default force interval under async. */
        public Settings(
            final Durability durability, final WaitStrategyName waitStrategy, final int ioThreads, final int ringSize,
            final long tickIntervalMs, final long retentionMs, final int accountsMax, final int subBalancesMax, final int keysMax,
            final Path dataDir, final boolean readModel)
        {
            this(durability, waitStrategy, ioThreads, ringSize, tickIntervalMs, retentionMs, accountsMax, subBalancesMax, keysMax,
                dataDir, readModel, dev.tally.journal.JournalConfig.ASYNC_FORCE_INTERVAL_MS_DEFAULT);
        }

        /** Without the read model: the HTTP gateway, the pipeline and the journal. */
        public Settings(
            final Durability durability, final WaitStrategyName waitStrategy, final int ioThreads, final int ringSize,
            final long tickIntervalMs, final long retentionMs, final int accountsMax, final int subBalancesMax, final int keysMax,
            final Path dataDir)
        {
            this(durability, waitStrategy, ioThreads, ringSize, tickIntervalMs, retentionMs, accountsMax, subBalancesMax, keysMax,
                dataDir, false);
        }

        /** @return the ledger's capacities and windows. */
        LedgerConfig ledger()
        {
            // The largest the ledger allows (each hold a tick expires takes one of its 14-bit event ordinals); keys,
            // references and transfers also expire 2 per operation, which keeps pace with any rate.
            final int expiriesPerTickMax = LedgerConfig.EXPIRIES_PER_TICK_MAX_LIMIT;
            return new LedgerConfig(accountsMax, subBalancesMax, keysMax, Math.min(keysMax, 1_000_000), keysMax, 1_024, retentionMs, retentionMs, retentionMs,
                expiriesPerTickMax);
        }
    }

    public InProcessServer(final Settings settings) throws Exception
    {
        this(settings, null);
    }

    /**
     * @param settings the server's settings.
     * @param database with {@code settings.readModel()}, the database of a {@link ReadModelPostgres} its read model goes to
     *                 (dropped on close); null for a PostgreSQL of its own under the data folder.
     */
    public InProcessServer(final Settings settings, final ReadModelPostgres.Database database) throws Exception
    {
        this.sharedDatabase = settings.readModel() ? database : null;
        this.deleteOnClose = settings.dataDir() == null;
        this.transport = settings.transport();
        this.dataDir = deleteOnClose ? Files.createTempDirectory("tally-load") : settings.dataDir();
        final byte[] secret = new byte[16];
        new SecureRandom().nextBytes(secret);
        this.apiKey = "load-" + HexFormat.of().formatHex(secret);
        // The read model's PostgreSQL: the peer's settings (BenchPostgres), so that neither side runs on a better-tuned server.
        final Path pgDir = dataDir.resolve("pg");
        this.postgres = settings.readModel() && sharedDatabase == null ? BenchPostgres.start(pgDir, BenchPostgres.settings(false, 50)) : null;
        final String dbUrl = sharedDatabase != null ? sharedDatabase.jdbcUrl() : postgres != null ? postgres.getJdbcUrl("postgres", "postgres") : null;
        try
        {
            final ServerConfig config = new ServerConfig(Target.LOOPBACK, 0, dataDir, settings.durability(),
                ApiKeys.parse(List.of("load:" + apiKey)), settings.ioThreads(), settings.ledger(),
                new LedgerPipeline.PipelineConfig(settings.ringSize(), settings.waitStrategy(), settings.tickIntervalMs()),
                HttpLimits.defaults(), dbUrl, settings.readModel())
                .withJournal(new ServerConfig.JournalOptions(false, settings.asyncForceIntervalMs()))
                .withTransport(settings.transport());
            this.server = new TallyServer(config, SNAPSHOTS);
        }
        catch (final Exception ex)
        {
            if (postgres != null)
            {
                postgres.close();
            }
            throw ex;
        }
        this.postmasterPidFile = postgres != null ? pgDir.resolve("postmaster.pid") : null;
    }

    /** @return true when the server runs its PostgreSQL read model. */
    public boolean hasReadModel()
    {
        return postmasterPidFile != null || sharedDatabase != null;
    }

    /** @return the journal index of the last command applied (a plain read of the business thread's field, as a metrics scrape). */
    public long lastJournalIndex()
    {
        return server.ledger().lastJournalIndex();
    }

    /**
     * Waits until the PostgreSQL writer holds every command up to {@code journalIndex}.
     *
     * @return true when it did within {@code timeout} (at once without a read model).
     */
    public boolean awaitReadModel(final long journalIndex, final Duration timeout)
    {
        return !hasReadModel() || server.readModel().writer().awaitWatermark(journalIndex, timeout);
    }

    /** VACUUM ANALYZE then CHECKPOINT of the read model's database; nothing without a read model. */
    public void settleReadModel() throws java.sql.SQLException
    {
        if (sharedDatabase != null)
        {
            sharedDatabase.settle();
        }
        else if (postgres != null)
        {
            try (java.sql.Connection connection = postgres.getPostgresDatabase().getConnection();
                 java.sql.Statement statement = connection.createStatement())
            {
                statement.execute("VACUUM (ANALYZE)");
                statement.execute("CHECKPOINT");
            }
        }
    }

    /** @return how many journaled commands the PostgreSQL writer is behind; 0 without a read model. */
    public long readModelLagCommands()
    {
        if (!hasReadModel())
        {
            return 0;
        }
        // plain reads of fields other threads write, as a metrics scrape does: good enough for a report
        return Math.max(0, server.ledger().lastJournalIndex() - server.readModel().writer().watermark());
    }

    /**
     * Waits until the PostgreSQL writer holds everything applied so far.
     *
     * @return true when it caught up within {@code timeout}.
     */
    public boolean awaitReadModel(final Duration timeout)
    {
        return awaitReadModel(server.ledger().lastJournalIndex(), timeout);
    }

    /**
     * @return CPU time of the read model's PostgreSQL (postmaster and children; a shared {@link ReadModelPostgres} as a whole), ns;
     *         0 without a read model, -1 unknown.
     */
    public long postgresCpuNs()
    {
        if (!hasReadModel())
        {
            return 0;
        }
        if (sharedDatabase != null)
        {
            return sharedDatabase.server().cpuNs();
        }
        try
        {
            return ProcessCpu.postgresNs(Long.parseLong(Files.readAllLines(postmasterPidFile).get(0).trim()));
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
    }

    /** @return where to send load. */
    public Target target()
    {
        return new Target(Target.LOOPBACK, server.port(), apiKey, transport);
    }

    /** @return a one-line description of the server's settings. */
    public static String describe(final Settings settings)
    {
        return String.format(Locale.ROOT,
            "in-process TallyServer: durability %s, wait strategy %s, %d I/O thread(s) on %s, ring %,d, tick %d ms, retention %,d ms, " +
                "accounts max %,d, keys/transfers max %,d, PostgreSQL read model %s, snapshots every %,d commands or %d min (none inside a run)",
            settings.durability().name().toLowerCase(Locale.ROOT), settings.waitStrategy().name().toLowerCase(Locale.ROOT),
            settings.ioThreads(), settings.transport().cliName(), settings.ringSize(), settings.tickIntervalMs(), settings.retentionMs(), settings.accountsMax(),
            settings.keysMax(), settings.readModel() ? "on (embedded, the peer's server settings, writer running)" : "off",
            SNAPSHOTS.everyCommands(), SNAPSHOTS.intervalMs() / 60_000);
    }

    /** @return the data folder. */
    public Path dataDir()
    {
        return dataDir;
    }

    @Override
    public void close() throws IOException
    {
        server.close();
        if (postgres != null)
        {
            postgres.close();
        }
        if (sharedDatabase != null)
        {
            try
            {
                sharedDatabase.drop();
            }
            catch (final java.sql.SQLException ex)
            {
                throw new IOException("could not drop the read model's database " + sharedDatabase.name() + ": " + ex.getMessage(), ex);
            }
        }
        if (deleteOnClose)
        {
            try (Stream<Path> files = Files.walk(dataDir))
            {
                for (final Path file : (Iterable<Path>)files.sorted(Comparator.reverseOrder())::iterator)
                {
                    Files.deleteIfExists(file);
                }
            }
        }
    }
}
