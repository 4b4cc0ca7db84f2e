package dev.tally.perf.peer;

import dev.tally.pipeline.WaitStrategyName;
import dev.tally.journal.Durability;
import dev.tally.perf.load.InProcessServer;
import dev.tally.perf.load.ReadModelPostgres;
import dev.tally.perf.load.LoadSpec;
import dev.tally.perf.load.Mode;
import dev.tally.perf.load.Scenario;
import dev.tally.perf.load.ScenarioRun;
import dev.tally.perf.load.Target;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import dev.tally.server.cli.TransportConverter;
import dev.tally.gateway.http.NettyTransport;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/**
 * {@code compare}: the same workload against Tally and against the PostgreSQL-per-request peer, in the same run, side
 * by side, durability like for like. By default the whole system (Tally with its PostgreSQL read model) and Tally's
 * request path (read model off) against the strongest honest peer (hot accounts as sub-rows, batch requests as one
 * transaction each, its pool chosen per scenario):
 *
 * <pre>
 *   for each durability (sync: Tally --durability sync vs synchronous_commit=on; async: async vs off)
 *     start the peer (embedded PostgreSQL) and the read models' PostgreSQL (the same settings), each kept for the whole mode
 *     warm each system up (a short uniform run each, not reported)
 *     for each round (--rounds, default 1)
 *       for each scenario, each system in turn (odd rounds: Tally whole, Tally request path, peer; even rounds: reversed)
 *         Tally: a fresh server (and a fresh read-model database); setup; writer caught up, VACUUM ANALYZE + CHECKPOINT;
 *                warmup, measured window, drain, check; the writer's catch-up timed                 (TallySide)
 *         peer:  tables truncated, pool sized for the scenario; setup; VACUUM ANALYZE + CHECKPOINT;
 *                warmup, measured window, drain, check; the SQL check over its whole database      (PeerSide)
 *     for each scenario: every system once more in open loop at --open-loop-fraction of the peer's median throughput
 *   print the tables and the RESULT lines (medians over the rounds) and LATENCY lines; write histograms, CSV, PNG chart
 * </pre>
 *
 * The {@code batch} scenario sends both systems {@code POST /v1/batch} with B transfers per request (the peer runs each
 * as one transaction). Throughput is transfers per second for both. A run whose check fails is reported as failed,
 * not as a number.
 *
 * <p>Besides throughput and latency, each run reports its CPU cost per transfer (this JVM, and the system's PostgreSQL
 * processes, from the end of setup to the end of the check or of the catch-up): on a shared machine it is the figure
 * that other jobs distort least.
 */
@CommandLine.Command(name = "compare", mixinStandardHelpOptions = true,
    description = "Run each scenario against Tally as a whole (read model on), Tally's request path (read model off) and the " +
        "PostgreSQL-per-request peer (hot accounts as sub-rows, batch requests as one transaction); print the ratios.")
final class CompareCommand implements Callable<Integer>
{
    static final List<String> SCENARIOS_ALL = List.of("uniform", "hotCredit", "hotDebit", "retries", "batch");
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    @CommandLine.Option(names = "--seconds", defaultValue = "30", description = "Measured seconds per run (default: ${DEFAULT-VALUE}).")
    int seconds;

    @CommandLine.Option(names = "--rounds", defaultValue = "1",
        description = "Runs of every scenario against each system, interleaved, the order of the two systems swapped in even rounds; " +
            "RESULT lines, summary and chart give each figure's median over the rounds (default: ${DEFAULT-VALUE}).")
    int rounds;

    @CommandLine.Option(names = "--warmup-seconds", defaultValue = "5",
        description = "Unmeasured seconds before each measured window (default: ${DEFAULT-VALUE}).")
    int warmupSeconds;

    @CommandLine.Option(names = "--scenario", split = ",", defaultValue = "uniform,hotCredit,hotDebit,retries,batch",
        description = "Scenarios, comma-separated (default: ${DEFAULT-VALUE}).")
    List<String> scenarios = new ArrayList<>();

    @CommandLine.Option(names = "--durability", split = ",", defaultValue = "sync,async",
        description = "sync (Tally sync vs synchronous_commit=on) and/or async (async vs off) (default: ${DEFAULT-VALUE}).")
    List<String> durabilities = new ArrayList<>();

