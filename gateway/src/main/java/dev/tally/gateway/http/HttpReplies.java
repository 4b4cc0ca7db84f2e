package dev.tally.gateway.http;

import dev.tally.gateway.api.RenderedResponse;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import io.netty.util.AttributeKey;
import java.util.ArrayDeque;
import java.util.function.IntConsumer;

/**
 * Builds and writes HTTP responses from a rendered envelope and its body, in request order per connection.
 *
 * <p>Order: the responder writes replies in ring order, which is request order. A reply that a read-pool
 * query answers later (an old transfer, a page of entries) would break it, so before dispatching such a
 * query the responder {@link #hold holds} the connection: a {@link Hole} takes the reply's place, every reply
 * written to that connection meanwhile queues behind it, and {@link #fill} writes the query's reply and then
 * everything queued, in order (HTTP/1.1 pipelining, RFC 9112 §9.3.2).
 */
final class HttpReplies
{
    static final AsciiString IDEMPOTENT_REPLAYED = AsciiString.cached("Idempotent-Replayed");
    private static final AsciiString TRUE = AsciiString.cached("true");
    private static final AsciiString BEARER_CHALLENGE = AsciiString.cached("Bearer realm=\"tally\"");
    /**
     * Reply headers without Netty's per-header validation: every name here is a constant and every value a constant,
     * an integer, or a request id {@link RequestIds#isSane} let through (visible ASCII only), so the check can never
     * fail; it was a seventh of the responder's JFR samples in a {@code uniform} run
     * (docs/benchmarks/history/2026-12-01-cpu-user-kernel-nested-guest.md).
     * Request headers are still validated by the decoder.
     */
    private static final HttpHeadersFactory OWN_HEADERS = DefaultHttpHeadersFactory.headersFactory().withValidation(false);
    private static final HttpHeadersFactory OWN_TRAILERS = DefaultHttpHeadersFactory.trailersFactory().withValidation(false);
    /** A connection's replies from its first open hole on, in request order; absent or empty: nothing held. Guarded by itself. */
    private static final AttributeKey<ArrayDeque<Hole>> HELD = AttributeKey.valueOf(HttpReplies.class, "held");

    /**
     * The place of one reply in a connection's order: open until a read-pool query {@link #fill fills} it (see
     * {@link #hold}); a reply written while the connection is held takes a place already filled.
     */
    static final class Hole
    {
        private final Channel channel;
        private final IntConsumer onReply;
        private final CharSequence requestId;
        private FullHttpResponse response;
        private boolean keepAlive;

        private Hole(final Channel channel, final CharSequence requestId, final IntConsumer onReply)
        {
            this.channel = channel;
            this.requestId = requestId;
            this.onReply = onReply;
        }
    }

    /**
     * Reserves the place of the next reply on {@code channel} for a query answered later: call it where that
     * reply would have been written (the responder, in ring order), then {@link #fill} the hole from the pool,
     * which tells {@code onReply} the status (metrics). The reply carries {@code requestId} ({@link RequestIds}; null: none).
     */
    static Hole hold(final Channel channel, final CharSequence requestId, final IntConsumer onReply)
    {
        ArrayDeque<Hole> held = channel.attr(HELD).get();
        if (held == null)
        {
            final ArrayDeque<Hole> created = new ArrayDeque<>();
            held = channel.attr(HELD).setIfAbsent(created);
            held = held == null ? created : held;
        }
        final Hole hole = new Hole(channel, requestId, onReply);
        synchronized (held)
        {
            held.addLast(hole);
        }
        return hole;
    }

    /** Writes {@code hole}'s reply, then every reply queued behind it up to the next hole still open. */
    static void fill(
        final Hole hole, final int status, final CharSequence contentType, final ByteBuf body, final boolean keepAlive, final int retryAfterSeconds)
    {
        final ArrayDeque<Hole> held = hole.channel.attr(HELD).get();
        synchronized (held)
        {
            hole.response = response(status, contentType, body, false, retryAfterSeconds, null, hole.requestId);
            hole.keepAlive = keepAlive;
            hole.onReply.accept(status);
            // up to a later query's hole still open: its reply and what follows it wait for it
            while (!held.isEmpty() && held.peekFirst().response != null)
            {
                final Hole ready = held.removeFirst();
                send(hole.channel, ready.response, ready.keepAlive, true);
            }
        }
    }

    private HttpReplies()
    {
    }

    /** Writes (and flushes) a reply; closes the connection after it unless keep-alive. */
    static void write(final Channel channel, final RenderedResponse rendered, final ByteBuf body, final boolean keepAlive,
        final CharSequence requestId)
    {
        write(channel, rendered.status(), rendered.contentType(), body, keepAlive, rendered.replayed(), rendered.retryAfterSeconds(),
            null, requestId, true);
    }

    static void write(
        final Channel channel, final int status, final CharSequence contentType, final ByteBuf body, final boolean keepAlive,
        final boolean replayed, final int retryAfterSeconds, final String allow, final CharSequence requestId)
    {
        write(channel, status, contentType, body, keepAlive, replayed, retryAfterSeconds, allow, requestId, true);
    }

    /**
     * Writes a reply; with {@code flush} false the caller flushes later (the responder flushes each
     * connection once per Disruptor batch, so a pipelining client's replies share one syscall).
     *
     * @param allow     the {@code Allow} header a 405 must carry, or null.
     * @param requestId the {@code Request-Id} header ({@link RequestIds}), or null for none.
     */
    static void write(
        final Channel channel, final int status, final CharSequence contentType, final ByteBuf body, final boolean keepAlive,
        final boolean replayed, final int retryAfterSeconds, final String allow, final CharSequence requestId, final boolean flush)
    {
        final FullHttpResponse response = response(status, contentType, body, replayed, retryAfterSeconds, allow, requestId);
        final ArrayDeque<Hole> held = channel.attr(HELD).get();
        if (held != null)
        {
            synchronized (held)
            {
                if (!held.isEmpty())
                {
                    final Hole queued = new Hole(channel, null, null);   // behind a reply a query has yet to write
                    queued.response = response;
                    queued.keepAlive = keepAlive;
                    held.addLast(queued);
                    return;
                }
            }
        }
        send(channel, response, keepAlive, flush);
    }

    private static FullHttpResponse response(
        final int status, final CharSequence contentType, final ByteBuf body, final boolean replayed, final int retryAfterSeconds,
        final String allow, final CharSequence requestId)
    {
        final FullHttpResponse response =
            new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), body, OWN_HEADERS, OWN_TRAILERS);
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
        if (status == 401)
        {
            // every 401 here is a missing or wrong API key, sent as a bearer token (RFC 6750 3, RFC 9110 11.6.1)
            response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, BEARER_CHALLENGE);
        }
        if (requestId != null)
        {
            response.headers().set(RequestIds.REQUEST_ID, requestId);
        }
        return response;
    }

    private static void send(final Channel channel, final FullHttpResponse response, final boolean keepAlive, final boolean flush)
    {
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
