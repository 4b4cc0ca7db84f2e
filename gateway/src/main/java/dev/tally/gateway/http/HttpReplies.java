package dev.tally.gateway.http;

import dev.tally.gateway.api.RenderedResponse;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import dev.tally.gateway.api.problem.Problem;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
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
 *
 * <p>A hole may also be filled by a stream ({@link #beginStream}, {@link #streamChunk}, {@link #endStream}): a chunked
 * reply written part by part while the query pages through its rows. Its parts leave as soon as every reply before
 * it has left, and the replies after it wait until its last part: the connection's order holds. Parts produced before
 * the stream reaches the head of its connection wait in the hole; the producer bounds them ({@link #streamBacklogBytes}).
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
        /** A streamed reply: its head, then the parts not yet written, until {@link #ended}. */
        private HttpResponse streamHead;
        private final ArrayDeque<HttpContent> streamParts = new ArrayDeque<>();
        private long streamBacklogBytes;
        private boolean streamHeadSent;
        private boolean ended;
        /** The stream failed: closed after what was sent (a reply cannot change once its head left), or a 503 if none did. */
        private boolean aborted;

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
            drain(hole.channel, held);
        }
    }

    /**
     * Fills {@code hole} with a chunked reply whose body follows in {@link #streamChunk} parts and ends with
     * {@link #endStream} (or {@link #abortStream}); the status is told to the hole's listener now.
     */
    static void beginStream(final Hole hole, final int status, final CharSequence contentType, final boolean keepAlive)
    {
        final ArrayDeque<Hole> held = hole.channel.attr(HELD).get();
        synchronized (held)
        {
            final HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), OWN_HEADERS);
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType).set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
            if (hole.requestId != null)
            {
                head.headers().set(RequestIds.REQUEST_ID, hole.requestId);
            }
            hole.streamHead = head;
            hole.keepAlive = keepAlive;
            hole.onReply.accept(status);
            drain(hole.channel, held);
        }
    }

    /** Appends a part (taken over) to a stream begun with {@link #beginStream}; written at once when its turn has come. */
    static void streamChunk(final Hole hole, final ByteBuf part)
    {
        final ArrayDeque<Hole> held = hole.channel.attr(HELD).get();
        synchronized (held)
        {
            hole.streamParts.addLast(new DefaultHttpContent(part));
            hole.streamBacklogBytes += part.readableBytes();
            drain(hole.channel, held);
        }
    }

    /** Ends a stream: its last part goes, then the replies queued behind it. */
    static void endStream(final Hole hole)
    {
        final ArrayDeque<Hole> held = hole.channel.attr(HELD).get();
        synchronized (held)
        {
            hole.streamParts.addLast(LastHttpContent.EMPTY_LAST_CONTENT);
            hole.ended = true;
            drain(hole.channel, held);
        }
    }

    /**
     * Ends a stream that failed midway: once its turn comes, the connection closes after the parts already written (a
     * client sees a chunked body without its end, never a complete-looking one); if nothing was written yet, a 503 takes
     * its place instead. Parts not yet written are dropped.
     */
    static void abortStream(final Hole hole, final ByteBuf problemJson)
    {
        final ArrayDeque<Hole> held = hole.channel.attr(HELD).get();
        synchronized (held)
        {
            for (final HttpContent part : hole.streamParts)
            {
                part.release();
            }
            hole.streamParts.clear();
            hole.streamBacklogBytes = 0;
            if (!hole.streamHeadSent)
            {
                hole.streamHead = null;
                hole.response = response(503, Problem.CONTENT_TYPE, problemJson, false, 1, null, hole.requestId);
            }
            else
            {
                problemJson.release();
                hole.aborted = true;
                hole.ended = true;
            }
            drain(hole.channel, held);
        }
    }

    /**
     * @return bytes of the stream's parts waiting for their turn (replies before it still being answered): its producer
     * waits while this is high, so that a slow reply ahead never makes a statement's rows pile up in memory.
     */
    static long streamBacklogBytes(final Hole hole)
    {
        final ArrayDeque<Hole> held = hole.channel.attr(HELD).get();
        synchronized (held)
        {
            return hole.streamBacklogBytes;
        }
    }

    /** @return true while a read-pool query (a statement's stream among them) still owes {@code channel} a reply or part. */
    static boolean isAnswering(final Channel channel)
    {
        final ArrayDeque<Hole> held = channel.attr(HELD).get();
        if (held == null)
        {
            return false;
        }
        synchronized (held)
        {
            return !held.isEmpty();
        }
    }

    /** Writes, from the head of the connection's queue, every reply ready, and the parts of a stream until it ends. */
    private static void drain(final Channel channel, final ArrayDeque<Hole> held)
    {
        while (!held.isEmpty())
        {
            final Hole first = held.peekFirst();
            if (first.response != null)
            {
                held.removeFirst();
                send(channel, first.response, first.keepAlive, true);
                continue;
            }
            if (first.streamHead == null)
            {
                return;   // a query still answering: it and what follows it wait
            }
            if (!first.streamHeadSent)
            {
                channel.write(first.streamHead, channel.voidPromise());
                first.streamHeadSent = true;
            }
            while (!first.streamParts.isEmpty())
            {
                channel.write(first.streamParts.removeFirst(), channel.voidPromise());
            }
            first.streamBacklogBytes = 0;
            if (!first.ended)
            {
                channel.flush();
                return;
            }
            held.removeFirst();
            if (first.aborted || !first.keepAlive)
            {
                channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            channel.flush();
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
