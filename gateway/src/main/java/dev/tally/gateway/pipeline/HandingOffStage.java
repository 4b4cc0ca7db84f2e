package dev.tally.gateway.pipeline;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.Sequence;

/** A stage with a stage after it: binds its thread and hands its progress over through a {@link StageHandoff}. */
abstract class HandingOffStage implements EventHandler<LedgerEvent>
{
    protected final StageHandoff handoff;

    HandingOffStage(final StageHandoff handoff)
    {
        this.handoff = handoff;
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
