package dev.tally.gateway.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.ReferenceCountUtil;

/**
 * Decides when a connection reads: never past its last request, and not while its replies back up.
 *
 * <p><b>The last request.</b> A request is a connection's last when its client said so ({@code Connection: close},
 * or HTTP/1.0 without keep-alive), when it could not be framed (a malformed request line or header, headers or body
 * too large: the bytes after it cannot be trusted to start a request), or when it is the {@code requestsMax}-th of
 * the connection (0: no such limit). There the gate stops reading for good and drops every request already decoded
 * behind it, unread and unapplied: the last one's reply says {@code Connection: close} and the connection closes
 * once it is written, in order after the replies before it. A client that pipelined behind it sees the connection
 * close without those replies and retries them, as RFC 9112 (9.3.2, 9.6) expects; with the same Idempotency-Key a
 * retry is safe.
 *
 * <p>A graceful stop ends every connection the same way ({@link #stop}).
 *
 * <p><b>Replies backing up.</b> A client that pipelines requests and never reads its replies would otherwise make
 * the server buffer replies without bound. While the connection's outbound buffer is above its high water mark
 * (Netty's default, 64 KiB) the gate stops reading, and reads again once it drains below the low one: the client's
 * own TCP window then holds it back.
 */
final class ReadGate extends ChannelInboundHandlerAdapter
{
    private final int requestsMax;
    private int requestCount;
    private boolean ended;

    /** @param requestsMax requests per connection at most; 0: no limit. */
    ReadGate(final int requestsMax)
    {
        this.requestsMax = requestsMax;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object message) throws Exception
    {
        if (message instanceof FullHttpRequest)
        {
            if (ended)
            {
                ReferenceCountUtil.release(message);
                return;
            }
            final FullHttpRequest request = (FullHttpRequest)message;
            final boolean limitReached = requestsMax > 0 && ++requestCount == requestsMax;
            if (limitReached || !HttpUtil.isKeepAlive(request) || request.decoderResult().isFailure())
            {
                ended = true;
                request.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                ctx.channel().config().setAutoRead(false);
            }
        }
        super.channelRead(ctx, message);
    }

    /**
     * A graceful stop ({@link HttpServer#stopAccepting()}): the connection reads no more requests, and drops any
     * already decoded, whatever its replies do from here on (their writability must not turn reading back on while
     * the ring drains). On the channel's event loop.
     */
    static void stop(final Channel channel)
    {
        final ReadGate gate = channel.pipeline().get(ReadGate.class);
        if (gate != null)
        {
            gate.ended = true;
        }
        channel.config().setAutoRead(false);
    }

    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext ctx) throws Exception
    {
        if (!ended)
        {
            ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        }
        super.channelWritabilityChanged(ctx);
    }
}