    @CommandLine.Option(names = "--systems", split = ",", defaultValue = "tally,peer",
        description = "Which systems to run: tally, peer or both (default: ${DEFAULT-VALUE}); a ratio needs both.")
    List<String> systems = new ArrayList<>();

    @CommandLine.Option(names = "--accounts", defaultValue = "100000",
        description = "Accounts per run, funding and hot included (default: ${DEFAULT-VALUE}).")
    int accounts;

    @CommandLine.Option(names = "--connections", defaultValue = "64", description = "Client keep-alive connections (default: ${DEFAULT-VALUE}).")
    int connections;

    @CommandLine.Option(names = "--depth", defaultValue = "1", description = "Requests in flight per connection (default: ${DEFAULT-VALUE}).")
    int depth;

    @CommandLine.Option(names = "--batch-size", defaultValue = "100",
        description = "Transfers per batch request, for Tally and the peer alike (default: ${DEFAULT-VALUE}).")
    int batchSize;

    @CommandLine.Option(names = "--batch-connections", defaultValue = "16",
        description = "Connections of the batch scenario, for both systems: each request carries --batch-size transfers, so 16 x 100 = " +
            "1,600 transfers in flight (default: ${DEFAULT-VALUE}).")
    int batchConnections;

    @CommandLine.Option(names = "--client-threads", defaultValue = "1", description = "Client event-loop threads (default: ${DEFAULT-VALUE}).")
    int clientThreads;

    @CommandLine.Option(names = "--check-sample", defaultValue = "1000",
        description = "Customer accounts the load generator reads back (default: ${DEFAULT-VALUE}).")
    int checkSample;

    @CommandLine.Option(names = "--seed", defaultValue = "42", description = "Seed of the random choices (default: ${DEFAULT-VALUE}).")
    long seed;

    // 15 s, not 3: on a slow machine the JIT was still compiling in the first scenario's measured window (C2 took
    // 0.12 of a core, 8 % of Tally's CPU per request there, against 1-2 % in the later scenarios).
    @CommandLine.Option(names = "--warmup-run-seconds", defaultValue = "15",
        description = "A uniform run against each system before the first scenario, not reported, so the JIT has compiled the " +
            "request path; 0 for none (default: ${DEFAULT-VALUE}).")
    int warmupRunSeconds;

    @CommandLine.Option(names = "--transport", defaultValue = "auto", converter = TransportConverter.class,
        description = "Netty transport of Tally, the peer and the load client alike: auto (io_uring where the kernel offers it, " +
            "else nio), nio or io_uring (default: ${DEFAULT-VALUE}).")
    NettyTransport transport;

    @CommandLine.Option(names = "--peer-pool", defaultValue = PeerPools.DEFAULTS_TEXT,
        description = "Peer: HikariCP connections = JDBC threads, one number for every scenario or scenario=size pairs over the " +
            "defaults, the best pool of each scenario in the recorded sweep (default: ${DEFAULT-VALUE}).")
    String peerPool;

    @CommandLine.Option(names = "--peer-hot-rows", defaultValue = "sub-balances",
        description = "Peer: balance rows of a hot account: sub-balances (as many as Tally's sub-balances of that account, the source " +
            "articles' design) or a number; 1 is the naive one-row design, reported as peer=one-row (default: ${DEFAULT-VALUE}).")
    String peerHotRows;

    @CommandLine.Option(names = "--peer-path", defaultValue = "function",
        description = "Peer: function (one round trip) or statements (default: ${DEFAULT-VALUE}).")
    String peerPath;

    @CommandLine.Option(names = "--peer-io-threads", defaultValue = "1", description = "Peer: Netty I/O threads (default: ${DEFAULT-VALUE}).")
    int peerIoThreads;

    @CommandLine.Option(names = "--tally-io-threads", defaultValue = "1", description = "Tally: Netty I/O threads (default: ${DEFAULT-VALUE}).")
    int tallyIoThreads;

    @CommandLine.Option(names = "--tally-wait-strategy", defaultValue = "waking",
        description = "Tally: the pipeline's wait strategy, waking (Tally's default), backoff, sleeping, blocking, yielding or busy_spin " +
            "(default: ${DEFAULT-VALUE}).")
    String tallyWaitStrategy;

