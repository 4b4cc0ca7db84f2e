package dev.tally.server.it;

import dev.tally.gateway.http.HttpLimits;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.LedgerStats;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Memory is bounded by the tables' sizes, not by throughput × window (docs/ARCHITECTURE.md, "Bounded memory"): a
 * server whose keys, references and transfers tables hold 10,000 each, with day-long windows, takes five times that
 * many transfers over HTTP without refusing one for room, and what memory let go is still enforced from the cold
 * index: a retry of the first key replays its reply byte for byte, its reference stays taken, and the first transfer
 * can still be reversed, part by part, never beyond what is left. A restart replays the journal to the same state, and
 * all of that holds again; with and without the PostgreSQL read model.
 */
class BoundedMemoryIT
{
    private static final String TRY = TallyClient.TRY;
    private static final int TABLE = 10_000;
    /** Day-long windows: nothing leaves memory by time during the test, only for room. */
    private static final LedgerConfig SMALL_TABLES = new LedgerConfig(1_000, 4_000, TABLE, TABLE, TABLE, 1_000,
        LedgerConfig.DAY_MS, LedgerConfig.DAY_MS, LedgerConfig.DAY_MS, 1_000);
    private static final int BATCHES = 100;
    private static final int BATCH = 500;
    private static final long PAYER = 1;
    private static final long MERCHANT = 2;

    @TempDir
    Path dataDir;

    @ParameterizedTest(name = "read model {0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldTakeFiveTimesWhatMemoryHoldsAndStillEnforceWhatItLetGo(final boolean readModel) throws Exception
    {
        // sync: the cold index takes a unit once the journal holds it on stable storage, a batch after it is applied; under
        // async that waits for the timed force (200 ms), more than tables this small leave room for at this rate.
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, dataDir, Durability.SYNC, Servers.apiKeys(), Servers.IO_THREADS,
            SMALL_TABLES, Servers.withoutTicks(), HttpLimits.defaults(), null, readModel);
        final Reply first;
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
            for (int b = 0; b < BATCHES; b++)
            {
                refusals += sendUntilApplied(client, batchOf(b));
            }
            final LedgerStats stats = server.ledger().stats();
            assertTrue(stats.keysEvicted() >= BATCHES * BATCH - TABLE, "keys let go for room: " + stats.keysEvicted());
            assertTrue(stats.transfersEvicted() >= BATCHES * BATCH - TABLE, "transfers let go: " + stats.transfersEvicted());
            assertTrue(stats.referencesEvicted() >= BATCHES * BATCH - TABLE, "references let go: " + stats.referencesEvicted());
            assertTrue(stats.transferCount() <= TABLE && stats.idempotencyKeyCount() <= TABLE, "memory stays within its tables");
            assertTrue(refusals <= BATCHES, "a refusal now and then while the cold index catches up, not a stop: " + refusals);

            assertWhatMemoryLetGoIsEnforced(client, first, "before the restart");
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
            final Reply early = client.batch(batchOf(0));
            assertTrue(early.replayed(), "an early batch is answered from the cold index: " + early.status());
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
     * @return the refusals met.
     */
    private static int sendUntilApplied(final TallyClient client, final String batch) throws InterruptedException
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
                return attempt;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("a batch still refused after 200 attempts");
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
