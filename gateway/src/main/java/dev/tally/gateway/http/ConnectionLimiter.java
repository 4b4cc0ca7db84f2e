package dev.tally.gateway.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Closes connections beyond the configured maximum as soon as they are accepted, and keeps the open ones in
 * a group so that a graceful stop can reach every connection. Shared by all channels.
 */
@ChannelHandler.Sharable
final class ConnectionLimiter extends ChannelInboundHandlerAdapter
{
    private final int connectionsMax;
    private final AtomicInteger open = new AtomicInteger();
    private final LongAdder refused = new LongAdder();
    /** Set by a graceful stop: a connection accepted just before the listening socket closed is closed at once. */
    private volatile boolean stopping;
    /** Open connections; a closed channel leaves the group by itself. */
    private final ChannelGroup connections = new DefaultChannelGroup("tally-connections", GlobalEventExecutor.INSTANCE);

    ConnectionLimiter(final int connectionsMax)
    {
        this.connectionsMax = connectionsMax;
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx) throws Exception
    {
        if (stopping)
        {
            open.incrementAndGet(); // channelInactive decrements it
            ctx.close();
            return;
        }
        if (open.incrementAndGet() > connectionsMax)
        {
            refused.increment();
            ctx.close();
            return;
        }
        connections.add(ctx.channel());
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) throws Exception
    {
        open.decrementAndGet();
        super.channelInactive(ctx);
    }

    /** From now on, closes every new connection at once. */
    void stop()
    {
        stopping = true;
    }

    /** @return the open connections. */
    ChannelGroup connections()
    {
        return connections;
    }

    /** @return connections closed at accept because {@code connectionsMax} were open. */
    long refused()
    {
        return refused.sum();
    }

    /** @return connections open now. */
    int open()
    {
        return open.get();
    }
}