    @CommandLine.Option(names = "--tally-keys-max", defaultValue = "8000000",
        description = "Tally: idempotency keys and transfers kept in the retention window (default: ${DEFAULT-VALUE}, about 3.2 GB of heap).")
    int tallyKeysMax;

    @CommandLine.Option(names = "--tally-retention-ms", defaultValue = "10000",
        description = "Tally: key, reference and transfer retention in journaled time. It must outlast the retries scenario's retry window " +
            "(the last 4,096 acknowledged keys of each client loop), or a retry of an expired key is rightly applied as new; and " +
            "rate x retention must stay below --tally-keys-max, or operations are refused with 503 capacity-exceeded (batch at 550,000 " +
            "transfers/s holds 5,500,000 keys for 10 s; 15 s ran out above 533,000/s). The peer keeps every key (default: ${DEFAULT-VALUE}).")
    long tallyRetentionMs;

    @CommandLine.Option(names = "--tally-read-model", split = ",", defaultValue = "on,off",
        description = "Tally's PostgreSQL read model: on is the whole system as tally serve runs it (the batched writer into a " +
            "PostgreSQL with the peer's settings on the same cores; its CPU counted, the run's rate counting the writer's catch-up " +
            "after the window); off is the request path alone (the journal is the durability, PostgreSQL a projection behind it). " +
            "Both: each scenario runs against both, each ratio reported (default: ${DEFAULT-VALUE}).")
    List<String> tallyReadModels = new ArrayList<>();

    @CommandLine.Option(names = "--open-loop-fraction", defaultValue = "0.5",
        description = "After the closed-loop rounds, every system runs each scenario once more in open loop at this fraction of the " +
            "peer's median throughput, so that latency is compared at equal load rather than at saturation; 0 for none " +
            "(default: ${DEFAULT-VALUE}).")
    double openLoopFraction;

    @CommandLine.Option(names = "--open-loop-seconds", defaultValue = "0",
        description = "Measured seconds of the open-loop runs; 0 for --seconds (default: ${DEFAULT-VALUE}).")
    int openLoopSeconds;

    @CommandLine.Option(names = "--results-dir",
        description = "Parent folder of this run's folder (default: perf/results from the repository root, else results).")
    Path resultsDir;

    /** Where tables and RESULT lines go (System.out unless {@link CompareMain#run} was given another stream). */
    PrintStream out = System.out;

    @Override
    public Integer call() throws Exception
    {
        CompareMain.quietLogs();
        final CommandLine commandLine = new CommandLine(this);
        runTally = systems.contains("tally");
        runPeer = systems.contains("peer");
        if (!runTally && !runPeer)
        {
            throw new CommandLine.ParameterException(commandLine, "--systems must name tally and/or peer");
        }
        if (rounds < 1)
        {
            throw new CommandLine.ParameterException(commandLine, "--rounds must be at least 1");
        }
        if (openLoopFraction < 0 || openLoopFraction > 1)
        {
            throw new CommandLine.ParameterException(commandLine, "--open-loop-fraction must be 0..1");
        }
        for (final String readModel : tallyReadModels)
        {
            readModels.add(onOff(readModel));
        }
        pools = PeerPools.parse(peerPool);
        hotRows = HotRows.parse(peerHotRows);
        final List<LoadSpec> specs = new ArrayList<>();
        for (final String name : scenarios)
        {
            specs.add(spec(Scenario.parse(name), Mode.CLOSED, 0, seconds, warmupSeconds, accounts));
        }
        final Path runDir = (resultsDir != null ? resultsDir : defaultResultsDir()).resolve("compare-" + LocalDateTime.now().format(STAMP));
        Files.createDirectories(runDir);
        out.println(CompareReport.machine());
        out.printf(Locale.ROOT,
            "compare: %s; %d round(s); %d s measured after %d s warmup per run; %,d accounts; %d connections x depth %d (batch: %d x %d " +
                "transfers); Tally read model %s; peer %s, pools %s; open loop at %.2f of the peer's throughput; results in %s%n",
            String.join(",", scenarios), rounds, seconds, warmupSeconds, accounts, connections, depth, batchConnections, batchSize,
            String.join(",", tallyReadModels), hotRows.label(HOT_SUB_BALANCES), pools, openLoopFraction, runDir);

        final List<CompareReport.Row> rows = new ArrayList<>();
        final List<CompareReport.LatencyRow> latencyRows = new ArrayList<>();
        for (final String durabilityName : durabilities)
        {
            final boolean sync = "sync".equals(durabilityName);
            if (!sync && !"async".equals(durabilityName))
            {
                throw new CommandLine.ParameterException(commandLine, "--durability must be sync and/or async");
            }
            runDurability(sync, specs, runDir, rows, latencyRows);
        }
        final CompareReport report = new CompareReport(rows, latencyRows, rounds);
        report.print(out);
        report.write(runDir);
        for (final String durabilityName : durabilities)
        {
            final Path chart = runDir.resolve("compare-" + durabilityName + ".png");
            CompareChart.draw(report.medians(durabilityName), durabilityName, rounds, chart);
            out.println("chart: " + chart);
        }
        return report.allOk() ? 0 : 2;
    }

