package dev.tally.server.it;

import dev.tally.gateway.http.HttpLimits;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.LedgerStats;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Memory is bounded by the tables' sizes, not by throughput × window (docs/ARCHITECTURE.md, "Bounded memory"): a
 * server whose keys, references and transfers tables hold 20,000 each, with day-long windows, takes fifty times that
 * many transfers (1,000,000; 200,000 with the read model) over HTTP without refusing one for room, and what memory let go is still enforced from the cold
 * index: a retry of the first key replays its reply byte for byte, its reference stays taken (and finds the transfer), and
 * the first transfer can still be reversed, part by part, never beyond what is left. A restart replays the journal to the same state, and
 * all of that holds again; with and without the PostgreSQL read model.
 */
class BoundedMemoryIT
{
    private static final String TRY = TallyClient.TRY;
    private static final int TABLE = 20_000;
    /** Day-long windows: nothing leaves memory by time during the test, only for room. */
    private static final LedgerConfig SMALL_TABLES = new LedgerConfig(1_000, 4_000, TABLE, TABLE, TABLE, 1_000,
        LedgerConfig.DAY_MS, LedgerConfig.DAY_MS, LedgerConfig.DAY_MS, 1_000);
    /** 1,000,000 transfers without the read model (fifty times what each table holds); a fifth of that with it. */
    private static final int BATCHES = 1_000;
    private static final int BATCHES_WITH_READ_MODEL = 200;
    private static final int BATCH = 1_000;
    /** Batches whose replies are kept and retried once they left memory: spread over the run. */
    private static final List<Integer> RETRIED = List.of(0, 1, 137, 199, 811);
    private static final long PAYER = 1;
    private static final long MERCHANT = 2;

    @TempDir
    Path dataDir;

    @TempDir
    Path logDir;

    @ParameterizedTest(name = "read model {0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 480, unit = TimeUnit.SECONDS)
    void shouldTakeFiftyTimesWhatMemoryHoldsAndStillEnforceWhatItLetGo(final boolean readModel) throws Exception
    {
        // sync: the cold index takes a unit once the journal holds it on stable storage, a batch after it is applied; under
        // async that waits for the timed force (200 ms), more than tables this small leave room for at this rate.
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, dataDir, Durability.SYNC, Servers.apiKeys(), Servers.IO_THREADS,
            SMALL_TABLES, Servers.withoutTicks(), HttpLimits.defaults(), null, readModel);
        final Reply first;
        final Map<Integer, String> kept = new HashMap<>();
        final long hashAtStop;
        final String payerAtStop;
        final TallyServer server = Servers.start(config);
        try
        {
            final TallyClient client = Servers.client(server);
            assertEquals(201, client.createAccount(PAYER, TRY, false).status());
            assertEquals(201, client.createAccount(MERCHANT, TRY, true).status());
            first = client.transfer("first-pay", PAYER, MERCHANT, "10.00", TRY, "ref-first");
            assertEquals(201, first.status(), first::toString);

            int refusals = 0;
            final int batches = readModel ? BATCHES_WITH_READ_MODEL : BATCHES;
            for (int b = 0; b < batches; b++)
            {
                final Applied applied = sendUntilApplied(client, batchOf(b));
                refusals += applied.refusals();
                if (RETRIED.contains(b))
                {
                    kept.put(b, applied.reply().body());
                }
            }
            final LedgerStats stats = server.ledger().stats();
            assertTrue(stats.keysEvicted() >= batches * BATCH - TABLE, "keys let go for room: " + stats.keysEvicted());
            assertTrue(stats.transfersEvicted() >= batches * BATCH - TABLE, "transfers let go: " + stats.transfersEvicted());
            assertTrue(stats.referencesEvicted() >= batches * BATCH - TABLE, "references let go: " + stats.referencesEvicted());
            assertTrue(stats.transferCount() <= TABLE && stats.idempotencyKeyCount() <= TABLE, "memory stays within its tables");
            assertTrue(refusals <= batches / 10, "a refusal now and then while the cold index catches up, not a stop: " + refusals);

            assertWhatMemoryLetGoIsEnforced(client, first, "before the restart");
            for (final Map.Entry<Integer, String> batch : kept.entrySet())
            {
                final Reply again = client.batch(batchOf(batch.getKey()));
                assertEquals(batch.getValue(), withoutReplayedMarks(again.body()), "batch " + batch.getKey() + ", byte for byte");
                assertEquals(BATCH, again.body().split("\"replayed\":true", -1).length - 1, "every operation replayed");
            }
            payerAtStop = client.account(PAYER).body();
        }
        finally
        {
            server.close();
        }
        hashAtStop = server.ledger().stateHash();   // the business thread has stopped: this thread may read the ledger
        try (TallyServer restarted = Servers.start(config))
        {
            assertEquals(hashAtStop, restarted.ledger().stateHash(), "the replay rebuilds the same state");
            final TallyClient client = Servers.client(restarted);
            assertEquals(payerAtStop, client.account(PAYER).body());
            final Reply again = client.transfer("first-pay", PAYER, MERCHANT, "10.00", TRY, "ref-first");
            assertEquals(first.body(), again.body(), "still replayed byte for byte after the restart");
            assertTrue(again.replayed());
            final Reply reused = client.transfer("reuse-after-restart", PAYER, MERCHANT, "1.00", TRY, "ref-first");
            assertEquals(409, reused.status(), reused::toString);
            assertEquals("duplicate-reference", reused.problemSlug());
            for (final Map.Entry<Integer, String> batch : kept.entrySet())
            {
                final Reply replayedBatch = client.batch(batchOf(batch.getKey()));
                assertEquals(batch.getValue(), withoutReplayedMarks(replayedBatch.body()), "after the restart, batch " + batch.getKey());
            }
        }
    }

