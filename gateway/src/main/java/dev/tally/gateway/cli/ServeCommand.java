package dev.tally.gateway.cli;

import dev.tally.gateway.http.ApiKeys;
import dev.tally.gateway.http.HttpLimits;
import dev.tally.gateway.pipeline.LedgerPipeline;
import dev.tally.gateway.pipeline.WaitStrategyName;
import dev.tally.gateway.server.ServerConfig;
import dev.tally.gateway.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;

/** {@code tally serve}: starts the server and runs until SIGTERM / Ctrl-C. */
@CommandLine.Command(name = "serve", mixinStandardHelpOptions = true, description = "Start the Tally server.")
public final class ServeCommand implements Callable<Integer>
{
    @CommandLine.Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to bind (default: ${DEFAULT-VALUE}).")
    String host;

    @CommandLine.Option(names = "--port", defaultValue = "8080", description = "HTTP port; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @CommandLine.Option(names = "--data-dir", defaultValue = "data", description = "Folder for the journal (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @CommandLine.Option(names = "--api-key", required = true, description = "TENANT:KEY, repeatable. The key is never logged.")
    List<String> apiKeys = new ArrayList<>();

    @CommandLine.Option(names = "--durability", defaultValue = "async",
        description = "async: survives a process crash; sync: forced to disk before replies, survives power loss (default: ${DEFAULT-VALUE}).")
    String durability;

    @CommandLine.Option(names = "--db-url", description = "PostgreSQL JDBC URL of the read model (absent: embedded PostgreSQL under the data folder).")
    String dbUrl;

    @CommandLine.Option(names = "--no-read-model", description = "Run without PostgreSQL (no entry history, no outbox): the journal alone.")
    boolean noReadModel;

    @CommandLine.Option(names = "--io-threads", defaultValue = "1", description = "Netty I/O threads (default: ${DEFAULT-VALUE}).")
    int ioThreads;

    @CommandLine.Option(names = "--ring-size", defaultValue = "16384", description = "Input ring slots, a power of two (default: ${DEFAULT-VALUE}).")
    int ringSize;

    @CommandLine.Option(names = "--wait-strategy", defaultValue = "backoff",
        description = "backoff, sleeping, blocking, yielding or busy_spin (default: ${DEFAULT-VALUE}; spinning needs a core per stage).")
    String waitStrategy;

    @CommandLine.Option(names = "--tick-interval-ms", defaultValue = "1000", description = "Journaled tick period (default: ${DEFAULT-VALUE}).")
    long tickIntervalMs;

    @CommandLine.Mixin
    LedgerOptions ledgerOptions = new LedgerOptions();

    @CommandLine.Mixin
    SnapshotOptions snapshotOptions = new SnapshotOptions();

    @CommandLine.Option(names = "--body-limit-bytes", defaultValue = "4194304", description = "Largest request body (default: ${DEFAULT-VALUE}).")
    int bodyLimitBytes;

    @CommandLine.Option(names = "--idle-timeout-ms", defaultValue = "60000", description = "Idle connection timeout (default: ${DEFAULT-VALUE}).")
    long idleTimeoutMs;

    @CommandLine.Option(names = "--connections-max", defaultValue = "10000", description = "Open connections (default: ${DEFAULT-VALUE}).")
    int connectionsMax;

    @Override
    public Integer call() throws Exception
    {
        final LedgerConfig ledger = ledgerOptions.toConfig();
        final HttpLimits limits = new HttpLimits(bodyLimitBytes, 16 * 1024, 4 * 1024, connectionsMax, idleTimeoutMs);
        final ServerConfig config = new ServerConfig(host, port, dataDir, Durability.valueOf(durability.toUpperCase(java.util.Locale.ROOT)),
            ApiKeys.parse(apiKeys), ioThreads, ledger,
            new LedgerPipeline.PipelineConfig(ringSize, WaitStrategyName.valueOf(waitStrategy.toUpperCase(java.util.Locale.ROOT)), tickIntervalMs),
            limits, dbUrl, !noReadModel);
        final CountDownLatch stopped = new CountDownLatch(1);
        final TallyServer server = new TallyServer(config, snapshotOptions.toConfig());
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            server.close();
            stopped.countDown();
        }, "tally-shutdown"));
        System.out.println("tally listening on http://" + host + ":" + server.port() + " (durability " + durability + ")");
        stopped.await();
        return 0;
    }
}
