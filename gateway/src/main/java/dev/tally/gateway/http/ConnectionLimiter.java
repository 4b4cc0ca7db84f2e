package dev.tally.gateway.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.atomic.AtomicInteger;

/** Closes connections beyond the configured maximum as soon as they are accepted. Shared by all channels. */
@ChannelHandler.Sharable
final class ConnectionLimiter extends ChannelInboundHandlerAdapter
{
    private final int connectionsMax;
    private final AtomicInteger open = new AtomicInteger();

    ConnectionLimiter(final int connectionsMax)
    {
        this.connectionsMax = connectionsMax;
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx) throws Exception
    {
        if (open.incrementAndGet() > connectionsMax)
        {
            ctx.close();
            return;
        }
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) throws Exception
    {
        open.decrementAndGet();
        super.channelInactive(ctx);
    }

    /** @return connections open now. */
    int open()
    {
        return open.get();
    }
}
