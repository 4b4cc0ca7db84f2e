package dev.tally.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.tally.journal.Durability;
import dev.tally.journal.Journal;
import dev.tally.journal.JournalFaults;
import dev.tally.journal.JournalReader;
import dev.tally.journal.ReplayResult;
import dev.tally.journal.ReplayStatus;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.command.CommandType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal document the queue refuses, in the middle of a Disruptor batch too large for one document (the failure
 * injected once, so the queue would take the next one): none of the document's commands is journaled, each is
 * answered as failed, the pipeline halts, and no command after the refused document is journaled on its own either,
 * so what the journal holds is exactly what was answered, gap-free.
 */
@Timeout(60)
class AppendFailureTest
{
    private static final int TICKS = 12_000;   // ≈ 3 documents of ticks, published as one Disruptor batch

    @TempDir
    Path dir;

    @Test
    void shouldJournalNothingAfterARefusedDocumentAndAnswerItAllAsFailed() throws Exception
    {
        // the lone tick's document goes, and the large batch's first; its second, written mid-batch, is refused
        System.setProperty(JournalFaults.DOCUMENTS_BEFORE_FAILURE_PROPERTY, "2");
        final Journal journal;
        try
        {
            journal = Journal.open(dir, Durability.ASYNC);
        }
        finally
        {
            System.clearProperty(JournalFaults.DOCUMENTS_BEFORE_FAILURE_PROPERTY);
        }
        final List<Boolean> failed = new CopyOnWriteArrayList<>();
        final ResponderStage lastStage = (event, sequence, endOfBatch) ->
        {
            if (event.kind == EventKind.COMMAND)
            {
                failed.add(event.journalFailed);
            }
        };
        try (journal;
            LedgerPipeline pipeline = new LedgerPipeline(new Ledger(LedgerConfig.small()), journal, ring -> lastStage,
                UnitListener.NONE, new LedgerPipeline.PipelineConfig(LedgerPipeline.RING_SIZE_DEFAULT, WaitStrategyName.WAKING, 60_000),
                new PipelineHealth()))
        {
            publishTicks(pipeline.ring(), 1);
            awaitSeen(failed, 1);
            publishTicks(pipeline.ring(), TICKS);
            awaitSeen(failed, 1 + TICKS);
            assertTrue(pipeline.health().isHalted(), "a refused document halts the pipeline");
        }

        final int firstFailed = failed.indexOf(true);
        assertTrue(firstFailed > 1 && firstFailed < TICKS / 2, "the refused document is the batch's second: " + firstFailed);
        for (int i = firstFailed; i < failed.size(); i++)
        {
            assertTrue(failed.get(i), "command " + i + " after the refused document was answered as journaled");
        }
        try (JournalReader reader = JournalReader.open(dir))
        {
            final ReplayResult replay = reader.replay(0, command -> { });
            assertEquals(ReplayStatus.COMPLETE, replay.status(), replay::toString);
            assertEquals(firstFailed, replay.lastIndex(), "the journal holds what was answered as journaled, and nothing else");
        }
    }

    /** Publishes {@code count} ticks in one claim, so that the journaler takes them as one Disruptor batch. */
    private static void publishTicks(final InputRing ring, final int count)
    {
        final long last = ring.claim(count);
        final long first = last - count + 1;
        for (long s = first; s <= last; s++)
        {
            ring.slot(s).reset(EventKind.COMMAND).command.type = CommandType.TICK;
        }
        ring.publish(first, last);
    }

    private static void awaitSeen(final List<Boolean> seen, final int count) throws InterruptedException
    {
        for (int i = 0; i < 20_000 && seen.size() < count; i++)
        {
            Thread.sleep(1);
        }
        assertEquals(count, seen.size(), "commands that reached the last stage");
    }
}
