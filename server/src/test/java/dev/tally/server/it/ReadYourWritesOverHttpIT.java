package dev.tally.server.it;

import dev.tally.gateway.http.ApiKeys;
import dev.tally.gateway.http.HttpLimits;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Read-your-writes on the reads the PostgreSQL read model answers, over HTTP on one in-process server with its embedded
 * PostgreSQL: a transfer acknowledged, then at once listed ({@code GET /v1/accounts/{id}/transfers}, {@code GET
 * /v1/accounts}), paged ({@code /entries}), put in a statement or read at its journal index, is in the reply, also
 * while the writer is held back (a lock on the watermark's table, which every batch of the writer updates): the read
 * waits for it. Held back past 2 s, the read is a 503 with {@code Retry-After: 1}, counted in {@code /metrics}. Each
 * test has a tenant of its own, so the order they run in does not matter.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReadYourWritesOverHttpIT
{
    private static final String TRY = TallyClient.TRY;
    private static final String FRESH_KEY = "tenant-key-fresh";
    private static final String HELD_KEY = "tenant-key-held-back";
    private static final String BEHIND_KEY = "tenant-key-behind";
    /** How long a test holds the writer back before it lets go: well inside the 2 s a read waits. */
    private static final long HELD_BACK_MS = 400;

    @TempDir
    static Path dataDir;

    private TallyServer server;
    private TallyClient anonymous;

    @BeforeAll
    void startServer() throws Exception
    {
        final ApiKeys keys = ApiKeys.parse(List.of("fresh:" + FRESH_KEY, "held:" + HELD_KEY, "behind:" + BEHIND_KEY));
        server = Servers.start(new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, keys, Servers.IO_THREADS, LedgerConfig.small(),
            LedgerPipeline.PipelineConfig.defaults(), HttpLimits.defaults(), null, true));
        anonymous = new TallyClient(server.port(), null);
    }

    @AfterAll
    void stopServer()
    {
        if (server != null)
        {
            server.close();
        }
    }

    @Test
    void shouldShowEveryTransferAcknowledgedBeforeTheRead()
    {
        final TallyClient client = anonymous.withApiKey(FRESH_KEY);
        assertEquals(201, client.createAccount(1, TRY, false).status());
        assertEquals(201, client.createAccount(2, TRY, true).status());
        for (int i = 1; i <= 25; i++)
        {
            final String id = acknowledged(client.transfer("fresh-" + i, 1, 2, "1.00", TRY, null));
            final String posted = i + ".00";

            final Json transfers = ok(client.get("/v1/accounts/2/transfers?limit=1000")).get("transfers");
            assertEquals(i, transfers.size(), "transfer " + i + " listed at once");
            assertEquals(id, transfers.at(i - 1).get("transfer").get("id").text());
            final Json entries = ok(client.get("/v1/accounts/2/entries?limit=1000")).get("entries");
            assertEquals(id, entries.at(entries.size() - 1).get("transferId").text(), "its entry paged at once");
            assertEquals(posted, entries.at(entries.size() - 1).get("balanceAfter").text());
            final Json accounts = ok(client.get("/v1/accounts?after=1")).get("accounts");
            assertEquals(posted, accounts.at(0).get("posted").text(), "the balance listed at once");
            final long index = entries.at(entries.size() - 1).get("journalIndex").asLong();
            assertEquals(posted, ok(client.get("/v1/accounts/2?atIndex=" + index)).get("posted").text(),
                "the account at the transfer's journal index, read at once");
        }
    }

    @Test
    void shouldWaitForAWriterHeldBackAndAnswerWithTheTransfer() throws Exception
    {
        final TallyClient client = anonymous.withApiKey(HELD_KEY);
        assertEquals(201, client.createAccount(1, TRY, false).status());
        assertEquals(201, client.createAccount(2, TRY, true).status());
        final CompletableFuture<Reply> listing;
        final CompletableFuture<Reply> statement;
        final String id;
        final long startNs;
        try (Connection lock = holdTheWriterBack())
        {
            final Json transfer = created(client.transfer("held-1", 1, 2, "5.00", TRY, null));
            id = transfer.get("id").text();
            // a period that ends just before the transfer: the read model holds its end only once it has the transfer
            final String period = "?from=2000-01-01T00:00:00Z&to=" + java.time.Instant.parse(transfer.get("createdAt").text()).minusMillis(1);
            startNs = System.nanoTime();
            listing = CompletableFuture.supplyAsync(() -> client.get("/v1/accounts/2/transfers"));
            statement = CompletableFuture.supplyAsync(() -> client.get("/v1/accounts/2/statement" + period));
            Thread.sleep(HELD_BACK_MS);
            assertFalse(listing.isDone(), () -> "listed while the writer was held back: " + listing.join());
            assertFalse(statement.isDone(), () -> "a statement while the writer was held back: " + statement.join());
            lock.commit();   // the writer goes on
        }
        final Reply listed = listing.get(10, TimeUnit.SECONDS);
        final long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        assertEquals(id, ok(listed).get("transfers").at(0).get("transfer").get("id").text(), "the transfer, once the writer had it");
        assertTrue(waitedMs >= HELD_BACK_MS, "waited for the writer: " + waitedMs + " ms");
        final Reply stated = statement.get(10, TimeUnit.SECONDS);
        assertEquals(200, stated.status(), stated::toString);
        assertEquals("0.00", stated.json().get("closingBalance").text(), "the period ends before the transfer");
    }

    @Test
    void shouldAnswer503WithRetryAfterWhenTheWriterStaysBehindAndCountIt() throws Exception
    {
        final TallyClient client = anonymous.withApiKey(BEHIND_KEY);
        assertEquals(201, client.createAccount(1, TRY, false).status());
        assertEquals(201, client.createAccount(2, TRY, true).status());
        final double refusedBefore = refusedWriterBehind();
        try (Connection lock = holdTheWriterBack())
        {
            acknowledged(client.transfer("behind-1", 1, 2, "5.00", TRY, null));
            final long startNs = System.nanoTime();
            for (final String read : List.of("/v1/accounts/2/transfers", "/v1/accounts/2/entries", "/v1/accounts"))
            {
                final Reply refused = client.get(read);
                assertEquals(503, refused.status(), () -> read + ": " + refused);
                assertEquals("service-unavailable", refused.problemSlug());
                assertEquals("1", refused.header("Retry-After"), read);
                assertTrue(refused.json().get("detail").text().contains("has not reached the read model yet"), refused::toString);
            }
            final long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            assertTrue(waitedMs >= 3 * 1_900, "each waited its 2 s: " + waitedMs + " ms");
            lock.commit();
        }
        assertEquals(refusedBefore + 3, refusedWriterBehind(), "each 503 counted");
        assertEquals(1, ok(client.get("/v1/accounts/2/transfers")).get("transfers").size(), "once the writer is back");
    }

    /** @return a transaction that holds the writer back (its watermark UPDATE waits) until it commits or closes. */
    private Connection holdTheWriterBack() throws Exception
    {
        final Connection lock = server.readModel().database().dataSource().getConnection();
        lock.setAutoCommit(false);
        try (Statement statement = lock.createStatement())
        {
            statement.execute("LOCK TABLE ledger_watermark IN SHARE MODE");
        }
        return lock;
    }

    private double refusedWriterBehind()
    {
        final String metrics = anonymous.get("/metrics").body();
        return metrics.lines().filter(line -> line.startsWith("tally_pg_reads_refused_total{") && line.contains("reason=\"writer_behind\""))
            .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).findFirst()
            .orElseThrow(() -> new AssertionError("no tally_pg_reads_refused_total{reason=\"writer_behind\"} in /metrics"));
    }

    private static String acknowledged(final Reply reply)
    {
        return created(reply).get("id").text();
    }

    private static Json created(final Reply reply)
    {
        assertEquals(201, reply.status(), reply::toString);
        return reply.json();
    }

    private static Json ok(final Reply reply)
    {
        assertEquals(200, reply.status(), reply::toString);
        return reply.json();
    }
}
