package dev.tally.perf.load;

import dev.tally.pipeline.LedgerPipeline;
import dev.tally.pipeline.WaitStrategyName;
import dev.tally.journal.Durability;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/**
 * {@code bench}: starts a Tally server in this process on a free loopback port and runs the scenarios
 * against it, one after another on the same server, so one command produces the figures.
 */
@CommandLine.Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Start a TallyServer in-process (temporary data folder, free loopback port) and run the scenarios against it.")
final class BenchCommand implements Callable<Integer>
{
    @CommandLine.Mixin
    LoadOptions load = new LoadOptions();

    @CommandLine.Option(names = "--durability", defaultValue = "async", description = "async or sync (default: ${DEFAULT-VALUE}).")
    String durability;

    @CommandLine.Option(names = "--wait-strategy",
        description = "The pipeline's wait strategy, e.g. backoff, blocking, sleeping, yielding (default: the server's default).")
    String waitStrategy;

    @CommandLine.Option(names = "--io-threads", defaultValue = "1", description = "Server Netty I/O threads (default: ${DEFAULT-VALUE}).")
    int ioThreads;

    @CommandLine.Option(names = "--ring-size", defaultValue = "16384", description = "Server input ring slots (default: ${DEFAULT-VALUE}).")
    int ringSize;

    @CommandLine.Option(names = "--tick-interval-ms", defaultValue = "100", description = "Server journaled tick period (default: ${DEFAULT-VALUE}).")
    long tickIntervalMs;

    @CommandLine.Option(names = "--retention-ms", defaultValue = "5000",
        description = "Server key/transfer retention; the tables must hold rate x retention (default: ${DEFAULT-VALUE}).")
    long retentionMs;

    @CommandLine.Option(names = "--keys-max", defaultValue = "6000000",
        description = "Server idempotency keys and transfers kept (default: ${DEFAULT-VALUE}, about 2.4 GB of heap).")
    int keysMax;

    @CommandLine.Option(names = "--data-dir", description = "Server data folder (default: a temporary folder, deleted afterwards).")
    Path dataDir;

    @Override
    public Integer call() throws Exception
    {
        final List<LoadSpec> specs = load.specs();
        int accountsMax = 16;
        for (final LoadSpec spec : specs)
        {
            accountsMax += spec.accounts();
        }
        final InProcessServer.Settings settings = new InProcessServer.Settings(
            Durability.valueOf(durability.toUpperCase(Locale.ROOT)), waitStrategy == null ?
                LedgerPipeline.PipelineConfig.defaults().waitStrategy() : WaitStrategyName.valueOf(waitStrategy.toUpperCase(Locale.ROOT)),
            ioThreads, ringSize, tickIntervalMs, retentionMs, accountsMax, accountsMax + LoadSpec.SUB_BALANCES_MAX * specs.size(), keysMax,
            dataDir, false, dev.tally.journal.JournalConfig.ASYNC_FORCE_INTERVAL_MS_DEFAULT, load.transport);
        System.out.println(InProcessServer.describe(settings));
        final List<ScenarioRun.Outcome> outcomes = new ArrayList<>();
        try (InProcessServer server = new InProcessServer(settings))
        {
            System.out.println("server data in " + server.dataDir() + ", port " + server.target().port());
            for (final LoadSpec spec : specs)
            {
                outcomes.add(ScenarioRun.run(spec, server.target(), load.resultsDir(), durability.toLowerCase(Locale.ROOT), System.out));
            }
        }
        return LoadMain.summarise(outcomes, System.out);
    }
}
