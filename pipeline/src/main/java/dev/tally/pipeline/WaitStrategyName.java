package dev.tally.pipeline;

import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.SleepingWaitStrategy;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.YieldingWaitStrategy;

/**
 * How pipeline threads wait for work. The default, {@link #WAKING}, spins briefly, then parks until the
 * stage before wakes it ({@link WakingWaitStrategy}): no CPU to speak of when idle, no spinning while an
 * upstream stage works, and no timer overshoot on the way from one stage to the next ({@link #BACKOFF}, the
 * default until it was measured against it, parks with a growing period capped at 500 µs). That matters on two cores, where the journaler, the business
 * thread, the responder, Netty and PostgreSQL share the CPU: Disruptor's {@link #BLOCKING} strategy
 * busy-spins while it waits for an upstream stage (e.g. the business thread during the journaler's
 * fsync), and {@link #SLEEPING} parks ~50 µs at a time, ~9 % of a core per idle stage. Measured side by
 * side in docs/benchmarks/history/2026-11-30-blocking-wait-strategy-spins.md. {@link #BUSY_SPIN} is for machines
 * with a core per stage.
 */
public enum WaitStrategyName
{
    /** Spin briefly, then park until the stage before wakes this one (100 ms safety net). The default. */
    WAKING,
    /** Spin briefly, then park with a growing period up to 500 µs. */
    BACKOFF,
    /** Disruptor's sleeping strategy: spin, yield, then park ~50 µs at a time. */
    SLEEPING,
    /** Lock and condition while nothing is published; busy-spins while an upstream stage works. */
    BLOCKING,
    /** Spins then yields: low latency, a core per waiting thread. */
    YIELDING,
    /** Spins: lowest latency, burns a core per thread. Only with dedicated cores. */
    BUSY_SPIN;

    /** Longest park of {@link #BACKOFF}: the most an idle stage adds to the first event's latency. */
    public static final long BACKOFF_PARK_MAX_NS = 500_000;
    /**
     * Longest park of {@link #WAKING} without a wake-up. Nothing waits on it: every hand-over wakes the next
     * stage and {@link WakingWaitStrategy#wakeAll()} wakes them for a shutdown. It only bounds what an idle
     * server spends on timer wake-ups: 10 per second per stage (at 2 ms it was 500, ≈ 0.6 % of a core each).
     */
    public static final long WAKING_PARK_MAX_NS = 100_000_000;

    /** @return a new strategy instance of this kind. */
    public WaitStrategy create()
    {
        switch (this)
        {
            case BACKOFF: return new BackoffWaitStrategy(BACKOFF_PARK_MAX_NS);
            case WAKING: return new WakingWaitStrategy(WAKING_PARK_MAX_NS);
            case SLEEPING: return new SleepingWaitStrategy();
            case YIELDING: return new YieldingWaitStrategy();
            case BUSY_SPIN: return new BusySpinWaitStrategy();
            case BLOCKING:
            default:
                return new BlockingWaitStrategy();
        }
    }
}
