package dev.tally.gateway.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.RingBuffer;
import dev.tally.journal.Durability;
import dev.tally.journal.Journal;
import dev.tally.journal.JournalConfig;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journaler asks its {@link ReferenceCheck} about the referenced transfers of a batch before journaling
 * them, once for the whole batch, retries a failed check, and journals the answer: read back from the real
 * journal on disk. (The check here answers from a list; the PostgreSQL one is {@code OldReferenceOverHttpIT}'s.)
 */
@Timeout(30)
class JournalReferenceCheckTest
{
    @TempDir
    Path dir;

    /** Marks references starting with "old-"; fails its first call; records the size of every call. */
    private static final class OldReferences implements ReferenceCheck
    {
        final List<Integer> calls = new ArrayList<>();

        @Override
        public void markTaken(final Command[] transfers, final int count) throws Exception
        {
            calls.add(count);
            if (calls.size() == 1)
            {
                throw new java.sql.SQLException("first call fails");
            }
            for (int i = 0; i < count; i++)
            {
                if (new String(transfers[i].reference, 0, transfers[i].referenceLength, StandardCharsets.US_ASCII).startsWith("old-"))
                {
                    transfers[i].referenceTaken = true;
                    transfers[i].targetIdHi = 1_000 + i;
                    transfers[i].targetIdLo = 2_000 + i;
                }
            }
        }
    }

    @Test
    void shouldAskOnceABatchRetryAndJournalTheAnswer() throws Exception
    {
        final String[] references = {"old-1", "new-1", null, "old-2", "new-2"};
        final OldReferences check = new OldReferences();
        final Map<String, Command> journaled = new TreeMap<>();
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.SYNC)))
        {
            final EventHandler<LedgerEvent> noReplies = (event, sequence, endOfBatch) -> { };
            try (LedgerPipeline pipeline = new LedgerPipeline(new Ledger(LedgerConfig.small()), journal, ring -> noReplies,
                UnitListener.NONE, new LedgerPipeline.PipelineConfig(LedgerPipeline.RING_SIZE_DEFAULT, WaitStrategyName.WAKING, 60_000),
                new PipelineHealth(), StageMeters.NONE, check))
            {
                publishBatch(pipeline.ring(), references);
                for (int i = 0; i < 500 && journal.lastIndex() < references.length; i++)
                {
                    Thread.sleep(10);
                }
                assertFalse(pipeline.health().isHalted());
            }
            journal.replay(0, command -> journaled.put(command.referenceLength == 0 ? "none" :
                new String(command.reference, 0, command.referenceLength, StandardCharsets.US_ASCII), new Command().copyFrom(command)));
        }

        assertEquals(List.of(4, 4), check.calls, "one call for the batch's four referenced transfers, then one retry");
        assertEquals(5, journaled.size());
        for (final Map.Entry<String, Command> e : journaled.entrySet())
        {
            assertEquals(e.getKey().startsWith("old-"), e.getValue().referenceTaken, e.getKey());
        }
        assertTrue(journaled.get("old-2").targetIdHi >= 1_000, "the stored transfer's id is journaled with the flag");
        assertEquals(0, journaled.get("new-1").targetIdHi);
    }

    private static void publishBatch(final RingBuffer<LedgerEvent> ring, final String[] references)
    {
        final Command command = new Command();
        final long last = ring.next(references.length);
        final long first = last - (references.length - 1);
        for (int i = 0; i < references.length; i++)
        {
            command.reset(CommandType.TRANSFER);
            command.tenantId = 1;
            command.keyHi = 7;
            command.keyLo = i + 1;
            command.batchSize = references.length;
            command.batchPosition = i;
            command.debitAccountId = 1;
            command.creditAccountId = 2;
            command.amountMinor = 100;
            if (references[i] != null)
            {
                final byte[] bytes = references[i].getBytes(StandardCharsets.US_ASCII);
                System.arraycopy(bytes, 0, command.reference, 0, bytes.length);
                command.referenceLength = bytes.length;
                command.referenceHi = 31 + i;
                command.referenceLo = 37 + i;
            }
            ring.get(first + i).reset(command);
        }
        ring.publish(first, last);
    }
}
