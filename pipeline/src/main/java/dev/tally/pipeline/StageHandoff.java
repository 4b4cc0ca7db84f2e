package dev.tally.pipeline;

import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.WaitStrategy;

/**
 * A stage's hand-over to the stages after it: at the end of each batch it publishes the stage's progress at
 * once (instead of after the handler returns: the journaler releases its appends to the business thread
 * before it forces them). Under {@link WakingWaitStrategy} it also binds the stage's thread to its waker at
 * start and wakes the stage that waits for that progress; under any other strategy nobody is woken.
 */
final class StageHandoff
{
    private final WakingWaitStrategy strategy;
    private final WakingWaitStrategy.StageWaker own;
    private final WakingWaitStrategy.StageWaker next;
    /** Only the journaler's: the responder, which waits for the forced sequence too. */
    private final WakingWaitStrategy.StageWaker responder;
    private Sequence progress;

    private StageHandoff(
        final WakingWaitStrategy strategy, final WakingWaitStrategy.StageWaker own, final WakingWaitStrategy.StageWaker next,
        final WakingWaitStrategy.StageWaker responder)
    {
        this.strategy = strategy;
        this.own = own;
        this.next = next;
        this.responder = responder;
    }

    /** A last stage that wakes nobody, under any strategy (tests). */
    static StageHandoff none()
    {
        return new StageHandoff(null, null, null, null);
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

    /** @return the hand-off of {@code stage}: under {@link WakingWaitStrategy} it wakes the stage after it, if any. */
    private static StageHandoff of(final WaitStrategy strategy, final int stage)
    {
        if (!(strategy instanceof WakingWaitStrategy))
        {
            return none();
        }
        final WakingWaitStrategy waking = (WakingWaitStrategy)strategy;
        return new StageHandoff(waking, waking.stage(stage), stage + 1 < WakingWaitStrategy.STAGES ? waking.stage(stage + 1) : null,
            stage == WakingWaitStrategy.JOURNALER ? waking.stage(WakingWaitStrategy.RESPONDER) : null);
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

    /**
     * At the end of a batch, once every event up to {@code sequence} is done: let the next stage go now.
     *
     * <p>A volatile store, not Disruptor's {@code Sequence.set} (a release store): the wake-up below reads whether the
     * next stage is parked, and with a release store that read may be done before the store is visible, while the
     * next stage announces itself and re-reads the old sequence — both miss, and the stage sleeps until its timed
     * park's safety net (100 ms). The full fence costs a few nanoseconds per batch.
     */
    void release(final long sequence)
    {
        if (progress != null)
        {
            progress.setVolatile(sequence);
        }
        if (next != null)
        {
            next.wake();
        }
    }

    /**
     * The journaler's, once its batch up to {@code sequence} is journaled as the durability mode promises (forced in
     * {@code sync}, appended in {@code async}): let the responder reply.
     */
    void releaseJournaled(final Sequence journaled, final long sequence)
    {
        journaled.setVolatile(sequence);   // volatile for the same reason as in release
        if (responder != null)
        {
            responder.wake();
        }
    }
}
