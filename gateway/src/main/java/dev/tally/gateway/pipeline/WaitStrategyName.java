package dev.tally.gateway.pipeline;

import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.SleepingWaitStrategy;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.YieldingWaitStrategy;

/**
 * How pipeline threads wait for work. The default, {@link #BLOCKING}, parks idle threads: on a 2-core
 * machine four pipeline threads plus Netty and PostgreSQL cannot each own a core, so spinning would
 * steal the CPU the other stages need. {@link #BUSY_SPIN} is for machines with a core per stage.
 */
public enum WaitStrategyName
{
    /** Lock and condition: no CPU when idle, a few microseconds to wake. The default. */
    BLOCKING,
    /** Spins briefly, yields, then parks for short periods: lower latency, some idle CPU. */
    SLEEPING,
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