    /** The sub-balances of the load generator's hot account, which the peer's sub-rows variant mirrors. */
    static final int HOT_SUB_BALANCES = 16;

    private boolean runTally;
    private boolean runPeer;
    private final List<Boolean> readModels = new ArrayList<>();
    private PeerPools pools;
    private HotRows hotRows;

    /** What one durability mode runs on: the peer and the read models' PostgreSQL, kept for the whole mode. */
    private record Servers(boolean sync, PeerServer peer, Target peerTarget, ReadModelPostgres readModelPostgres, Path runDir)
    {
    }

    private void runDurability(final boolean sync, final List<LoadSpec> specs, final Path runDir, final List<CompareReport.Row> rows,
        final List<CompareReport.LatencyRow> latencyRows) throws Exception
    {
        final String mode = sync ? "sync" : "async";
        final byte[] secret = new byte[16];
        new SecureRandom().nextBytes(secret);
        final String peerKey = "peer-" + HexFormat.of().formatHex(secret);
        PeerServer peer = null;
        ReadModelPostgres readModelPostgres = null;
        try
        {
            out.println("== durability " + mode + " ==");
            if (runPeer)
            {
                peer = new PeerServer(new PeerConfig(sync, pools.max(), 16_384, peerIoThreads, TransferPath.parse(peerPath),
                    List.of("peer:" + peerKey), 0, transport, hotRows));
                out.println(peer.describe());
            }
            if (runTally && readModels.contains(true))
            {
                readModelPostgres = ReadModelPostgres.start(Files.createTempDirectory("tally-compare-read-model"));
            }
            if (runTally)
            {
                for (final boolean readModel : readModels)
                {
                    out.println(InProcessServer.describe(tallySettings(sync, readModel, specs.get(0))) + "; a fresh server for every run");
                }
            }
            final Servers servers = new Servers(sync, peer, peer == null ? null : new Target(Target.LOOPBACK, peer.port(), peerKey, transport),
                readModelPostgres, runDir);
            if (warmupRunSeconds > 0)
            {
                final LoadSpec warm = spec(Scenario.UNIFORM, Mode.CLOSED, 0, warmupRunSeconds, 1, Math.min(accounts, 10_000));
                for (final String system : systemOrder(1))
                {
                    measure(system, mode + "-warmup", warm, servers);
                }
            }
            final int rowsBefore = rows.size();
            for (int round = 1; round <= rounds; round++)
            {
                for (final LoadSpec spec : specs)
                {
                    final CompareReport.Row row = runScenario(mode, round, spec, servers);
                    rows.add(row);
                    row.resultLines().forEach(out::println);
                }
            }
            if (openLoopFraction > 0 && peer != null)
            {
                final CompareReport report = new CompareReport(rows.subList(rowsBefore, rows.size()), rounds);
                for (final LoadSpec spec : specs)
                {
                    final CompareReport.LatencyRow row = runAtEqualLoad(mode, spec, report, servers);
                    if (row != null)
                    {
                        latencyRows.add(row);
                    }
                }
            }
        }
        finally
        {
            // A failure to stop a server (or to delete its temporary folder) must not cost the figures already measured.
            closeQuietly(peer, "the peer");
            closeQuietly(readModelPostgres, "the read models' PostgreSQL");
        }
    }

