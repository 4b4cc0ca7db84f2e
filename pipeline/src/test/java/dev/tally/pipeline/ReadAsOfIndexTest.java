package dev.tally.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.tally.journal.Durability;
import dev.tally.journal.Journal;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.command.CommandType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read the PostgreSQL read model answers ({@code READ_ENTRIES}) reaches the last stage stamped with the last journal
 * index the business thread had applied when it passed the read: every command published before the read, and none
 * after it. That index is what the read waits for the read model to reach (read-your-writes). A real pipeline on a real
 * journal; the commands are ticks, journaled and applied like any write.
 */
@Timeout(60)
class ReadAsOfIndexTest
{
    @TempDir
    Path dir;

    @Test
    void shouldStampAReadWithTheLastIndexAppliedBeforeIt() throws InterruptedException
    {
        final ReadStamps stamps = new ReadStamps();
        try (Journal journal = Journal.open(dir, Durability.ASYNC);
             LedgerPipeline pipeline = new LedgerPipeline(new Ledger(LedgerConfig.small()), journal, ring -> stamps, (ledger, command) -> { },
                 new LedgerPipeline.PipelineConfig(LedgerPipeline.RING_SIZE_DEFAULT, WaitStrategyName.BACKOFF, 60_000), new PipelineHealth()))
        {
            publishTicks(pipeline, 10);
            publishRead(pipeline);
            publishTicks(pipeline, 5);
            publishRead(pipeline);
            publishRead(pipeline);
            stamps.await(3);
        }
        // a fresh journal: the ticks are journal indexes 1 to 15, in the order published
        assertEquals(List.of(10L, 15L, 15L), stamps.seen);
    }

    /** The last stage: keeps the stamp of every read that reaches it. */
    private static final class ReadStamps implements ResponderStage
    {
        final List<Long> seen = new CopyOnWriteArrayList<>();

        @Override
        public void onEvent(final LedgerEvent event, final long sequence, final boolean endOfBatch)
        {
            if (event.kind == EventKind.READ_ENTRIES)
            {
                seen.add(event.readAsOfJournalIndex);
            }
        }

        void await(final int reads) throws InterruptedException
        {
            for (int i = 0; i < 3_000 && seen.size() < reads; i++)
            {
                Thread.sleep(10);
            }
        }
    }

    private static void publishTicks(final LedgerPipeline pipeline, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            assertTrue(ControlCommand.tryPublish(pipeline.ring(), pipeline.health(), CommandType.TICK));
        }
    }

    /** As the gateway publishes a listing: a slot of its own, no command. */
    private static void publishRead(final LedgerPipeline pipeline)
    {
        final long sequence = pipeline.ring().tryClaim();
        assertTrue(sequence != InputRing.FULL, "room in the ring");
        pipeline.ring().slot(sequence).reset(EventKind.READ_ENTRIES).readAccountId = 2;
        pipeline.ring().publish(sequence);
    }
}
