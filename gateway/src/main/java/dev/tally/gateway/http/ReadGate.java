package dev.tally.gateway.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * Decides when a connection reads: never past its last request, not while it has {@link #PIPELINE_DEPTH_MAX}
 * requests unanswered, and not while its replies back up. Sits after the aggregator, so it sees whole requests going
 * in and replies going out, on the connection's event loop; {@link ReadValve} before the codec keeps the socket to
 * its decision.
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
 * <p><b>Pipelining depth.</b> At most {@link #PIPELINE_DEPTH_MAX} requests of a connection are passed on and not yet
 * answered (a reply written through the gate answers one). At that depth the gate stops reading; requests already
 * read behind it (the rest of that socket read) wait here, in order, and are passed on one per reply that leaves; once
 * none waits and the unanswered ones are down to {@link #PIPELINE_RESUME_DEPTH}, reading resumes. So every request
 * a client pipelines is answered, in order, however many it sends, and one connection never has more than the depth
 * in the ring; the client's TCP window holds back the rest. The wait is bounded by what one read can hold: more than
 * {@link #PIPELINE_HELD_MAX} waiting, which a socket read of 64 KiB cannot bring even of the smallest requests,
 * makes the last of them the connection's last request, as above, and drops the rest.
 *
 * <p><b>Replies backing up.</b> A client that pipelines requests and never reads its replies would otherwise make
 * the server buffer replies without bound. While the connection's outbound buffer is above its high water mark
 * (Netty's default, 64 KiB) the gate stops reading, and reads again once it drains below the low one: the client's
 * own TCP window then holds it back.
 *
 * <p>Each pause for depth or for replies, and each connection ended at the held limit, is counted and logged
 * ({@link ReadGateMeter}).
 */
final class ReadGate extends ChannelDuplexHandler
{
    /** Requests of one connection passed on and not yet answered, at most: its share of the ring. */
    static final int PIPELINE_DEPTH_MAX = 128;
    /** Unanswered requests a paused connection drains to before it reads again: one read brings many at once. */
    static final int PIPELINE_RESUME_DEPTH = PIPELINE_DEPTH_MAX / 2;
    /**
     * Requests read past the depth that wait here, at most. A socket read brings at most 64 KiB (Netty's adaptive
     * read buffer) and the smallest request is 18 bytes ({@code GET / HTTP/1.1}, two CR LF), so one read holds at
     * most 3,641 and two reads (a TLS record finished after the pause) 7,282: an honest client never meets this.
     * At a few hundred bytes per decoded request, a few MiB at most: the order of one body at the default limit.
     */
    static final int PIPELINE_HELD_MAX = 8_192;

    private final int requestsMax;
    private final ReadGateMeter meter;
    private int requestCount;
    private boolean ended;
    /** Requests passed on and not yet answered. */
    private int unansweredCount;
    /** Requests read while {@link #unansweredCount} was at the depth, in request order. */
    private final ArrayDeque<FullHttpRequest> held = new ArrayDeque<>();
    /** Reading stopped at the depth, until the unanswered requests drain to {@link #PIPELINE_RESUME_DEPTH}. */
    private boolean atDepth;
    /** Passing held requests on, from a reply's write: a reply written meanwhile only counts. */
    private boolean passingHeld;

    /**
     * @param requestsMax requests per connection at most; 0: no limit.
     * @param meter       counts and logs the pauses and refusals, shared by every connection.
     */
    ReadGate(final int requestsMax, final ReadGateMeter meter)
    {
        this.requestsMax = requestsMax;
        this.meter = meter;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object message) throws Exception
    {
        if (!(message instanceof FullHttpRequest))
        {
            super.channelRead(ctx, message);
            return;
        }
        final FullHttpRequest request = (FullHttpRequest)message;
        if (ended)
        {
            ReferenceCountUtil.release(request);
            return;
        }
        final boolean limitReached = requestsMax > 0 && ++requestCount == requestsMax;
        if (limitReached || !HttpUtil.isKeepAlive(request) || request.decoderResult().isFailure())
        {
            endAt(request);
        }
        if (held.isEmpty() && unansweredCount < PIPELINE_DEPTH_MAX)
        {
            pass(ctx, request);
        }
        else if (held.size() < PIPELINE_HELD_MAX)
        {
            held.addLast(request);
        }
        else
        {
            ReferenceCountUtil.release(request);
            endAt(held.peekLast());
            meter.overflowed(ctx.channel());
        }
        applyReading(ctx);
    }

    private void endAt(final FullHttpRequest last)
    {
        ended = true;
        last.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }

    private void pass(final ChannelHandlerContext ctx, final FullHttpRequest request)
    {
        if (++unansweredCount == PIPELINE_DEPTH_MAX && !atDepth)
        {
            atDepth = true;
            meter.pausedAtDepth(ctx.channel());
        }
        ctx.fireChannelRead(request);
    }

    /** A reply (not a {@code 1xx}) answers the oldest request unanswered: the next one waiting may go on. */
    @Override
    public void write(final ChannelHandlerContext ctx, final Object message, final ChannelPromise promise) throws Exception
    {
        final boolean reply = message instanceof HttpResponse &&
            ((HttpResponse)message).status().codeClass() != HttpStatusClass.INFORMATIONAL;
        ctx.write(message, promise);
        if (reply && unansweredCount > 0)
        {
            unansweredCount--;
            passHeld(ctx);
            applyReading(ctx);
        }
    }

    /** Passes on held requests while the depth allows; a reply written by one of them (a full ring) lets the next go. */
    private void passHeld(final ChannelHandlerContext ctx)
    {
        if (passingHeld)
        {
            return;
        }
        passingHeld = true;
        try
        {
            while (!held.isEmpty() && unansweredCount < PIPELINE_DEPTH_MAX)
            {
                pass(ctx, held.pollFirst());
            }
        }
        finally
        {
            passingHeld = false;
        }
    }

    /** Reads while the connection is not ended, not at depth and its replies do not back up. */
    private void applyReading(final ChannelHandlerContext ctx)
    {
        if (atDepth && held.isEmpty() && unansweredCount <= PIPELINE_RESUME_DEPTH)
        {
            atDepth = false;
        }
        final boolean read = !ended && !atDepth && ctx.channel().isWritable();
        if (ctx.channel().config().isAutoRead() != read)
        {
            ctx.channel().config().setAutoRead(read);
        }
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
            gate.dropHeld();
        }
        channel.config().setAutoRead(false);
    }

    private void dropHeld()
    {
        while (!held.isEmpty())
        {
            ReferenceCountUtil.release(held.pollFirst());
        }
    }

    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext ctx) throws Exception
    {
        if (!ctx.channel().isWritable() && !ended)
        {
            meter.pausedForReplies(ctx.channel());
        }
        applyReading(ctx);
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) throws Exception
    {
        dropHeld();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(final ChannelHandlerContext ctx)
    {
        dropHeld();
    }
}
