package dev.tally.pipeline;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.WaitStrategy;
import java.util.concurrent.locks.LockSupport;

/**
 * Spin briefly, then park until a thread that makes this stage's input available wakes it: the
 * publishers wake the journaler (the ring calls {@link #signalAllWhenBlocking()} on every publish), the
 * journaler wakes the business thread once its batch is appended and the responder once it is forced, and the
 * business thread wakes the responder ({@link StageHandoff}); the responder goes on once both have passed. A shutdown
 * alerts the stages' barriers and calls {@link #wakeAll()}. A timed park ({@code parkMaxNs}) is only the safety net.
 *
 * <p>Why, against {@link BackoffWaitStrategy}: there a stage waiting through a journaler {@code fdatasync}
 * wakes on its own timer, several times for nothing or up to a park (≥ 50 µs of timer slack) late, once per
 * stage, on every group commit's critical path. Here it sleeps once and wakes when its input is there, and
 * nobody else is woken: an earlier experiment that woke every parked stage on every publish cost the
 * Netty I/O thread ~2–3 µs per request and gained nothing
 * (docs/benchmarks/history/2026-11-30-tried-signalling-wait-strategy.md).
 *
 * <p>No lost wake-up: a waiter announces itself (volatile write), then re-reads the sequence it waits for and
 * its barrier's alert; a waker writes that sequence (or the alert) first with a volatile store (a full fence:
 * {@code StageHandoff} uses {@code Sequence.setVolatile}, not the release store of {@code Sequence.set}, and a
 * publisher's claim is a compare-and-set), then reads the announcement. Both sides store then load with a fence
 * between, so at least one of them sees the other.
 */
public final class WakingWaitStrategy implements WaitStrategy
{
    /** The stages in pipeline order; each one's input comes from the one before (the journaler's from the ring). */
    static final int JOURNALER = 0;
    static final int BUSINESS = 1;
    static final int RESPONDER = 2;
    static final int STAGES = 3;

    private static final int SPINS = 100;

    private final long parkMaxNs;
    private final ThreadLocal<StageWaker> wakerOfThread = new ThreadLocal<>();
    private final StageWaker[] stages = {new StageWaker(), new StageWaker(), new StageWaker()};

    /** @param parkMaxNs the longest park without a wake-up: only a safety net (a shutdown calls {@link #wakeAll()}). */
    public WakingWaitStrategy(final long parkMaxNs)
    {
        this.parkMaxNs = parkMaxNs;
    }

    @Override
    public long waitFor(final long sequence, final Sequence cursor, final Sequence dependentSequence, final SequenceBarrier barrier)
        throws AlertException
    {
        long available;
        int spins = 0;
        while ((available = dependentSequence.get()) < sequence)
        {
            barrier.checkAlert();
            if (spins < SPINS)
            {
                spins++;
                Thread.onSpinWait();
                continue;
            }
            final StageWaker waker = wakerOfThread.get();
            if (waker == null)
            {
                LockSupport.parkNanos(this, parkMaxNs);   // a thread no stage bound (none in the server): only the timer wakes it
                continue;
            }
            waker.announce();
            try
            {
                barrier.checkAlert();   // announced first: an alert set before wakeAll read the announcement is seen here
                if ((available = dependentSequence.get()) >= sequence)
                {
                    break;
                }
                LockSupport.parkNanos(this, parkMaxNs);
            }
            finally
            {
                waker.withdraw();
            }
        }
        return available;
    }

    /** A publish: the journaler is the only stage waiting on the ring's cursor. */
    @Override
    public void signalAllWhenBlocking()
    {
        stages[JOURNALER].wake();
    }

    /**
     * Wakes every parked stage: after a halt of the processors (a shutdown), whose barrier alerts reach this
     * strategy only as {@link #signalAllWhenBlocking()}, which wakes the journaler alone.
     */
    public void wakeAll()
    {
        for (final StageWaker stage : stages)
        {
            stage.wake();
        }
    }

    /** @return the waker of {@code stage} ({@link #JOURNALER}, {@link #BUSINESS} or {@link #RESPONDER}). */
    StageWaker stage(final int stage)
    {
        return stages[stage];
    }

    /** Makes the calling thread the one {@code waker} wakes (a stage's {@code onStart}). */
    void bind(final StageWaker waker)
    {
        wakerOfThread.set(waker);
    }

    /** The thread of one stage, while it is parked in {@link #waitFor}. */
    static final class StageWaker
    {
        private volatile Thread parked;

        void announce()
        {
            parked = Thread.currentThread();
        }

        void withdraw()
        {
            parked = null;
        }

        void wake()
        {
            final Thread thread = parked;
            if (thread != null)
            {
                LockSupport.unpark(thread);
            }
        }
    }
}