    /**
     * kill -9 while memory lets go: a real {@code tally serve} with small tables (sync, no read model: the cold index is
     * the only other home of what memory let go) takes batches from a client thread and is killed in the middle of them.
     * A new process on the same folder replays every acknowledged batch byte for byte (most of them from the cold
     * index), the batch in flight applies or replays once retried, and the merchant holds exactly what all of them sent.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldLoseNothingAcknowledgedWhenKilledWhileMemoryLetsGo() throws Exception
    {
        final List<String> smallTables = List.of("--accounts-max", "1000", "--sub-balances-max", "4000", "--keys-max", "" + TABLE,
            "--transfers-max", "" + TABLE, "--holds-max", "1000");
        final List<String> noReadModel = List.of("--no-read-model");
        final Map<Integer, String> acknowledged = new java.util.concurrent.ConcurrentHashMap<>();
        final java.util.concurrent.atomic.AtomicInteger sent = new java.util.concurrent.atomic.AtomicInteger();
        try (TallyProcess first = TallyProcess.startWithCapacities(dataDir, "sync", logDir.resolve("first.log"), smallTables, noReadModel))
        {
            final TallyClient client = first.client();
            assertEquals(201, client.createAccount(PAYER, TRY, false).status());
            assertEquals(201, client.createAccount(MERCHANT, TRY, true).status());
            final Thread sender = new Thread(() ->
            {
                try
                {
                    for (int b = 0; ; b++)
                    {
                        sent.set(b + 1);
                        acknowledged.put(b, sendUntilApplied(client, batchOf(b)).reply().body());
                    }
                }
                catch (final RuntimeException | InterruptedException ex)
                {
                    // the process died under the request: its outcome is unknown until it is retried
                }
            }, "bounded-memory-sender");
            sender.start();
            while (acknowledged.size() < 3 * TABLE / BATCH && sender.isAlive())
            {
                Thread.sleep(20);
            }
            first.kill();
            sender.join(30_000);
        }
        assertTrue(acknowledged.size() >= 3 * TABLE / BATCH, "enough acknowledged for memory to let most of it go");

        try (TallyProcess restarted = TallyProcess.startWithCapacities(dataDir, "sync", logDir.resolve("restart.log"), smallTables,
            noReadModel))
        {
            final TallyClient client = restarted.client();
            for (final Map.Entry<Integer, String> batch : acknowledged.entrySet())
            {
                final Reply again = client.batch(batchOf(batch.getKey()));
                assertEquals(batch.getValue(), withoutReplayedMarks(again.body()), "acknowledged batch " + batch.getKey());
            }
            for (int b = 0; b < sent.get(); b++)
            {
                if (!acknowledged.containsKey(b))
                {
                    sendUntilApplied(client, batchOf(b));   // the one in flight: applied by the journal or now, once
                }
            }
            final java.math.BigDecimal expected = new java.math.BigDecimal("0.01").multiply(java.math.BigDecimal.valueOf((long)sent.get() * BATCH));
            assertEquals(0, expected.compareTo(new java.math.BigDecimal(client.accountJson(MERCHANT).get("posted").text())),
                "the merchant holds every batch sent exactly once: " + client.accountJson(MERCHANT));
        }
    }

    /** A batch reply as first sent: a replay marks each operation {@code "replayed":true}, and is otherwise the same bytes. */
    private static String withoutReplayedMarks(final String batchReply)
    {
        return batchReply.replace("\"replayed\":true,", "");
    }