    /** @return the systems of a round in the order they run: Tally first in odd rounds, the peer first in even ones. */
    private List<String> systemOrder(final int round)
    {
        final List<String> order = new ArrayList<>();
        if (runTally)
        {
            for (final boolean readModel : readModels)
            {
                order.add(readModel ? TALLY_WHOLE : TALLY_REQUEST_PATH);
            }
        }
        if (runPeer)
        {
            order.add(PEER);
        }
        if (round % 2 == 0)
        {
            java.util.Collections.reverse(order);
        }
        return order;
    }

    private static final String TALLY_WHOLE = "tally-whole";
    private static final String TALLY_REQUEST_PATH = "tally-request-path";
    private static final String PEER = "peer";

    /** One scenario against every system, in the round's order. */
    private CompareReport.Row runScenario(final String mode, final int round, final LoadSpec spec, final Servers servers) throws Exception
    {
        final String label = rounds > 1 ? mode + "-round" + round : mode;
        final java.util.Map<String, CompareReport.Measured> measured = new java.util.HashMap<>();
        for (final String system : systemOrder(round))
        {
            measured.put(system, measure(system, label, spec, servers));
        }
        return new CompareReport.Row(spec.scenario().cliName(), mode, round, measured.get(TALLY_WHOLE), measured.get(TALLY_REQUEST_PATH),
            measured.get(PEER), hotRows.label(HOT_SUB_BALANCES), spec.scenario() == Scenario.BATCH ? batchSize : 0);
    }

    /**
     * Every system once more, open loop, at the fraction of the peer's median throughput in the closed-loop rounds:
     * latency at equal load. Null when the peer has no throughput to take a fraction of.
     */
    private CompareReport.LatencyRow runAtEqualLoad(final String mode, final LoadSpec closed, final CompareReport closedRows,
        final Servers servers) throws Exception
    {
        CompareReport.Row median = null;
        for (final CompareReport.Row row : closedRows.medians(mode))
        {
            if (row.scenario().equals(closed.scenario().cliName()))
            {
                median = row;
            }
        }
        if (median == null || median.peer() == null || !median.peer().checkOk())
        {
            out.println("no open-loop run of " + closed.scenario().cliName() + ": the peer has no closed-loop throughput to take a fraction of");
            return null;
        }
        final long rateTps = Math.max(closed.operationsPerRequest(), Math.round(median.peer().tps() * openLoopFraction));
        final int rateRps = (int)Math.max(1, rateTps / closed.operationsPerRequest());
        final LoadSpec open = spec(closed.scenario(), Mode.OPEN, rateRps, openLoopSeconds > 0 ? openLoopSeconds : seconds, warmupSeconds,
            closed.accounts());
        final String label = mode + "-open";
        final java.util.Map<String, CompareReport.Measured> measured = new java.util.HashMap<>();
        for (final String system : systemOrder(2))
        {
            measured.put(system, measure(system, label, open, servers));
        }
        return new CompareReport.LatencyRow(closed.scenario().cliName(), mode, (long)rateRps * closed.operationsPerRequest(),
            measured.get(TALLY_WHOLE), measured.get(TALLY_REQUEST_PATH), measured.get(PEER), hotRows.label(HOT_SUB_BALANCES),
            closed.scenario() == Scenario.BATCH ? batchSize : 0);
    }

