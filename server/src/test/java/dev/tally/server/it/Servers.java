package dev.tally.server.it;

import dev.tally.gateway.http.ApiKeys;
import dev.tally.gateway.http.HttpLimits;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.pipeline.WaitStrategyName;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;

import java.nio.file.Path;
import java.util.List;

/**
 * Real {@link TallyServer}s for the in-process integration tests: loopback, a free port, a real
 * Chronicle journal in the given folder, small ledger tables, and two tenants.
 */
final class Servers
{
    static final String TENANT = "t";
    static final String TENANT_KEY = "tenant-key-1";
    static final String OTHER_TENANT = "u";
    static final String OTHER_TENANT_KEY = "tenant-key-2";
    /**
     * The ledger {@code TallyProcess.CAPACITIES} give {@code tally replay}, {@code verify} and {@code snapshot} ({@link TallyCli}):
     * a folder a server recorded other rules in refuses them.
     */
    static final LedgerConfig COMMAND_LINE_LEDGER = new LedgerConfig(1_000, 4_000, 200_000, 200_000, 200_000, 1_000,
        LedgerConfig.DAY_MS, LedgerConfig.DAY_MS, LedgerConfig.DAY_MS, 10_000);
    /** Two I/O threads on a two-core machine: enough for concurrent requests to really overlap on the server. */
    static final int IO_THREADS = 2;

    private Servers()
    {
    }

    /** The configuration every in-process test starts from. */
    static ServerConfig config(final Path dataDir)
    {
        return config(dataDir, Durability.ASYNC, HttpLimits.defaults(), LedgerPipeline.PipelineConfig.defaults());
    }

    static ServerConfig config(
        final Path dataDir, final Durability durability, final HttpLimits limits, final LedgerPipeline.PipelineConfig pipeline)
    {
        return new ServerConfig("127.0.0.1", 0, dataDir, durability, apiKeys(), IO_THREADS, LedgerConfig.small(), pipeline, limits);
    }

    /** The default configuration with other API keys. */
    static ServerConfig config(final Path dataDir, final ApiKeys keys)
    {
        return new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, keys, IO_THREADS, LedgerConfig.small(),
            LedgerPipeline.PipelineConfig.defaults(), HttpLimits.defaults());
    }

    /** A pipeline whose first tick comes after a minute: the journal then holds exactly what the test sent. */
    static LedgerPipeline.PipelineConfig withoutTicks()
    {
        return new LedgerPipeline.PipelineConfig(LedgerPipeline.RING_SIZE_DEFAULT, WaitStrategyName.BLOCKING, 60_000);
    }

    /** A server with its embedded PostgreSQL read model under {@code dataDir} and no ticks: the writer and outbox are real. */
    static TallyServer startWithReadModel(final Path dataDir) throws Exception
    {
        return new TallyServer(new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, apiKeys(), IO_THREADS, LedgerConfig.small(),
            withoutTicks(), HttpLimits.defaults(), null, true));
    }

    static TallyServer start(final Path dataDir) throws Exception
    {
        return new TallyServer(config(dataDir));
    }

    static TallyServer start(final ServerConfig config) throws Exception
    {
        return new TallyServer(config);
    }

    static ApiKeys apiKeys()
    {
        return ApiKeys.parse(List.of(TENANT + ":" + TENANT_KEY, OTHER_TENANT + ":" + OTHER_TENANT_KEY));
    }

    /** @return a client of tenant {@value #TENANT}. */
    static TallyClient client(final TallyServer server)
    {
        return new TallyClient(server.port(), TENANT_KEY);
    }
}
