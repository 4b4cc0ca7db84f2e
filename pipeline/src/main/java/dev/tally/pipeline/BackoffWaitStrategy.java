package dev.tally.pipeline;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.WaitStrategy;
import java.util.concurrent.locks.LockSupport;

/**
 * Spin briefly, then park with an exponentially growing period, capped: under load a stage picks up
 * the next event within nanoseconds; once idle it costs about {@code 1 / parkMax} wake-ups a second.
 *
 * <p>No {@code Thread.yield()} phase: with five busy threads on two cores a yield is a context switch to
 * another runnable thread every time. With 100 yields between spinning and parking, the business and
 * responder threads each made ~1.8 involuntary context switches per request in {@code sync} mode
 * (yielding through every journaler {@code fdatasync}) and spent 7–8 µs of CPU per request; without
 * them 5–6 µs, and the whole process 50–51 instead of 56–60 µs per request
 * (docs/benchmarks/history/2026-11-30-wait-strategy-yields.md).
 *
 * <p>Why not Disruptor's own: {@code BlockingWaitStrategy} busy-spins while it waits for an upstream
 * stage (the business thread spinning through every journaler fsync), and {@code SleepingWaitStrategy}
 * parks for a fixed ~100 ns, which the kernel rounds up to ~50 µs: measured ~9 % of a core per idle
 * stage. With three stages on two cores both cost the work its CPU. The price here: the first event
 * after a long idle spell waits up to {@code parkMax} per stage.
 *
 * <p>Stateless (all state is local to a wait), so one instance serves every stage; allocation-free.
 */
public final class BackoffWaitStrategy implements WaitStrategy
{
    private static final int SPINS = 100;
    private static final long PARK_MIN_NS = 1_000;

    private final long parkMaxNs;

    /** @param parkMaxNs the longest park; bounds the extra latency of the first event after idle. */
    public BackoffWaitStrategy(final long parkMaxNs)
    {
        if (parkMaxNs < PARK_MIN_NS)
        {
            throw new IllegalArgumentException("parkMaxNs must be >= " + PARK_MIN_NS + ", was " + parkMaxNs);
        }
        this.parkMaxNs = parkMaxNs;
    }

    @Override
    public long waitFor(final long sequence, final Sequence cursor, final Sequence dependentSequence, final SequenceBarrier barrier)
        throws AlertException
    {
        long available;
        int attempts = 0;
        long parkNs = PARK_MIN_NS;
        while ((available = dependentSequence.get()) < sequence)
        {
            barrier.checkAlert();
            if (attempts < SPINS)
            {
                attempts++;
                Thread.onSpinWait();
            }
            else
            {
                LockSupport.parkNanos(parkNs);
                parkNs = Math.min(parkNs << 1, parkMaxNs);
            }
        }
        return available;
    }

    @Override
    public void signalAllWhenBlocking()
    {
        // Nobody blocks on a lock: parked waiters wake on their own within parkMax.
    }
}
