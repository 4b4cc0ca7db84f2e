package dev.tally.perf.load;

import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * What one event-loop thread measured inside the measured window: latency, throughput per second,
 * replies by status, transport errors. Only its own thread writes it; it is read after the run.
 *
 * <p>A request belongs to the window when its start (intended send time in open loop, actual send
 * time in closed loop) falls inside it.
 */
final class LoopStats
{
    /** Latency range recorded: 1 µs to 60 s, 3 significant digits. */
    static final long LATENCY_MAX_US = 60_000_000L;
    static final int SIGNIFICANT_DIGITS = 3;
    static final int STATUS_MAX = 600;

    final Histogram latencyUs = new Histogram(1, LATENCY_MAX_US, SIGNIFICANT_DIGITS);
    /** Open loop: how late each request left against its intended time (client lag or no free connection). */
    final Histogram sendLagUs = new Histogram(1, LATENCY_MAX_US, SIGNIFICANT_DIGITS);
    final long[] repliesByStatus = new long[STATUS_MAX];
    long[] completedPerSecond = new long[0];
    final Map<String, Long> transportErrors = new TreeMap<>();
    long requestsCompleted;
    long operationsCompleted;
    long requestsFailed;
    long requestsSent;
    /** Open loop: requests due by the end of the run that the client never sent (no free connection in time). */
    long unsent;
    /** Open loop: requests that waited for a free connection. */
    long waitedForConnection;
    /** Open loop: warmup requests still unsent when the measured window began (not sent, not measured). */
    long warmupBacklogDropped;

    private long windowStartNs = Long.MAX_VALUE;
    private long windowEndNs = Long.MIN_VALUE;
    private long timelineStartNs;

    /**
     * Sets the measured window (before any request is sent; until then nothing is measured).
     *
     * @param timelineStart start of the per-second timeline (the start of the warmup).
     * @param windowStart   start of the measured window.
     * @param windowEnd     end of the measured window.
     */
    void window(final long timelineStart, final long windowStart, final long windowEnd)
    {
        this.timelineStartNs = timelineStart;
        this.windowStartNs = windowStart;
        this.windowEndNs = windowEnd;
        this.completedPerSecond = new long[(int)((windowEnd - timelineStart) / 1_000_000_000L) + 2];
    }

    /** @return true when a request started at {@code startNs} is measured. */
    boolean inWindow(final long startNs)
    {
        return startNs >= windowStartNs && startNs < windowEndNs;
    }

    /** Records one reply. */
    void reply(final long startNs, final long nowNs, final int status, final boolean ok, final int operations)
    {
        final long second = (nowNs - timelineStartNs) / 1_000_000_000L;
        if (second >= 0 && second < completedPerSecond.length)
        {
            completedPerSecond[(int)second]++;
        }
        if (!inWindow(startNs))
        {
            return;
        }
        latencyUs.recordValue(clampUs(nowNs - startNs));
        requestsCompleted++;
        if (ok)
        {
            operationsCompleted += operations;
        }
        else
        {
            requestsFailed++;
        }
        repliesByStatus[status >= 0 && status < STATUS_MAX ? status : 0]++;
    }

    /** Records a request that left the client {@code lagNs} after its intended time (open loop). */
    void sendLag(final long lagNs)
    {
        sendLagUs.recordValue(clampUs(lagNs));
    }

    /** Records a transport error (counted once per request it cost, or once per connection event). */
    void transportError(final String kind, final long startNs)
    {
        transportErrors.merge(kind, 1L, Long::sum);
        if (inWindow(startNs))
        {
            requestsFailed++;
        }
    }

    /** Adds another loop's figures to these. */
    void mergeFrom(final LoopStats other)
    {
        latencyUs.add(other.latencyUs);
        sendLagUs.add(other.sendLagUs);
        for (int i = 0; i < STATUS_MAX; i++)
        {
            repliesByStatus[i] += other.repliesByStatus[i];
        }
        for (int i = 0; i < completedPerSecond.length; i++)
        {
            completedPerSecond[i] += other.completedPerSecond[i];
        }
        other.transportErrors.forEach((kind, count) -> transportErrors.merge(kind, count, Long::sum));
        requestsCompleted += other.requestsCompleted;
        operationsCompleted += other.operationsCompleted;
        requestsFailed += other.requestsFailed;
        requestsSent += other.requestsSent;
        unsent += other.unsent;
        waitedForConnection += other.waitedForConnection;
        warmupBacklogDropped += other.warmupBacklogDropped;
    }

    private static long clampUs(final long ns)
    {
        return Math.max(1, Math.min(LATENCY_MAX_US, ns / 1_000));
    }
}
