package dev.tally.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import dev.tally.journal.Durability;
import dev.tally.journal.Journal;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.command.CommandType;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The business thread applies a batch while the journaler forces it, and still no reply leaves before its command
 * is forced: on a real {@code sync} journal (a real {@code fdatasync} per batch), the last stage checks, for every
 * command it sees, that the journal's stable index has reached it, and the business thread counts the commands it
 * applied before that.
 *
 * <p>{@link Journal#stableIndex()} is volatile and only grows, so a stage that reads it at or past a command's index
 * has seen the force of that command complete.
 */
@Timeout(60)
class ForceBeforeReplyTest
{
    private static final int BURSTS = 200;
    private static final int TICKS_PER_BURST = 20;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(value = WaitStrategyName.class, names = {"WAKING", "BACKOFF", "BLOCKING"})
    void shouldReplyOnlyToForcedCommandsWhileApplyingBeforeTheForceEnds(final WaitStrategyName strategy) throws InterruptedException
    {
        final AtomicLong seen = new AtomicLong();
        final AtomicLong repliedBeforeForced = new AtomicLong();
        final AtomicLong appliedBeforeForced = new AtomicLong();
        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            final ResponderStage lastStage = (event, sequence, endOfBatch) ->
            {
                if (event.kind == EventKind.COMMAND && event.command.journalIndex > 0)
                {
                    seen.incrementAndGet();
                    if (journal.stableIndex() < event.command.journalIndex)
                    {
                        repliedBeforeForced.incrementAndGet();
                    }
                }
            };
            final UnitListener business = (ledger, command) ->
            {
                if (journal.stableIndex() < command.journalIndex)
                {
                    appliedBeforeForced.incrementAndGet();
                }
            };
            try (LedgerPipeline pipeline = new LedgerPipeline(new Ledger(LedgerConfig.small()), journal, ring -> lastStage, business,
                new LedgerPipeline.PipelineConfig(LedgerPipeline.RING_SIZE_DEFAULT, strategy, 60_000), new PipelineHealth()))
            {
                for (int burst = 0; burst < BURSTS; burst++)
                {
                    for (int i = 0; i < TICKS_PER_BURST; i++)
                    {
                        assertTrue(ControlCommand.tryPublish(pipeline.ring(), pipeline.health(), CommandType.TICK));
                    }
                    Thread.sleep(1);
                }
                awaitSeen(seen, BURSTS * TICKS_PER_BURST);
                assertFalse(pipeline.health().isHalted());
            }
            assertEquals(journal.lastIndex(), journal.stableIndex(), "every batch was forced");
        }
        assertEquals(BURSTS * TICKS_PER_BURST, seen.get());
        assertEquals(0, repliedBeforeForced.get(), "commands reached the last stage before their force ended");
        if (strategy == WaitStrategyName.WAKING)
        {
            // One force is ≥ 0.1 ms; the business thread is woken as the force starts and applies a tick in about a µs.
            assertTrue(appliedBeforeForced.get() > 0, "the business thread never applied a batch while it was being forced");
        }
    }

    private static void awaitSeen(final AtomicLong seen, final long count) throws InterruptedException
    {
        for (int i = 0; i < 3_000 && seen.get() < count; i++)
        {
            Thread.sleep(10);
        }
    }
}
