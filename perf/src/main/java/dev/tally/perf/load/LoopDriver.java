package dev.tally.perf.load;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Everything one client event-loop thread owns: its connections, its request source, its statistics
 * and outcomes. It decides when each request leaves:
 *
 * <ul>
 *   <li>closed loop: every connection starts with {@code depth} requests; each reply releases the next
 *       one on the same connection, until the measured window ends; a 503 releases it only after
 *       {@link LoadSpec#pauseAfter503Ms()}, as a client honouring {@code Retry-After} would;</li>
 *   <li>open loop: requests leave when the {@link OpenSchedule} says they are due, on a connection
 *       with room; if none has room they wait (their latency still runs from the intended time).</li>
 * </ul>
 * Writes are flushed once per read burst or once per burst of due requests. Only the event-loop thread
 * calls into it, except {@link #wakeForDue()}.
 */
final class LoopDriver
{
    private final EventLoop loop;
    private final int loopIndex;
    private final LoadSpec spec;
    private final RequestSource source;
    private final Outcomes outcomes;
    private final LoopStats stats;
    private final int operationsPerRequest;
    private final List<LoadConnection> connections = new ArrayList<>();
    private final ArrayList<LoadConnection> dirty = new ArrayList<>();
    private final ArrayDeque<LoadConnection> free = new ArrayDeque<>();
    private final AtomicBoolean wakePending = new AtomicBoolean();
    private final Runnable sendDueTask = this::onWake;
    private int requestLengthMax;
    private OpenSchedule schedule;
    private long windowStartNs;
    private long sendUntilNs;
    private boolean warmupBacklogDropped;
    private long issued;
    private long waitedBelow;

    LoopDriver(
        final EventLoop loop, final int loopIndex, final LoadSpec spec, final RequestSource source, final Outcomes outcomes,
        final LoopStats stats)
    {
        this.loop = loop;
        this.loopIndex = loopIndex;
        this.spec = spec;
        this.source = source;
        this.outcomes = outcomes;
        this.stats = stats;
        this.operationsPerRequest = spec.operationsPerRequest();
        this.requestLengthMax = source.requestLengthMax();
    }

    EventLoop loop()
    {
        return loop;
    }

    LoopStats stats()
    {
        return stats;
    }

    RequestSource source()
    {
        return source;
    }

    Outcomes outcomes()
    {
        return outcomes;
    }

    /** Adds a connected connection (on the loop thread). */
    void add(final LoadConnection connection)
    {
        connections.add(connection);
    }

    /** Starts sending (on the loop thread): closed loop fills every connection; open loop waits for the pacer. */
    void start(final long windowStart, final long sendUntil, final OpenSchedule openSchedule)
    {
        this.windowStartNs = windowStart;
        this.sendUntilNs = sendUntil;
        this.schedule = openSchedule;
        for (final LoadConnection connection : connections)
        {
            if (schedule == null)
            {
                while (connection.hasCapacity())
                {
                    send(connection, System.nanoTime());
                }
            }
            else
            {
                markFree(connection);
            }
        }
        flushDirty();
    }

    /** Called by the pacer thread: runs {@link #sendDue()} on the loop, at most one pending task at a time. */
    void wakeForDue()
    {
        if (wakePending.compareAndSet(false, true))
        {
            loop.execute(sendDueTask);
        }
    }

    private void onWake()
    {
        wakePending.set(false);
        sendDue();
        flushDirty();
    }

    /** Open loop: sends every due request that has a connection with room. */
    private void sendDue()
    {
        final long due = schedule.dueFor(loopIndex);
        while (issued < due)
        {
            final long now = System.nanoTime();
            if (now >= sendUntilNs)
            {
                return;
            }
            if (!warmupBacklogDropped && now >= windowStartNs)
            {
                dropWarmupBacklog();
                continue;
            }
            final LoadConnection connection = free.pollFirst();
            if (connection == null)
            {
                waitedBelow = due;
                return;
            }
            connection.free = false;
            final long intended = schedule.intendedNs(loopIndex + issued * spec.clientThreads());
            if (stats.inWindow(intended))
            {
                stats.sendLag(now - intended);
                if (issued < waitedBelow)
                {
                    stats.waitedForConnection++;
                }
            }
            issued++;
            send(connection, intended);
            markFree(connection);
        }
    }

    /**
     * At the start of the measured window, requests of the warmup still waiting are not sent: the
     * measured window starts on schedule, not behind a queue left by a cold JIT.
     */
    private void dropWarmupBacklog()
    {
        warmupBacklogDropped = true;
        final long firstMeasured = schedule.firstLocalIndexAtOrAfter(loopIndex, windowStartNs);
        if (issued < firstMeasured)
        {
            stats.warmupBacklogDropped += firstMeasured - issued;
            issued = firstMeasured;
        }
    }

    private void send(final LoadConnection connection, final long startNs)
    {
        final ByteBuf request = connection.channel().alloc().directBuffer(requestLengthMax);
        final long keySeq = source.writeNext(request);
        if (request.readableBytes() > requestLengthMax)
        {
            requestLengthMax = request.readableBytes();
        }
        connection.send(request, keySeq, source.lastFlags(), startNs);
        stats.requestsSent++;
        if (!connection.dirty)
        {
            connection.dirty = true;
            dirty.add(connection);
        }
    }

    /** Flushes every connection written since the last flush. */
    void flushDirty()
    {
        for (int i = 0; i < dirty.size(); i++)
        {
            final LoadConnection connection = dirty.get(i);
            connection.dirty = false;
            connection.channel().flush();
        }
        dirty.clear();
    }

    /** One reply arrived on {@code connection} for the request {@code keySeq} started at {@code startNs}. */
    void onReply(
        final LoadConnection connection, final long keySeq, final int flags, final long startNs, final long nowNs, final int status,
        final boolean replayed, final ByteBuf buffer, final int bodyIndex, final int bodyLength)
    {
        final boolean ok = source.onReply(keySeq, flags, status, replayed, buffer, bodyIndex, bodyLength);
        stats.reply(startNs, nowNs, status, ok, operationsPerRequest);
        if (schedule == null)
        {
            if (status == 503 && spec.pauseAfter503Ms() > 0)
            {
                loop.schedule(() -> sendAfterPause(connection), spec.pauseAfter503Ms(), TimeUnit.MILLISECONDS);
            }
            else if (nowNs < sendUntilNs && connection.hasCapacity())
            {
                send(connection, System.nanoTime());
            }
            return;
        }
        markFree(connection);
        sendDue();
    }

    private void sendAfterPause(final LoadConnection connection)
    {
        if (System.nanoTime() < sendUntilNs && connection.channel().isActive() && connection.hasCapacity())
        {
            send(connection, System.nanoTime());
            flushDirty();
        }
    }

    private void markFree(final LoadConnection connection)
    {
        if (!connection.free && connection.hasCapacity())
        {
            connection.free = true;
            free.addLast(connection);
        }
    }

    /** A request will get no reply: its outcome is unknown (retries of acknowledged keys need no resolution). */
    void onAbandoned(final long keySeq, final int flags, final long startNs, final String why)
    {
        stats.transportError(why, startNs);
        if ((flags & RequestSource.FLAG_RETRY) == 0)
        {
            outcomes.unknown(keySeq);
        }
    }

    void onClosed(final LoadConnection connection)
    {
        free.remove(connection);
        connection.free = false;
    }

    /** @return requests in flight on this loop (loop thread only). */
    int inFlight()
    {
        int count = 0;
        for (final LoadConnection connection : connections)
        {
            count += connection.inFlight();
        }
        return count;
    }

    /** After the drain: gives up on what is still in flight, counts open-loop requests never sent, closes. */
    void finish(final String why)
    {
        if (schedule != null)
        {
            stats.unsent += Math.max(0, schedule.dueFor(loopIndex) - issued);
        }
        for (final LoadConnection connection : connections)
        {
            connection.abandonInFlight(why);
            connection.channel().close();
        }
    }
}
