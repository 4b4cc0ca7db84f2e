package dev.tally.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.journal.Durability;
import dev.tally.journal.Journal;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.result.ResultCode;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Halts on a real journal. Raised on the business thread: the read model refuses a unit (its writer failed). That
 * command is journaled and applied, so its reply carries its own result, never the one a slot held a ring cycle ago;
 * the commands the journaler had already appended behind it are in the journal but not applied, so they are marked
 * for an "outcome unknown" answer rather than "not applied" (a restart's replay applies them). Raised by a stop that
 * cannot drain: a stage that never returns does not hold the stop forever.
 */
@Timeout(30)
class PipelineHaltTest
{
    private static final int COMMANDS = 5;
    private static final int REFUSED_UNIT = 3;
    /** What a slot holds from an earlier request, as far as this test knows: never a tick's result. */
    private static final ResultCode STALE = ResultCode.INSUFFICIENT_FUNDS;

    @TempDir
    Path dir;

    @Test
    void shouldAnswerTheRefusedUnitWithItsOwnResultAndTheJournaledRestAsNotAppliedYet() throws Exception
    {
        final List<Seen> seen = new CopyOnWriteArrayList<>();
        final ResponderStage lastStage = (event, sequence, endOfBatch) ->
        {
            if (event.kind == EventKind.COMMAND)
            {
                seen.add(new Seen(event.command.journalIndex, event.result.code, event.journalFailed, event.journaledNotApplied));
            }
        };
        final int[] units = {0};
        final UnitListener writerFailsAtTheThird = (ledger, command) ->
        {
            if (++units[0] == REFUSED_UNIT)
            {
                throw new IllegalStateException("the PostgreSQL writer failed");
            }
        };
        try (Journal journal = Journal.open(dir, Durability.ASYNC);
             LedgerPipeline pipeline = new LedgerPipeline(new Ledger(LedgerConfig.small()), journal, ring -> lastStage,
                 writerFailsAtTheThird, new LedgerPipeline.PipelineConfig(LedgerPipeline.RING_SIZE_DEFAULT, WaitStrategyName.WAKING, 60_000),
                 new PipelineHealth()))
        {
            publishTicksAtOnce(pipeline.ring());   // one journaler batch: all appended before the business thread sees one
            for (int i = 0; i < 5_000 && seen.size() < COMMANDS; i++)
            {
                Thread.sleep(1);
            }
            assertTrue(pipeline.health().isHalted(), "the refused unit halts the pipeline");
            assertEquals(COMMANDS, journal.lastIndex(), "every command was journaled");
        }

        assertEquals(COMMANDS, seen.size(), seen.toString());
        for (int i = 0; i < REFUSED_UNIT; i++)
        {
            assertEquals(ResultCode.OK, seen.get(i).code(), "applied, answered with its own result: " + seen);
            assertFalse(seen.get(i).journalFailed() || seen.get(i).journaledNotApplied(), seen.toString());
        }
        for (int i = REFUSED_UNIT; i < COMMANDS; i++)
        {
            assertTrue(seen.get(i).journaledNotApplied(), "journaled, not applied: its outcome waits for a restart " + seen);
            assertFalse(seen.get(i).journalFailed(), "it is in the journal: not answered as never applied " + seen);
        }
    }

    @Test
    void shouldStopWithinItsBoundWhenAStageIsStuck() throws Exception
    {
        final java.util.concurrent.CountDownLatch stuck = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch reached = new java.util.concurrent.CountDownLatch(1);
        final ResponderStage hangingStage = (event, sequence, endOfBatch) ->
        {
            reached.countDown();
            stuck.await();   // a force, a socket write... that never returns
        };
        try (Journal journal = Journal.open(dir, Durability.ASYNC))
        {
            final LedgerPipeline pipeline = new LedgerPipeline(new Ledger(LedgerConfig.small()), journal, ring -> hangingStage,
                UnitListener.NONE, new LedgerPipeline.PipelineConfig(LedgerPipeline.RING_SIZE_DEFAULT, WaitStrategyName.WAKING, 60_000),
                new PipelineHealth());
            publishTicksAtOnce(pipeline.ring());
            assertTrue(reached.await(10, java.util.concurrent.TimeUnit.SECONDS));

            final long startNs = System.nanoTime();
            org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10), () -> pipeline.close(300, 300),
                "a stuck stage must not hold the stop forever");
            assertTrue(pipeline.health().isHalted(), "what could not drain is halted");
            assertTrue(System.nanoTime() - startNs < 5_000_000_000L);
            stuck.countDown();
        }
    }

    private static void publishTicksAtOnce(final InputRing ring)
    {
        final long last = ring.claim(COMMANDS);
        final long first = last - (COMMANDS - 1);
        for (long s = first; s <= last; s++)
        {
            final LedgerEvent event = ring.slot(s).reset(EventKind.COMMAND);
            event.command.type = CommandType.TICK;
            event.result.code = STALE;
        }
        ring.publish(first, last);
    }

    private record Seen(long journalIndex, ResultCode code, boolean journalFailed, boolean journaledNotApplied)
    {
    }
}
