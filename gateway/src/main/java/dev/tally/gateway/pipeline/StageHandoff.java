package dev.tally.gateway.pipeline;

import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.WaitStrategy;

/**
 * A stage's side of {@link WakingWaitStrategy}: binds the stage's thread to its waker at start, and at the
 * end of each batch publishes the stage's progress at once (instead of after the handler returns) and wakes
 * the next stage. Does nothing under any other wait strategy ({@link #NONE}).
 */
final class StageHandoff
{
    static final StageHandoff NONE = new StageHandoff(null, null, null);

    private final WakingWaitStrategy strategy;
    private final WakingWaitStrategy.StageWaker own;
    private final WakingWaitStrategy.StageWaker next;
    private Sequence progress;

    private StageHandoff(final WakingWaitStrategy strategy, final WakingWaitStrategy.StageWaker own, final WakingWaitStrategy.StageWaker next)
    {
        this.strategy = strategy;
        this.own = own;
        this.next = next;
    }

    static StageHandoff journaler(final WaitStrategy strategy)
    {
        return of(strategy, WakingWaitStrategy.JOURNALER);
    }

    static StageHandoff business(final WaitStrategy strategy)
    {
        return of(strategy, WakingWaitStrategy.BUSINESS);
    }

    static StageHandoff responder(final WaitStrategy strategy)
    {
        return of(strategy, WakingWaitStrategy.RESPONDER);
    }

    /** @return the hand-off of {@code stage}: it wakes the stage after it, if any; {@link #NONE} under another strategy. */
    private static StageHandoff of(final WaitStrategy strategy, final int stage)
    {
        if (!(strategy instanceof WakingWaitStrategy))
        {
            return NONE;
        }
        final WakingWaitStrategy waking = (WakingWaitStrategy)strategy;
        return new StageHandoff(waking, waking.stage(stage), stage + 1 < WakingWaitStrategy.STAGES ? waking.stage(stage + 1) : null);
    }

    /** From the stage's {@code onStart}, on its own thread. */
    void onStart()
    {
        if (strategy != null)
        {
            strategy.bind(own);
        }
    }

    /** From the stage's {@code setSequenceCallback}: the sequence the next stage waits on. */
    void progress(final Sequence sequence)
    {
        this.progress = sequence;
    }

    /** At the end of a batch, once every event up to {@code sequence} is done: let the next stage go now. */
    void release(final long sequence)
    {
        if (next != null && progress != null)
        {
            progress.set(sequence);
            next.wake();
        }
    }
}
