package dev.tally.perf.load;

import java.util.concurrent.locks.LockSupport;

/**
 * The open-loop timetable: request {@code i} is due at {@code startNs + i / rate}, whatever happened to
 * the requests before it. A pacer thread sleeps until the next request is due and then wakes the
 * event loops that have due requests (one wake-up task per loop at a time, coalescing), so the event
 * loops never spin. Each loop sends its share ({@code i mod loops == loopIndex}) and measures each
 * request's latency from its intended time, not from when it actually left.
 *
 * <p>The pacer's own lateness (parking granularity, typically 50–100 µs on Linux) is part of the
 * measured latency; the send-lag histogram shows it separately.
 */
final class OpenSchedule implements Runnable
{
    private final long startNs;
    private final long rateRps;
    private final long plannedCount;
    private final LoopDriver[] drivers;
    private final long[] signalled;
    private volatile long dueCount;
    private volatile boolean stopped;

    /**
     * @param startNs      when request 0 is due.
     * @param rateRps      requests per second.
     * @param plannedCount requests in the whole run (warmup and measured window).
     * @param drivers      the event loops, by loop index.
     */
    OpenSchedule(final long startNs, final long rateRps, final long plannedCount, final LoopDriver[] drivers)
    {
        this.startNs = startNs;
        this.rateRps = rateRps;
        this.plannedCount = plannedCount;
        this.drivers = drivers;
        this.signalled = new long[drivers.length];
    }

    /** @return when global request {@code index} is due. */
    long intendedNs(final long index)
    {
        // Split so that neither product overflows over a long run at a high rate.
        return startNs + index / rateRps * 1_000_000_000L + index % rateRps * 1_000_000_000L / rateRps;
    }

    /** @return the first of loop {@code loopIndex}'s own request numbers due at or after {@code timeNs}. */
    long firstLocalIndexAtOrAfter(final int loopIndex, final long timeNs)
    {
        final long elapsedNs = Math.max(0, timeNs - startNs);
        long global = elapsedNs / 1_000_000_000L * rateRps + elapsedNs % 1_000_000_000L * rateRps / 1_000_000_000L;
        while (global > 0 && intendedNs(global - 1) >= timeNs)
        {
            global--;
        }
        while (intendedNs(global) < timeNs)
        {
            global++;
        }
        final int loops = drivers.length;
        return global <= loopIndex ? 0 : (global - loopIndex + loops - 1) / loops;
    }

    /** @return how many of loop {@code loopIndex}'s requests are due so far. */
    long dueFor(final int loopIndex)
    {
        final long due = dueCount;
        final int loops = drivers.length;
        return due > loopIndex ? (due - loopIndex + loops - 1) / loops : 0;
    }

    private long countDueAfter(final long elapsedNs)
    {
        return elapsedNs / 1_000_000_000L * rateRps + elapsedNs % 1_000_000_000L * rateRps / 1_000_000_000L + 1;
    }

    void stop()
    {
        stopped = true;
    }

    @Override
    public void run()
    {
        while (!stopped)
        {
            final long now = System.nanoTime();
            final long due = now < startNs ? 0 : Math.min(plannedCount, countDueAfter(now - startNs));
            if (due > dueCount)
            {
                dueCount = due;
                for (int loop = 0; loop < drivers.length; loop++)
                {
                    final long loopDue = dueFor(loop);
                    if (loopDue > signalled[loop])
                    {
                        signalled[loop] = loopDue;
                        drivers[loop].wakeForDue();
                    }
                }
            }
            if (due >= plannedCount)
            {
                return;
            }
            final long nextNs = intendedNs(due);
            final long sleepNs = nextNs - System.nanoTime();
            if (sleepNs > 0)
            {
                LockSupport.parkNanos(sleepNs);
            }
        }
    }
}
