package dev.tally.gateway.http;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets one log line through per interval, whichever thread asks, and counts the ones it holds back so that the next
 * line can say how many there were: an event that repeats under load (a connection pausing, a request refused) is
 * visible in the log without the log becoming the load. One {@code compareAndSet} per line let through, one
 * increment per line held back; no lock, no allocation.
 */
final class LogThrottle
{
    private final long intervalNs;
    /** {@link System#nanoTime()} from which the next line may pass. */
    private final AtomicLong nextLineNs;
    private final AtomicLong heldBack = new AtomicLong();

    /** @param intervalNs the least time between two lines let through. */
    LogThrottle(final long intervalNs)
    {
        this.intervalNs = intervalNs;
        this.nextLineNs = new AtomicLong(System.nanoTime());
    }

    /**
     * @return -1 when this line is to be held back; otherwise the line may be logged, and the value is the number of
     *         lines held back since the last one let through.
     */
    long admit()
    {
        final long nowNs = System.nanoTime();
        final long nextNs = nextLineNs.get();
        if (nowNs - nextNs < 0 || !nextLineNs.compareAndSet(nextNs, nowNs + intervalNs))
        {
            heldBack.incrementAndGet();
            return -1;
        }
        return heldBack.getAndSet(0);
    }
}
