package dev.tally.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import dev.tally.journal.Durability;
import dev.tally.journal.Journal;
import dev.tally.journal.JournalConfig;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.command.CommandType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the journaler stage forces, on a real journal with the pipeline's own ticks as the only commands:
 * under {@code async} once per force interval (a power loss takes back at most that much), never with the
 * interval 0 (the kernel writes back), and under {@code sync} every batch.
 *
 * <p>{@link Journal#forcedIndex()} is read from the test thread while the journaler writes it: a racy read
 * of a value that only grows, polled with sleeps in between, and confirmed after the pipeline has stopped.
 */
@Timeout(30)
class JournalForceInPipelineTest
{
    private static final long TICK_MS = 5;

    @TempDir
    Path dir;

    @Test
    void shouldForceAsyncAppendsOncePerIntervalWhileTheTicksRun() throws InterruptedException
    {
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.ASYNC).withAsyncForceIntervalMs(50)))
        {
            // ~10 ticks per interval: well past a few intervals, the forced index follows the appends
            whileTicking(journal, () -> assertTrue(awaitForced(journal, 20),
                "async appends were never forced: forced " + journal.forcedIndex() + " of " + journal.lastIndex()));
        }
    }

    @Test
    void shouldForceTheLastAsyncAppendsWhenNothingFollowsThem() throws InterruptedException
    {
        // ticks a minute apart: after the one command below, no command ends a batch; the force checks must
        final JournalConfig config = JournalConfig.of(dir, Durability.ASYNC).withAsyncForceIntervalMs(1_000);
        try (Journal journal = Journal.open(config))
        {
            final ResponderStage noReplies = (event, sequence, endOfBatch) -> { };
            try (LedgerPipeline pipeline = new LedgerPipeline(new Ledger(LedgerConfig.small()), journal, ring -> noReplies,
                UnitListener.NONE, new LedgerPipeline.PipelineConfig(LedgerPipeline.RING_SIZE_DEFAULT, WaitStrategyName.WAKING, 60_000),
                new PipelineHealth()))
            {
                assertTrue(ControlCommand.tryPublish(pipeline.ring(), pipeline.health(), CommandType.TICK));
                awaitAppended(journal, 1);
                assertEquals(0, journal.forcedIndex(), "appended well inside the first interval: not forced yet");
                assertTrue(awaitForced(journal, 1), "the last append was never forced: " + journal.forcedIndex());
                assertFalse(pipeline.health().isHalted());
            }
        }
    }

    @Test
    void shouldLeaveAsyncAppendsToTheKernelWhenTheIntervalIsZero() throws InterruptedException
    {
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.ASYNC).withAsyncForceIntervalMs(0)))
        {
            whileTicking(journal, () -> awaitAppended(journal, 40));
            assertEquals(0, journal.forcedIndex(), "no force with the interval 0");
        }
    }

    @Test
    void shouldForceEveryBatchInSyncMode() throws InterruptedException
    {
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.SYNC)))
        {
            whileTicking(journal, () -> awaitAppended(journal, 40));
            assertEquals(journal.lastIndex(), journal.forcedIndex(), "the last batch was forced before the stage stopped");
        }
    }

    /** Runs the pipeline (its ticks are the only commands) until {@code check} returns, then stops it. */
    private static void whileTicking(final Journal journal, final Check check) throws InterruptedException
    {
        final ResponderStage noReplies = (event, sequence, endOfBatch) -> { };
        try (LedgerPipeline pipeline = new LedgerPipeline(new Ledger(LedgerConfig.small()), journal, ring -> noReplies,
            UnitListener.NONE, new LedgerPipeline.PipelineConfig(LedgerPipeline.RING_SIZE_DEFAULT, WaitStrategyName.WAKING, TICK_MS),
            new PipelineHealth()))
        {
            check.run();
            assertFalse(pipeline.health().isHalted());
        }
    }

    private interface Check
    {
        void run() throws InterruptedException;
    }

    private static boolean awaitForced(final Journal journal, final long index) throws InterruptedException
    {
        for (int i = 0; i < 1_000; i++)
        {
            if (journal.forcedIndex() >= index)
            {
                return true;
            }
            Thread.sleep(10);
        }
        return false;
    }

    private static void awaitAppended(final Journal journal, final long index) throws InterruptedException
    {
        for (int i = 0; i < 1_000 && journal.lastIndex() < index; i++)
        {
            Thread.sleep(10);
        }
        assertTrue(journal.lastIndex() >= index, "ticks were not journaled: " + journal.lastIndex());
    }
}
