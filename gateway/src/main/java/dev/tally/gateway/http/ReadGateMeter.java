package dev.tally.gateway.http;

import io.netty.channel.Channel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the {@link ReadGate}s of all connections do under load, counted for {@code /metrics} and logged at most once
 * per {@link #LOG_INTERVAL_NS} for each kind (a busy server pauses reading often, and each pause is ordinary
 * back-pressure). Shared by every connection; called on the I/O threads.
 */
final class ReadGateMeter
{
    private static final Logger LOG = LoggerFactory.getLogger(ReadGate.class);
    static final long LOG_INTERVAL_NS = TimeUnit.SECONDS.toNanos(10);

    private final LongAdder depthPauses = new LongAdder();
    private final LongAdder backedUpPauses = new LongAdder();
    private final LongAdder overflows = new LongAdder();
    private final LogThrottle depthPauseLog = new LogThrottle(LOG_INTERVAL_NS);
    private final LogThrottle backedUpPauseLog = new LogThrottle(LOG_INTERVAL_NS);
    private final LogThrottle overflowLog = new LogThrottle(LOG_INTERVAL_NS);

    /** A connection stopped reading with {@link ReadGate#PIPELINE_DEPTH_MAX} requests not yet answered. */
    void pausedAtDepth(final Channel channel)
    {
        depthPauses.increment();
        final long heldBack = depthPauseLog.admit();
        if (heldBack >= 0)
        {
            LOG.info("Reading paused on the connection from {}: {} pipelined requests not yet answered; it reads again as " +
                "replies leave ({} more such pauses since the last line)", channel.remoteAddress(), ReadGate.PIPELINE_DEPTH_MAX, heldBack);
        }
    }

    /** A connection stopped reading because its replies backed up (the client does not read them). */
    void pausedForReplies(final Channel channel)
    {
        backedUpPauses.increment();
        final long heldBack = backedUpPauseLog.admit();
        if (heldBack >= 0)
        {
            LOG.info("Reading paused on the connection from {}: its unread replies passed the write buffer's high water mark; " +
                "it reads again once the client takes them ({} more such pauses since the last line)", channel.remoteAddress(), heldBack);
        }
    }

    /** A connection read more than {@link ReadGate#PIPELINE_HELD_MAX} requests past the depth and was ended there. */
    void overflowed(final Channel channel)
    {
        overflows.increment();
        final long heldBack = overflowLog.admit();
        if (heldBack >= 0)
        {
            LOG.warn("The connection from {} pipelined more than {} requests past the {} not yet answered: those past it are " +
                "dropped unapplied and the connection closes after the replies to the ones before ({} more such connections " +
                "since the last line)", channel.remoteAddress(), ReadGate.PIPELINE_HELD_MAX, ReadGate.PIPELINE_DEPTH_MAX, heldBack);
        }
    }

    /** @return times a connection stopped reading at the pipelining depth. */
    long depthPauses()
    {
        return depthPauses.sum();
    }

    /** @return times a connection stopped reading because its replies backed up. */
    long backedUpPauses()
    {
        return backedUpPauses.sum();
    }

    /** @return connections ended because they pipelined past what is held for them. */
    long overflows()
    {
        return overflows.sum();
    }
}
