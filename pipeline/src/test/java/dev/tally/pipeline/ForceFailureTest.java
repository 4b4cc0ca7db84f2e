package dev.tally.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.tally.journal.Durability;
import dev.tally.journal.Journal;
import dev.tally.journal.JournalFaults;
import dev.tally.journal.JournalConfig;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.command.CommandType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A force that fails, on a real journal (the failure injected in place of the {@code fdatasync}): the business thread
 * may already have applied the batch, so in {@code sync} that batch and everything after it reach the responder marked
 * {@code notDurable} (answered 503), the pipeline halts, and the journal's stable index stays where the last good
 * force left it; in {@code async} the failing batch had already been answered (appended is the promise), and only what
 * follows is marked.
 */
@Timeout(30)
class ForceFailureTest
{
    private static final int GOOD_FORCES = 3;

    @TempDir
    Path dir;

    @Test
    void shouldAnswerTheBatchWhoseForceFailedAndEverythingAfterItAsNotDurableInSyncMode() throws Exception
    {
        final List<Seen> seen = run(JournalConfig.of(dir, Durability.SYNC), 0);

        assertEquals(GOOD_FORCES + 2, seen.size(), "the ticks before the failure, the failing one, one published after: " + seen);
        for (int i = 0; i < GOOD_FORCES; i++)
        {
            assertFalse(seen.get(i).notDurable, "forced before the failure: answered normally " + seen);
            assertTrue(seen.get(i).stableIndex >= seen.get(i).journalIndex, "replied only once forced " + seen);
        }
        assertTrue(seen.get(GOOD_FORCES).notDurable, "the batch whose force failed is not answered as done " + seen);
        assertTrue(seen.get(GOOD_FORCES + 1).notDurable, "nor is anything after it " + seen);
    }

    @Test
    void shouldMarkOnlyWhatFollowsAFailedTimedForceInAsyncMode() throws Exception
    {
        // A 1 ms interval and ticks 20 ms apart: every batch end forces.
        final List<Seen> seen = run(JournalConfig.of(dir, Durability.ASYNC).withAsyncForceIntervalMs(1), 20);

        assertEquals(GOOD_FORCES + 2, seen.size(), seen.toString());
        for (int i = 0; i <= GOOD_FORCES; i++)
        {
            assertFalse(seen.get(i).notDurable, "async replies promise the append, and left before the force " + seen);
        }
        assertTrue(seen.get(GOOD_FORCES + 1).notDurable, "after a failed force nothing is answered as done " + seen);
    }

    /**
     * Publishes ticks one batch at a time until the pipeline halts (the force after {@value #GOOD_FORCES} good ones
     * fails), then one more slot straight into the ring; @return what the last stage saw of each command.
     */
    private static List<Seen> runOn(final Journal journal, final long pauseMs) throws InterruptedException
    {
        final List<Seen> seen = new CopyOnWriteArrayList<>();
        final ResponderStage lastStage = (event, sequence, endOfBatch) ->
        {
            if (event.kind == EventKind.COMMAND)
            {
                seen.add(new Seen(event.command.journalIndex, journal.stableIndex(), event.notDurable));
            }
        };
        try (LedgerPipeline pipeline = new LedgerPipeline(new Ledger(LedgerConfig.small()), journal, ring -> lastStage,
            UnitListener.NONE, new LedgerPipeline.PipelineConfig(LedgerPipeline.RING_SIZE_DEFAULT, WaitStrategyName.WAKING, 60_000),
            new PipelineHealth()))
        {
            while (ControlCommand.tryPublish(pipeline.ring(), pipeline.health(), CommandType.TICK))
            {
                final int before = seen.size();
                for (int i = 0; i < 500 && seen.size() == before; i++)
                {
                    Thread.sleep(1);
                }
                Thread.sleep(pauseMs);
                for (int i = 0; i < 500 && !pipeline.health().isHalted() && seen.size() > GOOD_FORCES; i++)
                {
                    Thread.sleep(1);   // the failing force halts the pipeline right after its batch
                }
            }
            assertTrue(pipeline.health().isHalted(), "a failed force halts the pipeline");
            publishTickIgnoringHealth(pipeline.ring());
            final int expected = seen.size() + 1;
            for (int i = 0; i < 2_000 && seen.size() < expected; i++)
            {
                Thread.sleep(1);
            }
        }
        assertEquals(GOOD_FORCES, journal.stableIndex(), "nothing past the last good force is stable");
        return seen;
    }

    private List<Seen> run(final JournalConfig config, final long pauseMs) throws InterruptedException
    {
        System.setProperty(JournalFaults.FORCES_BEFORE_FAILURE_PROPERTY, String.valueOf(GOOD_FORCES));
        final Journal journal;
        try
        {
            journal = Journal.open(config);
        }
        finally
        {
            System.clearProperty(JournalFaults.FORCES_BEFORE_FAILURE_PROPERTY);
        }
        final List<Seen> seen;
        try
        {
            seen = runOn(journal, pauseMs);
        }
        finally
        {
            // What the failed force should have written is still unforced, and no force after a failed one is tried.
            assertThrows(UncheckedIOException.class, journal::close);
        }
        return seen;
    }

    /** As a producer that checked the health just before the halt would. */
    private static void publishTickIgnoringHealth(final InputRing ring)
    {
        final long sequence = ring.claim(1);
        ring.slot(sequence).reset(EventKind.COMMAND).command.type = CommandType.TICK;
        ring.publish(sequence);
    }

    private record Seen(long journalIndex, long stableIndex, boolean notDurable)
    {
    }
}
