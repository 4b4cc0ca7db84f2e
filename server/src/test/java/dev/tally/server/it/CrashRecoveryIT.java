package dev.tally.server.it;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Crash recovery with a real process: {@code tally serve} runs in its own JVM, several client threads
 * fire transfers and atomic batches, and the process is SIGKILLed while they are in flight; twice, the
 * second time on a journal that already went through one crash. A new process on the same data folder
 * must then show:
 * <ol>
 *   <li>every acknowledged transfer, readable with the acknowledged amount and accounts;</li>
 *   <li>money conserved: posted balances over all accounts sum to zero, no constrained account below zero;</li>
 *   <li>a retry of every acknowledged key: the stored reply byte for byte, {@code Idempotent-Replayed: true},
 *   no new effect;</li>
 *   <li>exactly once across the crash: once the requests whose reply was lost are retried (each either
 *   replays or applies now; an atomic batch all or nothing), every balance equals the sum of the transfers
 *   that report 201.</li>
 * </ol>
 */
class CrashRecoveryIT
{
    private static final String TRY = TallyClient.TRY;
    private static final long FUNDING = 1;
    private static final long FIRST_CUSTOMER = 2;
    private static final int CUSTOMERS = 8;
    private static final int SINGLE_THREADS = 3;
    private static final int BATCH_SIZE = 10;
    /** Kill once this many replies are acknowledged: enough state to check, still short. */
    private static final int ACKS_BEFORE_KILL = 300;
    /** Kills in a row before the final check: the second one lands on a journal that already survived one. */
    private static final int CRASH_ROUNDS = 2;
    private static final long LOAD_TIMEOUT_MS = 60_000;
    private static final int REQUESTS_PER_THREAD_MAX = 100_000;

    @TempDir
    Path dataDir;

    @TempDir
    Path logDir;

    /** A request the client sent and whose reply it read: the server acknowledged this outcome. */
    private record Acknowledged(String key, String json, Reply reply)
    {
    }

    /** An atomic batch the server acknowledged, with the transfers it was built from. */
    private record AcknowledgedBatch(String json, List<String> keys, Reply reply)
    {
    }

    /** A request sent or about to be sent when the process died: its outcome is unknown. */
    private record Unknown(String key, String json, boolean batch)
    {
    }

    private final Queue<Acknowledged> acknowledged = new ConcurrentLinkedQueue<>();
    private final Queue<AcknowledgedBatch> acknowledgedBatches = new ConcurrentLinkedQueue<>();
    private final Queue<Unknown> unknown = new ConcurrentLinkedQueue<>();
    private final Queue<String> unexpected = new ConcurrentLinkedQueue<>();
    private final AtomicInteger ackCount = new AtomicInteger();
    private int journaledBeforeKill;

    @ParameterizedTest(name = "durability {0}")
    @ValueSource(strings = {"async", "sync"})
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void shouldKeepEveryAcknowledgedTransferAndConserveMoneyAfterSigkillUnderLoad(final String durability) throws Exception
    {
        for (int round = 0; round < CRASH_ROUNDS; round++)
        {
            try (TallyProcess process = TallyProcess.start(dataDir, durability, logDir.resolve("run-" + round + ".log")))
            {
                if (round == 0)
                {
                    openAccounts(process.client());
                }
                else
                {
                    assertMoneyConserved(readAccounts(process.client()));
                }
                final int unknownBefore = unknown.size();
                ackCount.set(0);
                final List<Thread> load = startLoad(process.client(), round);
                awaitAcks(process, load);

                process.kill();
                joinLoad(load);
                assertTrue(unexpected.isEmpty(), () -> "unexpected replies under load: " + unexpected);
                assertTrue(unknown.size() > unknownBefore, "the kill must land while requests are in flight");
            }
        }

        try (TallyProcess last = TallyProcess.start(dataDir, durability, logDir.resolve("last.log")))
        {
            final TallyClient client = last.client();
            final Map<Long, String> accountsAfterRestart = readAccounts(client);
            assertMoneyConserved(accountsAfterRestart);
            assertAcknowledgedTransfersReadable(client);
            assertAcknowledgedRetriesReplayWithoutEffect(client);
            assertEquals(accountsAfterRestart, readAccounts(client), "retries of acknowledged keys changed a balance");

            final List<Json> resolved = retryUnknown(client);
            assertBalancesAreTheSumOfCreatedTransfers(client, resolved);
            assertMoneyConserved(readAccounts(client));
            last.stop();

            // The read model converged to the journal across the kills: same balances, entries, transfers,
            // outbox rows, watermark at the journal's last index, no duplicate (ids are unique keys).
            final Path verifyLog = logDir.resolve("verify.log");
            final int verified = TallyProcess.verify(dataDir, verifyLog);
            assertEquals(0, verified, () -> "tally verify after the crashes:\n" + readLog(verifyLog));
            System.out.printf("crash (%s): %d SIGKILLs; %d single and %d batch replies acknowledged; %d requests in flight at a kill, " +
                "%d of them journaled before it%n", durability, CRASH_ROUNDS, acknowledged.size(), acknowledgedBatches.size(), unknown.size(),
                journaledBeforeKill);
        }
    }

