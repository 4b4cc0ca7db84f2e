package dev.tally.gateway.pipeline;

import com.lmax.disruptor.EventHandler;
import dev.tally.journal.Journal;

/**
 * Stage 1: stamps each command with Tally's journal index and a monotonic journaled time, and appends
 * it to the journal. At the end of each Disruptor batch the journal is flushed (in {@code sync} mode,
 * forced to stable storage): one force per batch is the group commit that makes {@code sync} affordable.
 * The business thread only sees a command after this handler's sequence has passed it, so nothing is
 * applied, and no reply leaves, before its command is in the journal.
 */
final class JournalHandler implements EventHandler<LedgerEvent>
{
    private final Journal journal;
    private final PipelineHealth health;

    JournalHandler(final Journal journal, final PipelineHealth health)
    {
        this.journal = journal;
        this.health = health;
    }

    @Override
    public void onEvent(final LedgerEvent event, final long sequence, final boolean endOfBatch)
    {
        if (event.kind == EventKind.COMMAND)
        {
            if (health.isHalted())
            {
                event.journalFailed = true;
            }
            else
            {
                try
                {
                    journal.stampAndAppend(event.command, System.currentTimeMillis() * 1_000_000L);
                }
                catch (final RuntimeException ex)
                {
                    event.journalFailed = true;
                    health.halt("journal append failed", ex);
                }
            }
        }
        if (endOfBatch && !health.isHalted())
        {
            try
            {
                journal.flush();
            }
            catch (final RuntimeException ex)
            {
                health.halt("journal flush failed", ex);
            }
        }
    }
}
