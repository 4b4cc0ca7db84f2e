package dev.tally.server.it;

import dev.tally.gateway.http.HttpLimits;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import dev.tally.persistence.outbox.RelayConfig;
import dev.tally.persistence.outbox.WebhookEndpoint;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code GET /metrics} of a real server exporting every meter it has (embedded PostgreSQL read model, snapshots, an
 * outbox relay whose webhook endpoint refuses connections), after {@link MetricsWorkload}. Taken once per test JVM:
 * the checks that read it ({@link MetricsExpositionIT}, {@link GrafanaDashboardIT}) share one PostgreSQL start.
 *
 * @param text            the scrape.
 * @param serverLifetimeS from just before the server was built to just after the scrape: no time of the server's is longer.
 */
record WorkloadScrape(String text, double serverLifetimeS)
{
    private static WorkloadScrape taken;

    /**
     * @param dataDir an empty folder the caller's test class owns, used by the first call only (the scrape outlives it).
     * @return the scrape, taken on the first call.
     */
    static synchronized WorkloadScrape get(final Path dataDir) throws Exception
    {
        if (taken == null)
        {
            taken = take(dataDir);
        }
        return taken;
    }

    private static WorkloadScrape take(final Path dataDir) throws Exception
    {
        final long startNs = System.nanoTime();
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, Servers.apiKeys(), Servers.IO_THREADS,
            LedgerConfig.small(), LedgerPipeline.PipelineConfig.defaults(), HttpLimits.defaults(), null, true)
            .withWebhooks(RelayConfig.defaults(List.of(WebhookEndpoint.of("http://127.0.0.1:" + closedPort() + "/hooks",
                "workload-scrape-webhook-secret"))));
        final String text;
        try (TallyServer server = Servers.start(config))
        {
            final TallyClient client = Servers.client(server);
            MetricsWorkload.run(client);
            text = client.get("/metrics").body();
        }
        return new WorkloadScrape(text, (System.nanoTime() - startNs) / 1e9);
    }

    private static int closedPort() throws IOException
    {
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return free.getLocalPort();   // nothing listens there once this closes: every delivery fails
        }
    }
}