    private static String readLog(final Path log)
    {
        try
        {
            return java.nio.file.Files.readString(log);
        }
        catch (final java.io.IOException ex)
        {
            return "(no log: " + ex + ")";
        }
    }

    // ---- load ----

    private static void openAccounts(final TallyClient client)
    {
        assertEquals(201, client.createAccount(FUNDING, TRY, false).status());
        for (long id = FIRST_CUSTOMER; id < FIRST_CUSTOMER + CUSTOMERS; id++)
        {
            final Reply reply = client.createAccount(id, TRY, true);
            assertEquals(201, reply.status(), reply::toString);
        }
    }

    private List<Thread> startLoad(final TallyClient client, final int round)
    {
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < SINGLE_THREADS; t++)
        {
            final String prefix = "single-" + round + "-" + t;
            final int seed = round * SINGLE_THREADS + t;
            threads.add(new Thread(() -> guarded(() -> singles(client, prefix, seed)), "load-" + prefix));
        }
        threads.add(new Thread(() -> guarded(() -> batches(client, "batch-" + round)), "load-batch-" + round));
        threads.forEach(Thread::start);
        return threads;
    }

    /** Runs a load loop; a failure inside it is recorded, never lost with the thread. */
    private void guarded(final Runnable loop)
    {
        try
        {
            loop.run();
        }
        catch (final RuntimeException | AssertionError e)
        {
            unexpected.add(Thread.currentThread().getName() + " failed: " + e);
        }
    }

    /** Single transfers until the server dies: mostly funding a customer, some between customers. */
    private void singles(final TallyClient client, final String keyPrefix, final int seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        for (int n = 0; n < REQUESTS_PER_THREAD_MAX; n++)
        {
            final String key = keyPrefix + "-" + n;
            final boolean betweenCustomers = random.nextInt(4) == 0;
            final long debit = betweenCustomers ? customer(random) : FUNDING;
            long credit = customer(random);
            credit = credit == debit ? FIRST_CUSTOMER + (credit - FIRST_CUSTOMER + 1) % CUSTOMERS : credit;
            final String json = TallyClient.transferJson(debit, credit, amount(random), TRY, "ref-" + key);
            final Reply reply;
            try
            {
                reply = client.post("/v1/transfers", key, json);
            }
            catch (final UncheckedIOException e)
            {
                unknown.add(new Unknown(key, json, false));
                return;
            }
            if (reply.status() == 201 || reply.status() == 422 && reply.problemSlug().equals("insufficient-funds"))
            {
                acknowledged.add(new Acknowledged(key, json, reply));
                ackCount.incrementAndGet();
            }
            else
            {
                unexpected.add(key + ": " + reply);
                return;
            }
        }
    }

    /** Atomic batches of transfers from the funding account (they always succeed) until the server dies. */
    private void batches(final TallyClient client, final String keyPrefix)
    {
        final SplittableRandom random = new SplittableRandom(keyPrefix.hashCode());
        for (int n = 0; n < REQUESTS_PER_THREAD_MAX; n++)
        {
            final List<String> keys = new ArrayList<>();
            final StringBuilder json = new StringBuilder("{\"atomic\":true,\"operations\":[");
            for (int i = 0; i < BATCH_SIZE; i++)
            {
                final String key = keyPrefix + "-" + n + "-" + i;
                keys.add(key);
                json.append(i == 0 ? "" : ",").append("{\"op\":\"transfer\",\"idempotencyKey\":\"").append(key).append("\",\"body\":")
                    .append(TallyClient.transferJson(FUNDING, customer(random), amount(random), TRY, "ref-" + key)).append('}');
            }
            json.append("]}");
            final Reply reply;
            try
            {
                reply = client.batch(json.toString());
            }
            catch (final UncheckedIOException e)
            {
                unknown.add(new Unknown(keyPrefix + "-" + n, json.toString(), true));
                return;
            }
            if (reply.status() != 200)
            {
                unexpected.add(keyPrefix + "-" + n + ": " + reply);
                return;
            }
            acknowledgedBatches.add(new AcknowledgedBatch(json.toString(), keys, reply));
            ackCount.addAndGet(BATCH_SIZE);
        }
    }

    private void awaitAcks(final TallyProcess process, final List<Thread> load) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LOAD_TIMEOUT_MS);
        while (ackCount.get() < ACKS_BEFORE_KILL)
        {
            if (System.nanoTime() > deadlineNs || load.stream().noneMatch(Thread::isAlive))
            {
                throw new AssertionError("only " + ackCount.get() + " acknowledged before the load stopped; unexpected " +
                    unexpected + "\n" + process.logTail());
            }
            Thread.sleep(5);
        }
        assertTrue(load.stream().allMatch(Thread::isAlive), "every load thread is still sending when the kill lands");
    }

    private static void joinLoad(final List<Thread> load) throws InterruptedException
    {
        for (final Thread thread : load)
        {
            thread.join(TallyClient.REQUEST_TIMEOUT.toMillis() + 5_000);
            assertFalse(thread.isAlive(), thread.getName() + " did not stop after the kill");
        }
    }

    // ---- checks ----

    private static Map<Long, String> readAccounts(final TallyClient client)
    {
        final Map<Long, String> bodies = new HashMap<>();
        for (long id = FUNDING; id < FIRST_CUSTOMER + CUSTOMERS; id++)
        {
            final Reply reply = client.account(id);
            assertEquals(200, reply.status(), () -> "account after restart: " + reply);
            bodies.put(reply.json().get("id").asId(), reply.body());
        }
        return bodies;
    }

    private static void assertMoneyConserved(final Map<Long, String> accounts)
    {
        long sumMinor = 0;
        for (final Map.Entry<Long, String> account : accounts.entrySet())
        {
            final Json json = Json.parse(account.getValue());
            final long postedMinor = minor(json.get("posted").text());
            sumMinor += postedMinor;
            if (account.getKey() != FUNDING)
            {
                assertTrue(minor(json.get("available").text()) >= 0, () -> "constrained account below zero: " + account.getValue());
            }
        }
        assertEquals(0, sumMinor, () -> "posted balances must sum to zero: " + accounts);
    }

    private void assertAcknowledgedTransfersReadable(final TallyClient client)
    {
        int checked = 0;
        for (final Acknowledged ack : acknowledged)
        {
            if (ack.reply().status() == 201)
            {
                assertTransferReadable(client, ack.key(), ack.reply().json());
                checked++;
            }
        }
        for (final AcknowledgedBatch batch : acknowledgedBatches)
        {
            final Json results = batch.reply().json().get("results");
            for (int i = 0; i < results.size(); i++)
            {
                assertEquals(201, results.at(i).get("status").asLong(), () -> "batch operation: " + batch.reply());
                assertTransferReadable(client, batch.keys().get(i), results.at(i).get("body"));
                checked++;
            }
        }
        assertTrue(checked > 0, "some acknowledged transfers were checked");
    }

    private static void assertTransferReadable(final TallyClient client, final String key, final Json acked)
    {
        final Reply read = client.transferById(acked.get("id").text());
        assertEquals(200, read.status(), () -> "acknowledged transfer " + key + " lost after the crash: " + read);
        final Json transfer = read.json();
        assertEquals(acked.get("amount").text(), transfer.get("amount").text(), key);
        assertEquals(acked.get("debitAccountId").asId(), transfer.get("debitAccountId").asId(), key);
        assertEquals(acked.get("creditAccountId").asId(), transfer.get("creditAccountId").asId(), key);
        assertEquals("ref-" + key, transfer.get("reference").text());
    }

    private void assertAcknowledgedRetriesReplayWithoutEffect(final TallyClient client)
    {
        for (final Acknowledged ack : acknowledged)
        {
            final Reply retry = client.post("/v1/transfers", ack.key(), ack.json());
            assertEquals(ack.reply().status(), retry.status(), () -> ack.key() + ": " + retry);
            assertTrue(retry.replayed(), () -> ack.key() + " retried after the crash is a replay: " + retry);
            assertEquals(ack.reply().body(), retry.body(), () -> ack.key() + " replays byte for byte");
        }
        for (final AcknowledgedBatch batch : acknowledgedBatches)
        {
            final Reply retry = client.batch(batch.json());
            assertEquals(200, retry.status(), retry::toString);
            assertTrue(retry.replayed(), () -> "acknowledged batch retried after the crash is a replay: " + retry);
            final Json before = batch.reply().json().get("results");
            final Json after = retry.json().get("results");
            for (int i = 0; i < before.size(); i++)
            {
                assertTrue(after.at(i).get("replayed").asBoolean());
                assertEquals(before.at(i).get("body").toString(), after.at(i).get("body").toString());
            }
        }
    }

    /**
     * Retries every request whose reply the crash swallowed. Each was either journaled before the kill
     * (the retry replays it) or not (the retry applies it now); an atomic batch is one or the other as a
     * whole.
     *
     * @return the body of every transfer among them that now reports 201.
     */
    private List<Json> retryUnknown(final TallyClient client)
    {
        final List<Json> created = new ArrayList<>();
        for (final Unknown request : unknown)
        {
            if (!request.batch())
            {
                final Reply reply = client.post("/v1/transfers", request.key(), request.json());
                assertTrue(reply.status() == 201 || reply.status() == 422, () -> request.key() + ": " + reply);
                journaledBeforeKill += reply.replayed() ? 1 : 0;
                if (reply.status() == 201)
                {
                    created.add(reply.json());
                }
                continue;
            }
            final Reply reply = client.batch(request.json());
            assertEquals(200, reply.status(), reply::toString);
            final Json results = reply.json().get("results");
            final boolean firstReplayed = results.at(0).has("replayed");
            for (int i = 0; i < results.size(); i++)
            {
                assertEquals(firstReplayed, results.at(i).has("replayed"),
                    () -> "an atomic batch cut by the crash is applied all or nothing: " + reply);
                assertEquals(201, results.at(i).get("status").asLong(), () -> "funding transfers always succeed: " + reply);
                journaledBeforeKill += firstReplayed && i == 0 ? 1 : 0;
                created.add(results.at(i).get("body"));
            }
        }
        return created;
    }

    private void assertBalancesAreTheSumOfCreatedTransfers(final TallyClient client, final List<Json> resolved)
    {
        final Map<Long, Long> expectedMinor = new HashMap<>();
        final List<Json> created = new ArrayList<>();
        for (final Acknowledged ack : acknowledged)
        {
            if (ack.reply().status() == 201)
            {
                created.add(ack.reply().json());
            }
        }
        for (final AcknowledgedBatch batch : acknowledgedBatches)
        {
            final Json results = batch.reply().json().get("results");
            for (int i = 0; i < results.size(); i++)
            {
                created.add(results.at(i).get("body"));
            }
        }
        created.addAll(resolved);
        for (final Json transfer : created)
        {
            final long amountMinor = minor(transfer.get("amount").text());
            expectedMinor.merge(transfer.get("debitAccountId").asId(), -amountMinor, Long::sum);
            expectedMinor.merge(transfer.get("creditAccountId").asId(), amountMinor, Long::sum);
        }
        for (long id = FUNDING; id < FIRST_CUSTOMER + CUSTOMERS; id++)
        {
            final long accountId = id;
            assertEquals(expectedMinor.getOrDefault(id, 0L).longValue(), minor(client.accountJson(id).get("posted").text()),
                () -> "account " + accountId + " posted must equal the sum of the " + created.size() + " transfers that report 201");
        }
    }

    // ---- helpers ----

    private static long customer(final SplittableRandom random)
    {
        return FIRST_CUSTOMER + random.nextInt(CUSTOMERS);
    }

    /** @return 1.00 to 50.99 */
    private static String amount(final SplittableRandom random)
    {
        return (1 + random.nextInt(50)) + "." + (10 + random.nextInt(90));
    }

    private static long minor(final String amount)
    {
        return new BigDecimal(amount).movePointRight(2).longValueExact();
    }
}
