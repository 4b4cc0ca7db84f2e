package dev.tally.gateway.http;

import dev.tally.gateway.api.RenderedResponse;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;

/** Builds and writes HTTP responses from a rendered envelope and its body. */
final class HttpReplies
{
    static final AsciiString IDEMPOTENT_REPLAYED = AsciiString.cached("Idempotent-Replayed");
    private static final AsciiString TRUE = AsciiString.cached("true");

    private HttpReplies()
    {
    }

    /** Writes (and flushes) a reply; closes the connection after it unless keep-alive. */
    static void write(final Channel channel, final RenderedResponse rendered, final ByteBuf body, final boolean keepAlive)
    {
        write(channel, rendered, body, keepAlive, null);
    }

    /** As {@link #write(Channel, RenderedResponse, ByteBuf, boolean)}, with the {@code Allow} header a 405 must carry. */
    static void write(
        final Channel channel, final RenderedResponse rendered, final ByteBuf body, final boolean keepAlive, final String allow)
    {
        write(channel, rendered.status(), rendered.contentType(), body, keepAlive, rendered.replayed(), rendered.retryAfterSeconds(),
            allow);
    }

    static void write(
        final Channel channel, final int status, final CharSequence contentType, final ByteBuf body, final boolean keepAlive,
        final boolean replayed, final int retryAfterSeconds)
    {
        write(channel, status, contentType, body, keepAlive, replayed, retryAfterSeconds, null);
    }

    static void write(
        final Channel channel, final int status, final CharSequence contentType, final ByteBuf body, final boolean keepAlive,
        final boolean replayed, final int retryAfterSeconds, final String allow)
    {
        write(channel, status, contentType, body, keepAlive, replayed, retryAfterSeconds, allow, true);
    }

    /**
     * Writes a reply; with {@code flush} false the caller flushes later (the responder flushes each
     * connection once per Disruptor batch, so a pipelining client's replies share one syscall).
     */
    static void write(
        final Channel channel, final int status, final CharSequence contentType, final ByteBuf body, final boolean keepAlive,
        final boolean replayed, final int retryAfterSeconds, final String allow, final boolean flush)
    {
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), body);
        response.headers()
            .set(HttpHeaderNames.CONTENT_TYPE, contentType)
            .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        if (replayed)
        {
            response.headers().set(IDEMPOTENT_REPLAYED, TRUE);
        }
        if (retryAfterSeconds > 0)
        {
            response.headers().setInt(HttpHeaderNames.RETRY_AFTER, retryAfterSeconds);
        }
        if (allow != null)
        {
            response.headers().set(HttpHeaderNames.ALLOW, allow);
        }
        if (!keepAlive)
        {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            channel.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
        else if (flush)
        {
            channel.writeAndFlush(response);
        }
        else
        {
            channel.write(response, channel.voidPromise());
        }
    }
}
