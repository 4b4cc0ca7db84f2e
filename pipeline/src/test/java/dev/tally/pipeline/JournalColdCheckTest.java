package dev.tally.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.tally.journal.Durability;
import dev.tally.journal.Journal;
import dev.tally.journal.JournalConfig;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.cold.ColdAsks;
import dev.tally.ledger.cold.ColdSource;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.id.Uuid7;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal stage's side of the cold index, read back from a real journal on disk: every command carries the
 * watermark its batch read and what the cold index held for it; a request that would run past the lag bound is refused
 * whole; a failed lookup refuses its command and, without asking, the commands of the pause after it. (The cold index
 * here answers from arrays; the RocksDB one is the coldindex module's, and BoundedMemoryIT runs both over HTTP.)
 */
@Timeout(30)
class JournalColdCheckTest
{
    private static final long T0 = 1_767_225_600_000_000_000L;

    @TempDir
    Path dir;

    /** Holds key 100, reference 200 (transfer 3) and transfer 2; throws while {@link #failing}; counts the calls. */
    private static final class ColdIndexOfThree implements ColdSource
    {
        final AtomicInteger calls = new AtomicInteger();
        volatile boolean failing;

        @Override
        public boolean findKey(final long digestHi, final long digestLo, final long[] into)
        {
            answer();
            if (digestLo != 100)
            {
                return false;
            }
            Arrays.fill(into, 100);
            return true;
        }

        @Override
        public boolean findReference(final long digestHi, final long digestLo, final long[] into)
        {
            answer();
            if (digestLo != 200)
            {
                return false;
            }
            into[0] = 3;
            into[1] = T0 + 3;
            return true;
        }

        @Override
        public int findTransferReference(final long journalIndex, final byte[] into)
        {
            return 0;
        }

        @Override
        public boolean findTransfer(final long journalIndex, final long[] into)
        {
            answer();
            if (journalIndex != 2)
            {
                return false;
            }
            Arrays.fill(into, 2);
            return true;
        }

        /** The low digests of every key and reference prefetched, one list per prefetch. */
        final List<List<Long>> prefetches = new ArrayList<>();

        @Override
        public void prefetch(final ColdAsks asks)
        {
            final List<Long> asked = new ArrayList<>();
            for (int i = 0; i < asks.keyCount(); i++)
            {
                asked.add(asks.keyLo(i));
            }
            for (int i = 0; i < asks.referenceCount(); i++)
            {
                asked.add(asks.referenceLo(i));
            }
            prefetches.add(asked);
        }

        private void answer()
        {
            calls.incrementAndGet();
            if (failing)
            {
                throw new IllegalStateException("the cold index does not answer");
            }
        }
    }

    @Test
    void shouldJournalTheBatchWatermarkAndWhatTheColdIndexHolds() throws Exception
    {
        final ColdIndexOfThree cold = new ColdIndexOfThree();
        final List<Command> journaled = run(new ColdCheck(() -> 5, cold, 1_000), List.<Command[]>of(new Command[] {
            transfer(100, 0), transfer(101, 200), transfer(102, 201), reversal(103, 2), reversal(104, 9)}));

        assertEquals(5, journaled.size());
        for (final Command c : journaled)
        {
            assertEquals(5, c.coldWatermark, "the watermark the batch read, on every command");
            assertFalse(c.coldUnchecked);
        }
        assertTrue(journaled.get(0).coldKeyFound);
        final long[] key = new long[LedgerLimits.COLD_KEY_LONGS];
        Arrays.fill(key, 100);
        assertArrayEquals(key, journaled.get(0).coldKey);
        assertFalse(journaled.get(1).coldKeyFound);

        assertTrue(journaled.get(1).referenceTaken, "the reference a filed transfer holds");
        assertEquals(Uuid7.hi(T0 + 3, Uuid7.KIND_TRANSFER), journaled.get(1).targetIdHi, "with the holder's id");
        assertEquals(Uuid7.lo(3, 0), journaled.get(1).targetIdLo);
        assertFalse(journaled.get(2).referenceTaken);

        assertTrue(journaled.get(3).coldTransferFound, "the reversed transfer, filed at or below the watermark");
        assertEquals(2, journaled.get(3).coldTransfer[0]);
        assertFalse(journaled.get(4).coldTransferFound, "above the watermark: in memory still, not asked");
    }

    /** One prefetch per batch, after its watermark was read, asks every key and reference its lookups will ask. */
    @Test
    void shouldPrefetchABatchsKeysAndReferencesTogether() throws Exception
    {
        final ColdIndexOfThree cold = new ColdIndexOfThree();
        run(new ColdCheck(() -> 5, cold, 1_000), List.<Command[]>of(new Command[] {
            transfer(100, 0), transfer(101, 200), transfer(102, 201), reversal(103, 2)}, new Command[] {transfer(104, 0)}));

        assertEquals(List.of(List.of(100L, 101L, 102L, 103L, 200L, 201L), List.of(104L)), cold.prefetches,
            "keys, then references, in the order the lookups ask");
    }

    @Test
    void shouldRefuseAWholeRequestThatWouldRunPastTheLagBound() throws Exception
    {
        final AtomicLong watermark = new AtomicLong(1);
        final ColdIndexOfThree cold = new ColdIndexOfThree();
        final Command[] first = {transfer(1, 0), transfer(2, 0)};                     // indexes 1, 2: within 1 + 3
        final Command[] second = {transfer(3, 0), transfer(4, 0), transfer(5, 0)};    // 3 to 5: 5 - 1 > 3, all refused
        final Command[] third = {transfer(6, 0), transfer(7, 0)};                     // 6, 7: 7 - 4 = 3, once caught up
        final List<Command> journaled = run(new ColdCheck(watermark::get, cold, 3), List.of(first, second), () -> watermark.set(4),
            List.<Command[]>of(third));

        assertEquals(7, journaled.size());
        for (int i = 0; i < 7; i++)
        {
            assertEquals(i >= 2 && i <= 4, journaled.get(i).coldUnchecked, "command " + (i + 1));
        }
        assertEquals(4, journaled.get(5).coldWatermark);
    }

    @Test
    void shouldRefuseWithoutAskingDuringThePauseAfterAFailedLookup() throws Exception
    {
        final ColdIndexOfThree cold = new ColdIndexOfThree();
        cold.failing = true;
        final List<Command> journaled = run(new ColdCheck(() -> 5, cold, 1_000),
            List.of(new Command[] {transfer(1, 200)}, new Command[] {transfer(2, 0), transfer(3, 0)}));

        assertEquals(1, cold.calls.get(), "asked once; the commands after it, inside the pause, are not asked");
        assertEquals(List.of(List.of(1L, 200L), List.<Long>of()), cold.prefetches,
            "inside the pause the prefetch asks nothing, and so drops the answers read before an older watermark");
        for (final Command c : journaled)
        {
            assertTrue(c.coldUnchecked, "refused: the ledger cannot know what the cold index would have said");
            assertFalse(c.referenceTaken || c.coldKeyFound);
        }
    }

    private List<Command> run(final ColdCheck check, final List<Command[]> requests) throws Exception
    {
        return run(check, requests, () -> { }, List.of());
    }

    /** Publishes each request (waiting until the one before is journaled), runs {@code between}, then the rest. */
    private List<Command> run(final ColdCheck check, final List<Command[]> before, final Runnable between, final List<Command[]> after)
        throws Exception
    {
        final List<Command> journaled = new ArrayList<>();
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.SYNC)))
        {
            final ResponderStage noReplies = (event, sequence, endOfBatch) -> { };
            try (LedgerPipeline pipeline = new LedgerPipeline(new Ledger(LedgerConfig.small()), journal, ring -> noReplies,
                List.of(UnitListener.NONE), new LedgerPipeline.PipelineConfig(LedgerPipeline.RING_SIZE_DEFAULT, WaitStrategyName.WAKING, 60_000),
                new PipelineHealth(), StageMeters.NONE, check))
            {
                long expected = 0;
                for (final Command[] request : before)
                {
                    expected = publishAndAwait(pipeline.ring(), journal, request, expected);
                }
                between.run();
                for (final Command[] request : after)
                {
                    expected = publishAndAwait(pipeline.ring(), journal, request, expected);
                }
                assertFalse(pipeline.health().isHalted());
            }
            journal.replay(0, command -> journaled.add(new Command().copyFrom(command)));
        }
        return journaled;
    }

    private static long publishAndAwait(final InputRing ring, final Journal journal, final Command[] request, final long before)
        throws InterruptedException
    {
        final long last = ring.claim(request.length);
        final long first = last - (request.length - 1);
        for (int i = 0; i < request.length; i++)
        {
            request[i].batchSize = request.length;
            request[i].batchPosition = i;
            ring.slot(first + i).reset(request[i]);
        }
        ring.publish(first, last);
        final long expected = before + request.length;
        for (int i = 0; i < 500 && journal.lastIndex() < expected; i++)
        {
            Thread.sleep(10);
        }
        return expected;
    }

    /** A transfer under key digest {@code key}, with reference digest {@code reference} (0: none). */
    private static Command transfer(final long key, final long reference)
    {
        final Command c = new Command().reset(CommandType.TRANSFER);
        c.tenantId = 1;
        c.keyHi = 7;
        c.keyLo = key;
        c.debitAccountId = 1;
        c.creditAccountId = 2;
        c.amountMinor = 100;
        c.referenceHi = reference == 0 ? 0 : 31;
        c.referenceLo = reference;
        return c;
    }

    /** A reversal of the transfer journaled at {@code original}. */
    private static Command reversal(final long key, final long original)
    {
        final Command c = new Command().reset(CommandType.REVERSE_TRANSFER);
        c.tenantId = 1;
        c.keyHi = 7;
        c.keyLo = key;
        c.targetIdHi = Uuid7.hi(T0, Uuid7.KIND_TRANSFER);
        c.targetIdLo = Uuid7.lo(original, 0);
        return c;
    }
}