    /**
     * A transfer that left memory can be reversed inside the reversal window, and not at or after it: the window is
     * checked by journaled time wherever the transfer is.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldReverseAnEvictedTransferInsideItsWindowAndRefuseItAfter() throws Exception
    {
        final long windowMs = 10_000;
        final LedgerConfig shortReversals = SMALL_TABLES.withRetention(LedgerConfig.DAY_MS, LedgerConfig.DAY_MS, windowMs);
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, dataDir, Durability.SYNC, Servers.apiKeys(), Servers.IO_THREADS,
            shortReversals, Servers.withoutTicks(), HttpLimits.defaults(), null, false);
        try (TallyServer server = Servers.start(config))
        {
            final TallyClient client = Servers.client(server);
            assertEquals(201, client.createAccount(PAYER, TRY, false).status());
            assertEquals(201, client.createAccount(MERCHANT, TRY, true).status());
            final long sentNs = System.nanoTime();
            final String inside = client.transfer("inside", PAYER, MERCHANT, "3.00", TRY, null).json().get("id").text();
            final String after = client.transfer("after", PAYER, MERCHANT, "5.00", TRY, null).json().get("id").text();
            final long afterAppliedByNs = System.nanoTime();   // its journaled time is before this
            for (int b = 0; b < TABLE / BATCH + 1; b++)
            {
                sendUntilApplied(client, batchOf(b));
            }
            assertTrue(server.ledger().stats().transfersEvicted() >= 2, "both transfers left memory (the oldest leave first)");
            assertTrue(System.nanoTime() - sentNs < TimeUnit.MILLISECONDS.toNanos(windowMs) - TimeUnit.SECONDS.toNanos(1),
                "the machine is too slow for this window: " + (System.nanoTime() - sentNs) / 1_000_000 + " ms");
            final Reply reversed = client.post("/v1/transfers/" + inside + "/reversals", "reverse-inside", "");
            assertEquals(201, reversed.status(), reversed::toString);
            assertEquals("3.00", reversed.json().get("amount").text());

            Thread.sleep(Math.max(0, windowMs - (System.nanoTime() - afterAppliedByNs) / 1_000_000 + 500));
            final Reply late = client.post("/v1/transfers/" + after + "/reversals", "reverse-after", "");
            assertEquals(404, late.status(), late::toString);
            assertEquals("transfer-not-found", late.problemSlug());
            assertEquals(200, client.get("/v1/transfers/" + after).status(), "still found, for good");
        }
    }

    /** The first transfer, its key and its reference left memory long ago: all three are enforced from the cold index. */
    private static void assertWhatMemoryLetGoIsEnforced(final TallyClient client, final Reply first, final String when)
    {
        final Reply retried = client.transfer("first-pay", PAYER, MERCHANT, "10.00", TRY, "ref-first");
        assertEquals(201, retried.status(), when);
        assertTrue(retried.replayed(), when);
        assertEquals(first.body(), retried.body(), "the stored reply, byte for byte, " + when);

        final Reply reused = client.transfer("reuse-" + when.length(), PAYER, MERCHANT, "1.00", TRY, "ref-first");
        assertEquals(409, reused.status(), () -> when + ": " + reused);
        assertEquals("duplicate-reference", reused.problemSlug());
        final String firstId = first.json().get("id").text();
        assertTrue(reused.body().contains(firstId), "names the first transfer: " + reused.body());

        final Reply read = client.get("/v1/transfers/" + firstId);
        assertEquals(200, read.status(), () -> when + ": " + read);
        assertEquals("ref-first", read.json().get("reference").text(), read::toString);
        assertEquals("10.00", read.json().get("amount").text(), read::toString);
        // memory let the reference go too: PostgreSQL has it, or without a read model the cold index (by its digest)
        final Reply byReference = client.get("/v1/transfers?reference=ref-first");
        assertEquals(read.body(), byReference.body(), () -> "found by its reference, " + when);

        final String reversals = "/v1/transfers/" + firstId + "/reversals";
        final Reply part = client.post(reversals, "reverse-part", "{\"amount\":\"4.00\",\"currency\":\"TRY\"}");
        assertEquals(201, part.status(), () -> when + ": " + part);
        final Reply tooMuch = client.post(reversals, "reverse-too-much", "{\"amount\":\"6.01\",\"currency\":\"TRY\"}");
        assertEquals("reversal-exceeds-remaining", tooMuch.problemSlug(), () -> when + ": " + tooMuch);
        final Reply rest = client.post(reversals, "reverse-rest", "");
        assertEquals(201, rest.status(), () -> when + ": " + rest);
        assertEquals("6.00", rest.json().get("amount").text());
        final Reply nothingLeft = client.post(reversals, "reverse-nothing-left", "");
        assertEquals("reversal-exceeds-remaining", nothingLeft.problemSlug(), () -> when + ": " + nothingLeft);
    }