    /** One run of one system: Tally on a fresh server (its read model in a fresh database), the peer on emptied tables. */
    private CompareReport.Measured measure(final String system, final String label, final LoadSpec spec, final Servers servers)
    {
        final String load = CompareReport.loadAverage();
        out.printf(Locale.ROOT, "-- %s, %s, %s (load average %s) --%n", system, spec.scenario().cliName(), label, load);
        try
        {
            if (PEER.equals(system))
            {
                final int pool = pools.of(spec.scenario());
                out.printf(Locale.ROOT, "  peer: tables truncated, pool %d%n", pool);
                return runOne(system, label, spec, new PeerSide(servers.peer(), servers.peerTarget()).prepare(pool), servers.runDir(), load);
            }
            final boolean readModel = TALLY_WHOLE.equals(system);
            final ReadModelPostgres.Database database = readModel ? servers.readModelPostgres().createDatabase() : null;
            final InProcessServer tally = new InProcessServer(tallySettings(servers.sync(), readModel, spec), database);
            try
            {
                return runOne(system, label, spec, new TallySide(tally), servers.runDir(), load);
            }
            finally
            {
                closeQuietly(tally, "Tally");
                // The server's tables (gigabytes) go before the next run starts.
                System.gc();
            }
        }
        catch (final Exception ex)
        {
            out.println("  " + system + " run failed: " + ex);
            return CompareReport.Measured.failed(load, List.of(ex.toString()));
        }
    }

    /** ScenarioRun (setup, load, the load generator's check) with the side's hooks, then the side's own check. */
    private CompareReport.Measured runOne(final String system, final String label, final LoadSpec spec, final SystemSide side, final Path runDir,
        final String load) throws Exception
    {
        final List<String> notes = new ArrayList<>();
        try (PrintStream indented = CompareReport.indented(out, side.meter()::onLine))
        {
            final ScenarioRun.Outcome outcome = ScenarioRun.run(spec, side.target(), runDir, system + "-" + label, indented, side);
            final boolean ok = outcome.checkOk() & side.finish(indented, notes);
            final CompareReport.CpuCost cpu = side.meter().cost();
            indented.println("cpu per transfer applied (end of setup to end of check" + (Double.isNaN(side.catchUpS()) ? "" : " and catch-up") +
                "): " + cpu.text() + " us");
            return CompareReport.Measured.of(outcome.resultLine(), ok, side.catchUpS(), spec.seconds(), outcome.keptUp(), cpu, load, notes);
        }
    }

    private void closeQuietly(final AutoCloseable server, final String name)
    {
        if (server == null)
        {
            return;
        }
        try
        {
            server.close();
        }
        catch (final Exception ex)
        {
            out.println("  warning: could not stop " + name + " cleanly: " + ex);
        }
    }

    private LoadSpec spec(final Scenario scenario, final Mode mode, final int rateRps, final int measuredSeconds, final int warmup,
        final int accountCount)
    {
        // A batch request carries batchSize transfers: fewer connections keep as many transfers in flight
        // without queueing 6,400 of them (64 x 100) behind each other, which only adds latency.
        final int clients = scenario == Scenario.BATCH ? batchConnections : connections;
        return new LoadSpec(scenario, mode, clients, depth, rateRps, measuredSeconds, warmup, accountCount, batchSize, HOT_SUB_BALANCES, true,
            checkSample, 10, clientThreads, seed);
    }

    /**
     * Tally's async force interval in a compare: the peer's WAL writer flushes every {@code wal_writer_delay} = 10 ms
     * ({@code BenchPostgres}), so Tally's journal is forced as often, and both lose about as much to a power loss.
     */
    static final long ASYNC_FORCE_INTERVAL_MS = 10;

    /** A server for one run: room for that run's accounts (funding and hot included) and its hot account's sub-balances. */
    private InProcessServer.Settings tallySettings(final boolean sync, final boolean readModel, final LoadSpec spec)
    {
        final int accountsMax = spec.accounts() + 16;
        return new InProcessServer.Settings(sync ? Durability.SYNC : Durability.ASYNC,
            WaitStrategyName.valueOf(tallyWaitStrategy.trim().toUpperCase(Locale.ROOT)), tallyIoThreads, 16_384, 100,
            tallyRetentionMs, accountsMax, accountsMax + LoadSpec.SUB_BALANCES_MAX, tallyKeysMax, null, readModel, ASYNC_FORCE_INTERVAL_MS,
            transport);
    }

    static boolean onOff(final String value)
    {
        if ("on".equalsIgnoreCase(value.trim()))
        {
            return true;
        }
        if ("off".equalsIgnoreCase(value.trim()))
        {
            return false;
        }
        throw new IllegalArgumentException("expected on or off, was " + value);
    }

    private static Path defaultResultsDir()
    {
        return Files.isDirectory(Path.of("perf", "src")) ? Path.of("perf", "results") : Path.of("results");
    }
}
