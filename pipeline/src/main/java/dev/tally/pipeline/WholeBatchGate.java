package dev.tally.pipeline;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.Sequencer;
import dev.tally.ledger.command.Command;

/**
 * Wraps the last stage and keeps producers off a request batch's slots until that stage has passed the
 * batch's LAST slot.
 *
 * <p>Why: a stage publishes its progress at the end of each Disruptor batch, and a Disruptor batch can
 * end in the middle of a request batch (a multi-producer {@code publish(first, last)} marks slots
 * available one by one, so the journaler may see only part of it). The slots behind that progress look
 * free to producers, yet the business thread writes each operation's final result back into them at
 * the batch's last slot and the responder renders the batch reply from all of them. With a full ring a
 * tick or a read wrapped onto the first half of a batch and the reply found a TICK among its
 * operations (issue 3). This gate is one more gating sequence of the ring: it trails the stage's own
 * sequence and stops just before the first slot of a request batch the stage is still inside.
 *
 * <p>Cost: one ordered store per Disruptor batch.
 */
public final class WholeBatchGate implements EventHandler<LedgerEvent>
{
    private final ResponderStage lastStage;
    private final StageHandoff handoff;
    private final Sequence gate = new Sequence(Sequencer.INITIAL_CURSOR_VALUE);

    /** @param lastStage the stage after which a slot may be reused. */
    public WholeBatchGate(final ResponderStage lastStage)
    {
        this(lastStage, StageHandoff.none());
    }

    /** @param handoff binds the stage's thread to the waking wait strategy, if the pipeline runs it. */
    WholeBatchGate(final ResponderStage lastStage, final StageHandoff handoff)
    {
        this.lastStage = lastStage;
        this.handoff = handoff;
    }

    /** @return the sequence to add to the ring's gating sequences before anything is published. */
    public Sequence sequence()
    {
        return gate;
    }

    @Override
    public void onEvent(final LedgerEvent event, final long sequence, final boolean endOfBatch) throws Exception
    {
        // Read before the stage runs (the responder may reset the slot's reply fields), and only where used.
        final long reusableUpTo = endOfBatch ? reusableUpTo(event, sequence) : 0;
        try
        {
            lastStage.onEvent(event, sequence, endOfBatch);
        }
        finally
        {
            // Even when the stage failed (the pipeline then halts), so producers are never stuck behind it.
            if (endOfBatch)
            {
                gate.set(reusableUpTo);
            }
        }
    }

    /** @return the highest sequence a producer may reuse once this slot has passed the last stage. */
    static long reusableUpTo(final LedgerEvent event, final long sequence)
    {
        if (event.kind != EventKind.COMMAND)
        {
            return sequence;
        }
        final Command command = event.command;
        return command.isLastOfBatch() ? sequence : sequence - command.batchPosition - 1;
    }

    @Override
    public void onStart()
    {
        handoff.onStart();
    }
}
