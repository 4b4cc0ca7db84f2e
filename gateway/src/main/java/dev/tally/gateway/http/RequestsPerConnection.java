package dev.tally.gateway.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.util.ReferenceCountUtil;

/**
 * Ends a connection after {@code requestsMax} requests: the last one is marked {@code Connection: close},
 * so its reply says so and the connection closes after it (the API handler already does that for a
 * client's own {@code Connection: close}). Requests pipelined behind the last are dropped unread, never
 * applied: their client sees the connection close without a reply and retries elsewhere, as RFC 9112
 * (9.3.2) expects of a client that pipelines.
 */
final class RequestsPerConnection extends ChannelInboundHandlerAdapter
{
    private final int requestsMax;
    private int requestCount;

    RequestsPerConnection(final int requestsMax)
    {
        this.requestsMax = requestsMax;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object message) throws Exception
    {
        if (message instanceof FullHttpRequest)
        {
            if (requestCount >= requestsMax)
            {
                ReferenceCountUtil.release(message);
                return;
            }
            if (++requestCount == requestsMax)
            {
                ((FullHttpRequest)message).headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                ctx.channel().config().setAutoRead(false);
            }
        }
        super.channelRead(ctx, message);
    }
}
