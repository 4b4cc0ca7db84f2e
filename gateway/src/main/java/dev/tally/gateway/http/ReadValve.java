package dev.tally.gateway.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;

/**
 * Holds the socket to what the {@link ReadGate} decided: a request for a read passes only while the connection reads
 * ({@code autoRead}, which only the gate turns off). The HTTP codec and the aggregator ask for a read themselves
 * whenever a read ended inside a request and {@code autoRead} is off, so that the request can be finished
 * ({@code ByteToMessageDecoder} and {@code MessageAggregator.channelReadComplete}): right for a connection that
 * wants the request, wrong for one paused to stop taking requests, since a client streaming pipelined requests ends
 * almost every read inside one and each such read would bring the next. Placed before the codec (after TLS), so
 * every such request passes here. Stateless: one for all connections.
 */
@ChannelHandler.Sharable
final class ReadValve extends ChannelOutboundHandlerAdapter
{
    static final ReadValve INSTANCE = new ReadValve();

    private ReadValve()
    {
    }

    @Override
    public void read(final ChannelHandlerContext ctx)
    {
        if (ctx.channel().config().isAutoRead())
        {
            ctx.read();
        }
    }
}
