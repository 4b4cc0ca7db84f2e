package dev.tally.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
 * them, once for the whole batch, and journals the answer — or, when the check fails, journals them unchecked and
 * does not ask again for a while: read back from the real journal on disk. (The check here answers from a list; the PostgreSQL one is {@code OldReferenceOverHttpIT}'s.)
 */
@Timeout(30)
class JournalReferenceCheckTest
{
    @TempDir
    Path dir;

    /** Marks references starting with "old-", or fails while {@link #failing}; records the size of every call. */
    private static final class OldReferences implements ReferenceCheck
    {
        final List<Integer> calls = new ArrayList<>();
        volatile boolean failing;

        @Override
        public void markTaken(final Command[] transfers, final int count) throws Exception
        {
            calls.add(count);
            if (failing)
            {
                throw new java.sql.SQLException("the store does not answer");
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
    void shouldAskOnceABatchAndJournalTheAnswer() throws Exception
    {
        final OldReferences check = new OldReferences();
        final Map<String, Command> journaled = run(check, new String[][] {{"old-1", "new-1", null, "old-2", "new-2"}});

        assertEquals(List.of(4), check.calls, "one call for the batch's four referenced transfers");
        assertEquals(5, journaled.size());
        for (final Map.Entry<String, Command> e : journaled.entrySet())
        {
            assertEquals(e.getKey().startsWith("old-"), e.getValue().referenceTaken, e.getKey());
            assertFalse(e.getValue().referenceUnchecked, e.getKey());
        }
        assertTrue(journaled.get("old-2").targetIdHi >= 1_000, "the stored transfer's id is journaled with the flag");
        assertEquals(0, journaled.get("new-1").targetIdHi);
    }

    @Test
    void shouldJournalReferencesUncheckedWithoutWaitingWhenTheStoreFails() throws Exception
    {
        final OldReferences check = new OldReferences();
        check.failing = true;
        final Map<String, Command> journaled = run(check, new String[][] {{"old-1", "new-1", null}, {"old-2", "new-2"}});

        assertEquals(List.of(2), check.calls, "asked once; the next batch, inside the pause after a failure, is not asked");
        assertEquals(5, journaled.size());
        for (final Map.Entry<String, Command> e : journaled.entrySet())
        {
            assertEquals(!e.getKey().equals("none"), e.getValue().referenceUnchecked, e.getKey());
            assertFalse(e.getValue().referenceTaken, e.getKey());
        }
    }

    /** Publishes each batch (waiting until the one before is journaled), then reads the journal back by reference. */
    private Map<String, Command> run(final ReferenceCheck check, final String[][] batches) throws Exception
    {
        final Map<String, Command> journaled = new TreeMap<>();
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.SYNC)))
        {
            final ResponderStage noReplies = (event, sequence, endOfBatch) -> { };
            try (LedgerPipeline pipeline = new LedgerPipeline(new Ledger(LedgerConfig.small()), journal, ring -> noReplies,
                java.util.List.of(UnitListener.NONE), new LedgerPipeline.PipelineConfig(LedgerPipeline.RING_SIZE_DEFAULT, WaitStrategyName.WAKING, 60_000),
                new PipelineHealth(), StageMeters.NONE, check))
            {
                long expected = 0;
                for (final String[] batch : batches)
                {
                    publishBatch(pipeline.ring(), batch, expected);
                    expected += batch.length;
                    for (int i = 0; i < 500 && journal.lastIndex() < expected; i++)
                    {
                        Thread.sleep(10);
                    }
                }
                assertFalse(pipeline.health().isHalted());
            }
            journal.replay(0, command -> journaled.put(command.referenceLength == 0 ? "none" :
                new String(command.reference, 0, command.referenceLength, StandardCharsets.US_ASCII), new Command().copyFrom(command)));
        }
        return journaled;
    }

    private static void publishBatch(final InputRing ring, final String[] references, final long keyBase)
    {
        final Command command = new Command();
        final long last = ring.claim(references.length);
        final long first = last - (references.length - 1);
        for (int i = 0; i < references.length; i++)
        {
            command.reset(CommandType.TRANSFER);
            command.tenantId = 1;
            command.keyHi = 7;
            command.keyLo = keyBase + i + 1;
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
            ring.slot(first + i).reset(command);
        }
        ring.publish(first, last);
    }
}
