package dev.tally.gateway.pipeline;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.WaitStrategy;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Spin briefly, then park until woken: by a publisher (the ring calls {@link #signalAllWhenBlocking()} on
 * every publish) or by the stage upstream, which releases its batch early and signals ({@link StageRelease}).
 * A timed park ({@code parkMaxNs}) backs up a wake-up that never comes.
 *
 * <p>Why: {@link BackoffWaitStrategy} wakes on its own timer, so a stage waiting through a journaler
 * {@code fdatasync} either wakes several times for nothing (a syscall each) or sleeps past the moment its
 * work arrives (up to the park it was in). Here a waiting stage sleeps once and wakes when its input is
 * there. No lost wake-up: a waiter registers (volatile write) and only then re-reads the sequence it waits
 * for; a signaller writes that sequence (volatile) and only then reads the registrations.
 */
public final class SignallingWaitStrategy implements WaitStrategy
{
    private static final int SPINS = 100;
    private static final int WAITERS_MAX = 8;
    private static final ThreadLocal<Integer> SLOT = new ThreadLocal<>();

    private final AtomicReferenceArray<Thread> waiters = new AtomicReferenceArray<>(WAITERS_MAX);
    private final long parkMaxNs;
    private int slotsTaken;

    /** @param parkMaxNs the longest park without a wake-up. */
    public SignallingWaitStrategy(final long parkMaxNs)
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
            final int slot = slotOfThisThread();
            waiters.set(slot, Thread.currentThread());
            try
            {
                if ((available = dependentSequence.get()) >= sequence)
                {
                    break;
                }
                LockSupport.parkNanos(this, parkMaxNs);
            }
            finally
            {
                waiters.lazySet(slot, null);
            }
        }
        return available;
    }

    /** Wakes every parked stage: called by the ring on each publish, and by a stage releasing its batch. */
    @Override
    public void signalAllWhenBlocking()
    {
        for (int i = 0; i < WAITERS_MAX; i++)
        {
            final Thread waiter = waiters.get(i);
            if (waiter != null)
            {
                LockSupport.unpark(waiter);
            }
        }
    }

    private int slotOfThisThread()
    {
        final Integer slot = SLOT.get();
        if (slot != null)
        {
            return slot;
        }
        synchronized (this)
        {
            if (slotsTaken == WAITERS_MAX)
            {
                throw new IllegalStateException("more than " + WAITERS_MAX + " threads wait on one SignallingWaitStrategy");
            }
            SLOT.set(slotsTaken);
            return slotsTaken++;
        }
    }
}
