package dev.tally.server.it;

import dev.tally.gateway.http.HttpLimits;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.pipeline.WaitStrategyName;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.journal.JournalReader;
import dev.tally.journal.ReplayResult;
import dev.tally.journal.ReplayStatus;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.LedgerLimits;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ring at its smallest (twice the largest batch) kept full by two connections sending the largest
 * batches, while ticks every millisecond and single reads take every slot left over.
 *
 * <p>Regression (issue 3, 3 of 14 load-generator setups): a stage publishes its progress at the end of
 * each Disruptor batch, which can fall in the middle of a request batch; the first half of that batch then
 * looked free to producers, a tick wrapped onto it, and the responder, rendering the batch reply at its
 * last slot, found a TICK among the operations and halted the pipeline. Before {@code WholeBatchGate}
 * this test halted in 2 runs of 2 (at 30 rounds); {@code WholeBatchGateTest} shows the mechanism
 * deterministically.
 */
class FullRingOfLargeBatchesIT
{
    private static final int BATCH = LedgerLimits.BATCH_OPERATIONS_MAX;
    private static final int BATCH_SENDERS = 2;
    private static final int ROUNDS = 20;
    private static final int RETRIES_MAX = 10_000;

    @TempDir
    Path dataDir;

    /** Both parking strategies: {@code WAKING} releases each stage's progress early, inside its last event of a batch. */
    @ParameterizedTest
    @EnumSource(value = WaitStrategyName.class, names = {"WAKING", "BACKOFF"})
    void shouldAnswerEveryLargeBatchWithoutHaltingWhileTheRingIsFull(final WaitStrategyName waitStrategy) throws Exception
    {
        final LedgerPipeline.PipelineConfig smallestRingFastTicks =
            new LedgerPipeline.PipelineConfig(Integer.highestOneBit(2 * BATCH - 1) << 1, waitStrategy, 1);
        final int accounts = BATCH_SENDERS * ROUNDS * BATCH + 1;
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, Servers.apiKeys(), Servers.IO_THREADS,
            LedgerConfig.small().withCapacity(accounts, accounts, accounts, 1_000, 1_000), smallestRingFastTicks, HttpLimits.defaults());
        try (TallyServer server = Servers.start(config))
        {
            final AtomicBoolean sending = new AtomicBoolean(true);
            final AtomicInteger batchesAnswered = new AtomicInteger();
            final AtomicInteger ringFull = new AtomicInteger();
            final ExecutorService pool = Executors.newFixedThreadPool(BATCH_SENDERS + 1);
            try
            {
                final List<Future<String>> senders = new ArrayList<>();
                for (int sender = 0; sender < BATCH_SENDERS; sender++)
                {
                    final int senderIndex = sender;
                    senders.add(pool.submit(() -> sendBatches(server, senderIndex, batchesAnswered, ringFull)));
                }
                final Future<Integer> reader = pool.submit(() -> readWhile(server, sending));
                for (final Future<String> sender : senders)
                {
                    assertEquals("", sender.get(120, TimeUnit.SECONDS));
                }
                sending.set(false);
                assertTrue(reader.get(30, TimeUnit.SECONDS) > 0, "the reader was served meanwhile");
            }
            finally
            {
                pool.shutdownNow();
            }

            assertFalse(server.health().isHalted(), () -> "pipeline halted: " + server.health().haltReason());
            assertTrue(server.health().isReady());
            assertEquals(BATCH_SENDERS * ROUNDS, batchesAnswered.get(), () -> ringFull + " ring-full 503s");
            assertEquals(200, Servers.client(server).account(BATCH_SENDERS * ROUNDS * (long)BATCH).status(), "the last account");
        }

        // Disruptor batches of thousands of commands, each appended as several journal documents of at most 64 KiB:
        // the journal holds every account creation, in one gap-free sequence (and the batches the cold index's lag bound
        // refused, journaled as refused: their retries are the creations)
        final AtomicLong created = new AtomicLong();
        try (JournalReader reader = JournalReader.open(config.journalDir()))
        {
            final ReplayResult replay = reader.replay(0, command ->
            {
                if (command.type == CommandType.CREATE_ACCOUNT && !command.coldUnchecked)
                {
                    created.incrementAndGet();
                }
            });
            assertEquals(ReplayStatus.COMPLETE, replay.status(), replay::toString);
        }
        assertEquals(BATCH_SENDERS * ROUNDS * (long)BATCH, created.get(), "account creations in the journal");
    }

    /** @return "" when every batch was applied (after refusals that apply nothing, and a retry), else what went wrong. */
    private static String sendBatches(
        final TallyServer server, final int sender, final AtomicInteger answered, final AtomicInteger ringFull) throws InterruptedException
    {
        final TallyClient client = Servers.client(server);
        for (int round = 0; round < ROUNDS; round++)
        {
            final String batch = accountsBatch(sender, round);
            Reply reply = client.batch(batch);
            for (int retry = 0; retry < RETRIES_MAX && refusedWhole(reply); retry++)
            {
                ringFull.incrementAndGet();
                Thread.sleep(1);
                reply = client.batch(batch);
            }
            if (reply.status() != 200)
            {
                return "sender " + sender + " round " + round + ": " + reply.status() + " " + reply.body();
            }
            final Json results = reply.json().get("results");
            if (results.size() != BATCH || results.at(BATCH - 1).get("status").asLong() != 201)
            {
                return "sender " + sender + " round " + round + ": unexpected results";
            }
            answered.incrementAndGet();
        }
        return "";
    }

    /**
     * @return true for a batch refused whole, applying nothing, to be sent again: the ring was full (503), or the cold
     *         index was further behind than its lag bound (each operation 503 {@code cold-index-unavailable}: async
     *         durability files into it only what a force made stable, and these batches outrun the 200 ms forces).
     */
    private static boolean refusedWhole(final Reply reply)
    {
        return reply.status() == 503 && reply.body().contains("ring is full") ||
            reply.status() == 200 && reply.body().contains("\"status\":503") && reply.body().contains("cold-index-unavailable") &&
            !reply.body().contains("\"status\":201");
    }

    private static int readWhile(final TallyServer server, final AtomicBoolean sending)
    {
        final TallyClient client = Servers.client(server);
        int reads = 0;
        while (sending.get())
        {
            final int status = client.account(1).status();
            if (status == 404 || status == 200 || status == 503)
            {
                reads++;
            }
        }
        return reads;
    }

    /** {@value #BATCH} account creations with ids no other sender or round uses. */
    private static String accountsBatch(final int sender, final int round)
    {
        final long firstId = 1 + ((long)sender * ROUNDS + round) * BATCH;
        final StringBuilder json = new StringBuilder(BATCH * 120).append("{\"operations\":[");
        for (int i = 0; i < BATCH; i++)
        {
            final long id = firstId + i;
            if (i > 0)
            {
                json.append(',');
            }
            json.append("{\"op\":\"account\",\"idempotencyKey\":\"acct-").append(id).append("\",\"body\":")
                .append(TallyClient.accountJson(id, TallyClient.TRY, true)).append('}');
        }
        return json.append("]}").toString();
    }
}
