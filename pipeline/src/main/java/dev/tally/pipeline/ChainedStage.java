package dev.tally.pipeline;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.Sequence;

/**
 * A stage with a stage after it: binds its thread and hands its progress over through a {@link StageHandoff}.
 * It also knows the bounds of the Disruptor batch under way, for stages that look ahead in it (the journaler's
 * reference check, the business thread's prefetch): call {@link #batchStarts} from {@code onBatchStart} and
 * {@link #handling} first in {@code onEvent}.
 */
abstract class ChainedStage implements EventHandler<LedgerEvent>
{
    protected final StageHandoff handoff;
    /** Ring sequences: the last event handled, and the first and last of the Disruptor batch under way. */
    private long lastSequence = -1;
    private long batchFirstSequence;
    private long batchLastSequence = -1;

    ChainedStage(final StageHandoff handoff)
    {
        this.handoff = handoff;
    }

    /** The batch runs from the event after the last one handled, for {@code batchSize} events. */
    protected final void batchStarts(final long batchSize)
    {
        batchFirstSequence = lastSequence + 1;
        batchLastSequence = lastSequence + batchSize;
    }

    protected final void handling(final long sequence)
    {
        lastSequence = sequence;
    }

    protected final long batchFirstSequence()
    {
        return batchFirstSequence;
    }

    protected final long batchLastSequence()
    {
        return batchLastSequence;
    }

    @Override
    public final void onStart()
    {
        handoff.onStart();
    }

    @Override
    public final void setSequenceCallback(final Sequence sequenceCallback)
    {
        handoff.progress(sequenceCallback);
    }
}
