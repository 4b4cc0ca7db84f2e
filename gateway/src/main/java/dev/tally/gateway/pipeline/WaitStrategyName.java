package dev.tally.gateway.pipeline;

import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.SleepingWaitStrategy;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.YieldingWaitStrategy;

/**
 * How pipeline threads wait for work. The default, {@link #SLEEPING}, spins about a hundred times, yields
 * a hundred times, then parks for short periods: an idle stage costs almost no CPU, and a stage waiting
 * for the stage before it never holds a core. That matters on two cores, where the journaler, the
 * business thread, the responder, Netty and PostgreSQL share the CPU: Disruptor's {@link #BLOCKING}
 * strategy parks only while the producer has published nothing, and busy-spins while it waits for an
 * upstream stage (e.g. the business thread during the journaler's fsync), stealing the core that stage
 * needs. Measured side by side in docs/BENCHMARKS.md. {@link #BUSY_SPIN} is for machines with a core
 * per stage.
 */
public enum WaitStrategyName
{
    /** Spins briefly, yields, then parks for short periods: no idle CPU to speak of, no spinning on a busy upstream. The default. */
    SLEEPING,
    /** Lock and condition while nothing is published; busy-spins while an upstream stage works. */
    BLOCKING,
    /** Spins then yields: low latency, a core per waiting thread. */
    YIELDING,
    /** Spins: lowest latency, burns a core per thread. Only with dedicated cores. */
    BUSY_SPIN;

    /** @return a new strategy instance of this kind. */
    public WaitStrategy create()
    {
        switch (this)
        {
            case SLEEPING: return new SleepingWaitStrategy();
            case YIELDING: return new YieldingWaitStrategy();
            case BUSY_SPIN: return new BusySpinWaitStrategy();
            case BLOCKING:
            default: return new BlockingWaitStrategy();
        }
    }
}
