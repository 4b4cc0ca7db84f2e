package dev.tally.server.it;

import dev.tally.gateway.http.HttpLimits;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.LedgerLimits;
import dev.tally.persistence.writer.WriterConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Back-pressure from PostgreSQL, over HTTP on an in-process server with its embedded PostgreSQL: with the writer stalled
 * (a lock on the watermark row's table, which every batch of the writer updates) and more journal commands than its lag
 * bound ({@link WriterConfig#defaults()}: 100,000, not configurable from the server) recorded past its watermark, writes
 * are refused with 503 and {@code Retry-After}, {@code /ready} says 503, reads and {@code /health} still answer; once the
 * writer catches up, writes are accepted again.
 */
class WriterLagOverHttpIT
{
    private static final String TRY = TallyClient.TRY;
    private static final int BATCH = LedgerLimits.BATCH_OPERATIONS_MAX;
    private static final long LAG_BOUND = WriterConfig.defaults().lagBoundCommands();
    /** Batches needed to pass the bound, and a margin. */
    private static final int BATCHES_MAX = (int)(LAG_BOUND / BATCH) + 3;
    private static final long CATCH_UP_MS = 30_000;

    @TempDir
    Path dataDir;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldRefuseWritesWhileTheWriterLagsPastItsBoundAndAcceptThemOnceItCatchesUp() throws Exception
    {
        // idempotency keys for every command of the burst; each is a cheap journaled refusal (no such accounts), so the
        // writer has little but its watermark to catch up on
        final LedgerConfig ledger = LedgerConfig.small().withCapacity(1_000, 4_000, (BATCHES_MAX + 1) * BATCH, 1_000, 1_000);
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, Servers.apiKeys(), Servers.IO_THREADS,
            ledger, Servers.withoutTicks(), HttpLimits.defaults(), null, true);
        try (TallyServer server = new TallyServer(config))
        {
            final TallyClient client = Servers.client(server);
            assertEquals(201, client.createAccount(1, TRY, false).status());
            assertEquals(200, client.get("/ready").status());

            try (Connection lock = server.readModel().database().dataSource().getConnection();
                 Statement statement = lock.createStatement())
            {
                lock.setAutoCommit(false);
                statement.execute("LOCK TABLE ledger_watermark IN SHARE MODE");   // the writer's watermark UPDATE waits

                int admitted = 0;
                Reply refused = null;
                while (refused == null && admitted < BATCHES_MAX)
                {
                    final Reply reply = client.batch(refusedTransfers(admitted));
                    if (reply.status() == 200)
                    {
                        admitted++;
                    }
                    else
                    {
                        refused = reply;
                    }
                }
                assertTrue(refused != null, "no batch refused after " + admitted + " of " + BATCH + " commands each");
                assertTrue((long)admitted * BATCH >= LAG_BOUND, "admitted while under the bound: " + admitted + " batches");
                assertWriterLagging(refused);
                assertWriterLagging(client.createAccount(2, TRY, false));
                assertWriterLagging(client.transfer("lagging-transfer", 1, 1, "1.00", TRY, null));
                final Reply notReady = client.get("/ready");
                assertEquals(503, notReady.status(), "not ready while the writer lags");
                assertTrue(notReady.body().contains("PostgreSQL writer is behind"), "and /ready says why: " + notReady.body());
                assertEquals(200, client.get("/health").status());
                assertEquals(200, client.account(1).status(), "reads still work");
                final double refusals = TallyProcess.gauge(client.get("/metrics").body(), "tally_pg_writer_refusals_total");
                assertTrue(refusals >= 3, "every refusal counted: " + refusals);
                lock.rollback();
            }

            final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CATCH_UP_MS);
            while (client.get("/ready").status() != 200)
            {
                assertTrue(System.nanoTime() < deadlineNs, "the writer caught up within " + CATCH_UP_MS + " ms");
                Thread.sleep(50);
            }
            final Reply accepted = client.createAccount(2, TRY, false);
            assertEquals(201, accepted.status(), () -> "writes are accepted again: " + accepted);
        }
    }

    private static void assertWriterLagging(final Reply reply)
    {
        assertEquals(503, reply.status(), reply::toString);
        assertEquals("service-unavailable", reply.problemSlug());
        assertTrue(reply.json().get("detail").text().contains("PostgreSQL writer"), reply::toString);
        assertEquals("1", reply.header("Retry-After"), reply::toString);
    }

    /** {@value #BATCH} transfers between accounts that do not exist: journaled commands, each refused with a 422. */
    private static String refusedTransfers(final int batch)
    {
        final StringBuilder json = new StringBuilder(BATCH * 140).append("{\"operations\":[");
        for (int i = 0; i < BATCH; i++)
        {
            json.append(i == 0 ? "" : ",").append("{\"op\":\"transfer\",\"idempotencyKey\":\"b").append(batch).append('-').append(i)
                .append("\",\"body\":").append(TallyClient.transferJson(900_001, 900_002, "1.00", TRY, null)).append('}');
        }
        return json.append("]}").toString();
    }
}