    /**
     * Sends a batch until every operation is applied: a 503 {@code cold-index-unavailable} (the cold index is further
     * behind than the lag bound) stores nothing, and the client retries with the same keys, as a client should.
     *
     * @return the reply that applied the last of them, and the refusals met before it.
     */
    private static Applied sendUntilApplied(final TallyClient client, final String batch) throws InterruptedException
    {
        for (int attempt = 0; attempt < 200; attempt++)
        {
            final Reply reply = client.batch(batch);
            assertEquals(200, reply.status(), reply::toString);
            final Json results = reply.json().get("results");
            int refused = 0;
            for (int i = 0; i < results.size(); i++)
            {
                final long status = results.at(i).get("status").asLong();
                if (status == 503)
                {
                    assertEquals(Reply.PROBLEM_PREFIX + "cold-index-unavailable", results.at(i).get("body").get("type").text());
                    refused++;
                }
                else
                {
                    assertEquals(201, status, () -> "operation refused for another reason: " + reply);
                }
            }
            if (refused == 0)
            {
                return new Applied(reply, attempt);
            }
            Thread.sleep(5);
        }
        throw new AssertionError("a batch still refused after 200 attempts");
    }

    private record Applied(Reply reply, int refusals)
    {
    }

    /** Batch {@code b}: {@value #BATCH} transfers of 0.01, each with its own key and reference. */
    private static String batchOf(final int b)
    {
        final StringBuilder json = new StringBuilder("{\"atomic\":false,\"operations\":[");
        for (int i = 0; i < BATCH; i++)
        {
            if (i > 0)
            {
                json.append(',');
            }
            json.append("{\"op\":\"transfer\",\"idempotencyKey\":\"pay-").append(b).append('-').append(i).append("\",\"body\":")
                .append(TallyClient.transferJson(PAYER, MERCHANT, "0.01", TRY, "inv-" + b + "-" + i)).append('}');
        }
        return json.append("]}").toString();
    }
}
