package dev.tally.perf.peer;

import dev.tally.perf.load.ProcessCpu;
import dev.tally.pipeline.WaitStrategyName;
import dev.tally.journal.Durability;
import dev.tally.perf.load.InProcessServer;
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
 * {@code compare}: the same workload against Tally and against the PostgreSQL-per-request peer, in
 * the same run, side by side, durability like for like:
 *
 * <pre>
 *   for each durability (sync: Tally --durability sync vs synchronous_commit=on; async: async vs off)
 *     start Tally (TallyServer in-process, temporary data folder, 10 s key retention) and the peer (embedded PostgreSQL, own folder)
 *     warm both up (a short uniform run each, not reported)
 *     for each round (--rounds, default 1)
 *       for each scenario
 *         Tally: setup, warmup, measured window, drain, check          (dev.tally.perf.load.ScenarioRun)
 *         let PostgreSQL settle (VACUUM ANALYZE, CHECKPOINT), System.gc()
 *         peer:  the same, then the peer's SQL check over its whole database (PeerCheck)
 *         let PostgreSQL settle, System.gc()
 *         (in even rounds the peer goes first, so neither system always meets the machine's later minutes)
 *   print the tables and one RESULT line per scenario and durability (medians over the rounds); write
 *   histograms, CSV, PNG chart
 * </pre>
 *
 * The {@code batch} scenario sends Tally {@code POST /v1/batch} with B transfers per request; the peer
 * gets the same kind of transfers (uniform, fresh keys) one per request: it has no batch endpoint for
 * them (its {@code /v1/batch} exists for setup only). Throughput is transfers per second for both.
 * A run whose check fails is reported as failed, not as a number.
 *
 * <p>Besides throughput and latency, each run reports its CPU cost per transfer (this JVM, and the
 * peer's PostgreSQL processes, from the end of setup to the end of the check): on a shared machine it
 * is the figure that other jobs distort least.
 */
@CommandLine.Command(name = "compare", mixinStandardHelpOptions = true,
    description = "Run each scenario against Tally and against the PostgreSQL-per-request peer; print the ratio.")
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

    @CommandLine.Option(names = "--batch-size", defaultValue = "100", description = "Transfers per Tally batch request (default: ${DEFAULT-VALUE}).")
    int batchSize;

    @CommandLine.Option(names = "--batch-connections", defaultValue = "16",
        description = "Connections for Tally's batch scenario: each request carries --batch-size transfers, so 16 x 100 = 1,600 " +
            "transfers in flight against the peer's 64 (default: ${DEFAULT-VALUE}).")
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

    @CommandLine.Option(names = "--peer-pool", defaultValue = "" + PeerConfig.POOL_SIZE_DEFAULT,
        description = "Peer: HikariCP connections = JDBC threads (default: ${DEFAULT-VALUE}).")
    int peerPool;

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

    @CommandLine.Option(names = "--tally-read-model", defaultValue = "off",
        description = "Tally: on also runs its PostgreSQL read model (embedded PostgreSQL, the batched writer; writes are refused " +
            "with 503 while the writer lags by more than 100,000 commands); Tally's CPU per transfer then counts that PostgreSQL too, " +
            "up to the moment the writer has caught up with the run. off measures the request path: the journal is Tally's " +
            "durability, PostgreSQL a projection behind it (default: ${DEFAULT-VALUE}).")
    String tallyReadModel;

    @CommandLine.Option(names = "--results-dir",
        description = "Parent folder of this run's folder (default: perf/results from the repository root, else results).")
    Path resultsDir;

    /** Where tables and RESULT lines go (System.out unless {@link CompareMain#run} was given another stream). */
    PrintStream out = System.out;

    @Override
    public Integer call() throws Exception
    {
        CompareMain.quietLogs();
        final boolean runTally = systems.contains("tally");
        final boolean runPeer = systems.contains("peer");
        if (!runTally && !runPeer)
        {
            throw new CommandLine.ParameterException(new CommandLine(this), "--systems must name tally and/or peer");
        }
        if (rounds < 1)
        {
            throw new CommandLine.ParameterException(new CommandLine(this), "--rounds must be at least 1");
        }
        final List<LoadSpec> specs = new ArrayList<>();
        for (final String name : scenarios)
        {
            specs.add(spec(Scenario.parse(name), seconds, warmupSeconds, accounts));
        }
        final Path runDir = (resultsDir != null ? resultsDir : defaultResultsDir()).resolve("compare-" + LocalDateTime.now().format(STAMP));
        Files.createDirectories(runDir);
        out.println(CompareReport.machine());
        out.printf(Locale.ROOT,
            "compare: %s; %d round(s); %d s measured after %d s warmup per run; %,d accounts; %d connections x depth %d; results in %s%n",
            String.join(",", scenarios), rounds, seconds, warmupSeconds, accounts, connections, depth, runDir);

        final List<CompareReport.Row> rows = new ArrayList<>();
        for (final String durabilityName : durabilities)
        {
            final boolean sync = "sync".equals(durabilityName);
            if (!sync && !"async".equals(durabilityName))
            {
                throw new CommandLine.ParameterException(new CommandLine(this), "--durability must be sync and/or async");
            }
            rows.addAll(runDurability(sync, specs, runDir, runTally, runPeer));
        }
        final CompareReport report = new CompareReport(rows, rounds);
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

    private List<CompareReport.Row> runDurability(final boolean sync, final List<LoadSpec> specs, final Path runDir, final boolean runTally,
        final boolean runPeer) throws Exception
    {
        final String mode = sync ? "sync" : "async";
        final List<CompareReport.Row> rows = new ArrayList<>();
        final byte[] secret = new byte[16];
        new SecureRandom().nextBytes(secret);
        final String peerKey = "peer-" + HexFormat.of().formatHex(secret);
        final PeerConfig peerConfig = new PeerConfig(sync, peerPool, 16_384, peerIoThreads, TransferPath.parse(peerPath),
            List.of("peer:" + peerKey), 0, transport);
        InProcessServer tally = null;
        PeerServer peer = null;
        try
        {
            tally = runTally ? new InProcessServer(tallySettings(sync, specs)) : null;
            peer = runPeer ? new PeerServer(peerConfig) : null;
            out.println("== durability " + mode + " ==");
            if (tally != null)
            {
                out.println(InProcessServer.describe(tallySettings(sync, specs)) + ", data in " + tally.dataDir());
            }
            final Target peerTarget = peer == null ? null : new Target(Target.LOOPBACK, peer.port(), peerKey, transport);
            if (peer != null)
            {
                out.println(peer.describe());
            }
            if (warmupRunSeconds > 0)
            {
                final LoadSpec warm = spec(Scenario.UNIFORM, warmupRunSeconds, 1, Math.min(accounts, 10_000));
                if (tally != null)
                {
                    runOne("tally", mode + "-warmup", warm, tally.target(), runDir, null, tally);
                }
                if (peer != null)
                {
                    runOne("peer", mode + "-warmup", warm, peerTarget, runDir, null, null);
                    peer.settle();
                }
            }
            for (int round = 1; round <= rounds; round++)
            {
                for (final LoadSpec spec : specs)
                {
                    final CompareReport.Row row = runScenario(mode, round, spec, tally, peer, peerTarget, runDir);
                    rows.add(row);
                    out.println(row.resultLine());
                }
            }
        }
        finally
        {
            // A failure to stop a server (or to delete its temporary folder) must not cost the figures already measured.
            closeQuietly(tally, "Tally");
            closeQuietly(peer, "the peer");
        }
        return rows;
    }

    /** One scenario against both systems, Tally first in odd rounds, the peer first in even ones. */
    private CompareReport.Row runScenario(final String mode, final int round, final LoadSpec spec, final InProcessServer tally,
        final PeerServer peer, final Target peerTarget, final Path runDir)
    {
        final String label = rounds > 1 ? mode + "-round" + round : mode;
        final boolean peerFirst = round % 2 == 0;
        CompareReport.Measured peerResult = peerFirst ? runPeer(label, spec, peer, peerTarget, runDir) : null;
        CompareReport.Measured tallyResult = null;
        if (tally != null)
        {
            tallyResult = runOne("tally", label, spec, tally.target(), runDir, null, tally);
            settle(peer);
        }
        if (!peerFirst)
        {
            peerResult = runPeer(label, spec, peer, peerTarget, runDir);
        }
        return new CompareReport.Row(spec.scenario().cliName(), mode, round, tallyResult, peerResult);
    }

    /** @return the peer's run of {@code spec}, or null when the peer does not run. */
    private CompareReport.Measured runPeer(final String label, final LoadSpec spec, final PeerServer peer, final Target peerTarget,
        final Path runDir)
    {
        if (peer == null)
        {
            return null;
        }
        // The peer has no batch endpoint for measured work: the batch scenario's transfers go one per request.
        final LoadSpec peerSpec = spec.scenario() == Scenario.BATCH ?
            spec(Scenario.UNIFORM, spec.seconds(), spec.warmupSeconds(), spec.accounts()) : spec;
        final String peerLabel = label + (peerSpec == spec ? "" : "-for-batch");
        final CompareReport.Measured result = runOne("peer", peerLabel, peerSpec, peerTarget, runDir, peer, null);
        settle(peer);
        return result;
    }

    /**
     * One system, one scenario: ScenarioRun (setup, load, the load generator's check), then the peer's SQL check, or
     * Tally's PostgreSQL writer catching up when its read model runs.
     */
    private CompareReport.Measured runOne(final String system, final String label, final LoadSpec spec, final Target target, final Path runDir,
        final PeerServer peer, final InProcessServer tally)
    {
        final String load = CompareReport.loadAverage();
        out.printf(Locale.ROOT, "-- %s, %s, %s (load average %s) --%n", system, spec.scenario().cliName(), label, load);
        final List<String> notes = new ArrayList<>();
        final CpuMeter meter = new CpuMeter(peer != null ? peer::postgresCpuNs : tally != null && tally.hasReadModel() ? tally::postgresCpuNs : null);
        try (PrintStream indented = CompareReport.indented(out, meter::onLine))
        {
            final ScenarioRun.Outcome outcome = ScenarioRun.run(spec, target, runDir, system + "-" + label, indented);
            boolean ok = outcome.checkOk();
            if (tally != null && tally.hasReadModel())
            {
                ok &= awaitReadModel(tally, meter, indented, notes);
            }
            if (peer != null)
            {
                final PeerCheck.Report sqlCheck = peer.checker().run(0);
                for (final String property : sqlCheck.verified())
                {
                    indented.println("peer SQL check ok  " + property);
                }
                for (final String failure : sqlCheck.failures())
                {
                    indented.println("peer SQL check BAD " + failure);
                    notes.add(failure);
                }
                ok &= sqlCheck.ok();
            }
            final CompareReport.CpuCost cpu = meter.cost();
            indented.println("cpu per transfer applied (end of setup to end of check): " + cpu.text() + " us");
            return CompareReport.Measured.of(outcome.resultLine(), ok, cpu, load, notes);
        }
        catch (final Exception ex)
        {
            out.println("  " + system + " run failed: " + ex);
            notes.add(ex.toString());
            return CompareReport.Measured.failed(load, notes);
        }
    }

    /**
     * Tally with its read model: the run is over when PostgreSQL holds it. Reports the writer's lag at the end of the
     * window and how long it took to catch up, and moves the CPU measurement's end there.
     */
    private boolean awaitReadModel(final InProcessServer tally, final CpuMeter meter, final PrintStream indented, final List<String> notes)
    {
        final long lag = tally.readModelLagCommands();
        final long startNs = System.nanoTime();
        final boolean caughtUp = tally.awaitReadModel(java.time.Duration.ofMinutes(5));
        indented.printf(Locale.ROOT, "read model: PostgreSQL writer %,d commands behind after the check, caught up in %.1f s%s%n", lag,
            (System.nanoTime() - startNs) / 1e9, caughtUp ? "" : " -- NOT within 5 minutes");
        if (!caughtUp)
        {
            notes.add("the PostgreSQL writer did not catch up within 5 minutes");
            return false;
        }
        meter.remeasure();
        return true;
    }

    /**
     * Reads the load generator's report as it is printed: CPU snapshots when setup ends ({@code setup:})
     * and when the outcomes are printed (after the check), and the transfers applied over the run.
     */
    private static final class CpuMeter
    {
        private static final java.util.regex.Pattern APPLIED = java.util.regex.Pattern.compile("outcomes\\s+applied ([0-9,]+)");
        private final java.util.function.LongSupplier postgresCpuNs;
        private long jvmStartNs = -1;
        private long postgresStartNs;
        private long transfers;
        private CompareReport.CpuCost cost = CompareReport.CpuCost.UNKNOWN;

        /** @param postgresCpuNs the CPU of the system's PostgreSQL, ns; null when it has none. */
        CpuMeter(final java.util.function.LongSupplier postgresCpuNs)
        {
            this.postgresCpuNs = postgresCpuNs;
        }

        void onLine(final String line)
        {
            if (jvmStartNs < 0 && line.startsWith("setup:"))
            {
                jvmStartNs = ProcessCpu.jvmNs();
                postgresStartNs = postgresCpuNs == null ? 0 : postgresCpuNs.getAsLong();
                return;
            }
            final java.util.regex.Matcher applied = APPLIED.matcher(line);
            if (jvmStartNs >= 0 && applied.find())
            {
                transfers = Long.parseLong(applied.group(1).replace(",", ""));
                remeasure();
            }
        }

        /** Ends the measurement now (the same transfers, the CPU used up to this moment). */
        void remeasure()
        {
            if (jvmStartNs < 0)
            {
                return;
            }
            final double jvmNs = ProcessCpu.jvmNs() - jvmStartNs;
            final double postgresNs = postgresCpuNs == null ? 0 : postgresCpuNs.getAsLong() - postgresStartNs;
            cost = transfers <= 0 ? CompareReport.CpuCost.UNKNOWN :
                new CompareReport.CpuCost(jvmNs / 1_000.0 / transfers, postgresNs / 1_000.0 / transfers, transfers);
        }

        CompareReport.CpuCost cost()
        {
            return cost;
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

    private void settle(final PeerServer peer)
    {
        try
        {
            if (peer != null)
            {
                peer.settle();
            }
        }
        catch (final java.sql.SQLException ex)
        {
            out.println("  could not settle PostgreSQL: " + ex.getMessage());
        }
        System.gc();
    }

    private LoadSpec spec(final Scenario scenario, final int measuredSeconds, final int warmup, final int accountCount)
    {
        // A batch request carries batchSize transfers: fewer connections keep as many transfers in flight
        // without queueing 6,400 of them (64 x 100) behind each other, which only adds latency.
        final int clients = scenario == Scenario.BATCH ? batchConnections : connections;
        return new LoadSpec(scenario, Mode.CLOSED, clients, depth, 1, measuredSeconds, warmup, accountCount, batchSize, 16, true,
            checkSample, 10, clientThreads, seed);
    }

    /**
     * Tally's async force interval in a compare: the peer's WAL writer flushes every {@code wal_writer_delay} = 10 ms
     * ({@code BenchPostgres}), so Tally's journal is forced as often, and both lose about as much to a power loss.
     */
    static final long ASYNC_FORCE_INTERVAL_MS = 10;

    private InProcessServer.Settings tallySettings(final boolean sync, final List<LoadSpec> specs)
    {
        // Every run opens its own accounts: the warm-up run's, then each scenario's in each round.
        int accountsMax = 16 + Math.min(accounts, 10_000);
        for (final LoadSpec spec : specs)
        {
            accountsMax += rounds * spec.accounts();
        }
        return new InProcessServer.Settings(sync ? Durability.SYNC : Durability.ASYNC,
            WaitStrategyName.valueOf(tallyWaitStrategy.trim().toUpperCase(Locale.ROOT)), tallyIoThreads, 16_384, 100,
            tallyRetentionMs, accountsMax, accountsMax + LoadSpec.SUB_BALANCES_MAX * (rounds * specs.size() + 1), tallyKeysMax, null,
            onOff(tallyReadModel), ASYNC_FORCE_INTERVAL_MS, transport);
    }

    static boolean onOff(final String value)
    {
        if ("on".equalsIgnoreCase(value))
        {
            return true;
        }
        if ("off".equalsIgnoreCase(value))
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
