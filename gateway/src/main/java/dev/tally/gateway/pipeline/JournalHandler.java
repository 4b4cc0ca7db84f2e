package dev.tally.gateway.pipeline;

import dev.tally.journal.Journal;

/**
 * Stage 1: stamps each command with Tally's journal index and a monotonic journaled time, and appends
 * it to the journal. At the end of each Disruptor batch the journal is flushed (in {@code sync} mode,
 * forced to stable storage): one force per batch is the group commit that makes {@code sync} affordable.
 * In {@code async} mode the batch end forces once {@code asyncForceIntervalMs} has passed since the last
 * force (the ticks end a batch at least every tick interval, so an idle journal is forced too).
 * The business thread only sees a command after this handler's sequence has passed it, so nothing is
 * applied, and no reply leaves, before its command is in the journal.
 */
final class JournalHandler extends HandingOffStage
{
    private final Journal journal;
    private final PipelineHealth health;
    private final StageMeters meters;
    private long batchStartNs;
    private long oldestReceivedNs;
    private int batchCommands;

    JournalHandler(final Journal journal, final PipelineHealth health, final StageMeters meters, final StageHandoff handoff)
    {
        super(handoff);
        this.journal = journal;
        this.health = health;
        this.meters = meters;
    }

    @Override
    public void onBatchStart(final long batchSize, final long queueDepth)
    {
        batchStartNs = System.nanoTime();
        oldestReceivedNs = 0;
        batchCommands = 0;
    }

    @Override
    public void onEvent(final LedgerEvent event, final long sequence, final boolean endOfBatch)
    {
        if (event.kind == EventKind.COMMAND)
        {
            batchCommands++;
            if (oldestReceivedNs == 0)
            {
                oldestReceivedNs = event.receivedNs;
            }
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
            final long appendedNs = System.nanoTime();
            try
            {
                journal.endOfBatch(); // sync: the group commit's force; async: a force once its interval has passed
            }
            catch (final RuntimeException ex)
            {
                health.halt("journal flush failed", ex);
            }
            if (batchCommands > 0)
            {
                meters.journalBatch(batchCommands, appendedNs - batchStartNs, System.nanoTime() - appendedNs,
                    oldestReceivedNs == 0 ? -1 : batchStartNs - oldestReceivedNs);
            }
        }
        if (endOfBatch)
        {
            handoff.release(sequence);   // journaled (forced, in sync mode): the business thread may go on
        }
    }
}
