package dev.tally.gateway.pipeline;

import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.WaitStrategy;

/**
 * Hands a stage's finished batch downstream at once and wakes the stage parked on it, when the pipeline
 * runs {@link SignallingWaitStrategy}; does nothing with any other strategy (their waiters poll).
 * Disruptor publishes a stage's progress after its handler returns from the batch's last event; releasing
 * it from inside that call, right after the work (the journaler's flush, the business thread's apply), is
 * the same value a moment earlier, plus the wake-up.
 */
final class StageRelease
{
    static final StageRelease NONE = new StageRelease(null);

    private final SignallingWaitStrategy signalling;
    private Sequence sequence;

    private StageRelease(final SignallingWaitStrategy signalling)
    {
        this.signalling = signalling;
    }

    /** @return a release that signals through {@code strategy} when it is a {@link SignallingWaitStrategy}. */
    static StageRelease of(final WaitStrategy strategy)
    {
        return strategy instanceof SignallingWaitStrategy ? new StageRelease((SignallingWaitStrategy)strategy) : NONE;
    }

    /** The stage's own sequence, from {@code EventHandler.setSequenceCallback}. */
    void attach(final Sequence stageSequence)
    {
        if (signalling != null)
        {
            sequence = stageSequence;
        }
    }

    /** Everything up to {@code sequence} is done by this stage: publish it and wake the stage after. */
    void release(final long upTo)
    {
        if (sequence != null)
        {
            sequence.setVolatile(upTo);
            signalling.signalAllWhenBlocking();
        }
    }
}
