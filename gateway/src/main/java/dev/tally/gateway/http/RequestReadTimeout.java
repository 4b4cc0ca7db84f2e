package dev.tally.gateway.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Cuts off a client that takes longer than {@code readTimeoutMs} to send one request, counted from the
 * request's first byte to its last: the defence against slow-loris, which the idle timeout cannot give
 * (every dribbled byte resets it). The offender gets 408 {@code request-timeout}, in order after the replies to
 * the requests it sent before, and its connection is closed; other connections are not affected, and no I/O
 * thread ever waits for it.
 *
 * <p>Two handlers share this state: {@link #start()} sits before the HTTP codec and notes when bytes of a
 * new request arrive; {@link #end()} sits after the aggregator and notes that the request is whole. There is
 * no timer per request: one check is scheduled when a request starts and no check is pending, and it
 * re-arms itself only while requests keep arriving, so a busy keep-alive connection costs one scheduled
 * task per timeout period, not one per request. Both handlers run on the channel's event loop.
 *
 * <p>The clock starts with a read that begins a request. The first bytes of a next request that came in the same
 * read as the end of the one before start it at their next read instead; a client that sends nothing more after
 * them is closed by the idle timeout.
 */
final class RequestReadTimeout
{
    private final long readTimeoutNs;
    private final LongAdder timeouts;
    private final Start start = new Start();
    private final End end = new End();
    /** {@link System#nanoTime()} of the first byte of the request being read, or 0 between requests. */
    private long requestStartNs;
    private boolean checkPending;
    private ScheduledFuture<?> pendingCheck;
    private ChannelHandlerContext context;
    /** The context of {@link #end()}: a timed-out request enters the pipeline there, as a whole one would. */
    private ChannelHandlerContext endContext;

    /** @param timeouts counts the connections cut off, shared by all of them. */
    RequestReadTimeout(final long readTimeoutMs, final LongAdder timeouts)
    {
        this.readTimeoutNs = TimeUnit.MILLISECONDS.toNanos(readTimeoutMs);
        this.timeouts = timeouts;
    }

    /** @return the handler to place before the HTTP codec (after TLS, which it must see decrypted). */
    ChannelInboundHandlerAdapter start()
    {
        return start;
    }

    /** @return the handler to place after the aggregator. */
    ChannelInboundHandlerAdapter end()
    {
        return end;
    }

    private void onBytes(final ChannelHandlerContext ctx)
    {
        if (requestStartNs != 0)
        {
            return;
        }
        requestStartNs = System.nanoTime();
        if (!checkPending)
        {
            context = ctx;
            schedule(readTimeoutNs);
        }
    }

    private void schedule(final long delayNs)
    {
        checkPending = true;
        pendingCheck = context.executor().schedule(this::check, delayNs, TimeUnit.NANOSECONDS);
    }

    private void check()
    {
        checkPending = false;
        if (requestStartNs == 0 || !context.channel().isActive())
        {
            return;
        }
        final long remainingNs = requestStartNs + readTimeoutNs - System.nanoTime();
        if (remainingNs > 0)
        {
            schedule(remainingNs);
            return;
        }
        requestStartNs = 0;
        timeouts.increment();
        // Not written from here: a request this connection pipelined before may still be in the ring, and its reply
        // must leave first (RFC 9112, 9.3.2). A failed request takes the 408 down the pipeline, where the read gate
        // makes it the connection's last and the API handler answers it in order, through the ring, then closes.
        final FullHttpRequest timedOut = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/", Unpooled.EMPTY_BUFFER);
        timedOut.setDecoderResult(DecoderResult.failure(new TimedOut()));
        endContext.fireChannelRead(timedOut);
    }

    /** The cause a timed-out request carries down the pipeline; the API handler answers it with 408. */
    static final class TimedOut extends DecoderException
    {
        private static final long serialVersionUID = 1L;

        TimedOut()
        {
            super("The request did not arrive whole within the read timeout.");
        }
    }

    private final class Start extends ChannelInboundHandlerAdapter
    {
        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object message) throws Exception
        {
            if (message instanceof ByteBuf && ((ByteBuf)message).isReadable())
            {
                onBytes(ctx);
            }
            super.channelRead(ctx, message);
        }

        /** A closed connection needs no check: drop it now rather than hold the channel until it fires. */
        @Override
        public void channelInactive(final ChannelHandlerContext ctx) throws Exception
        {
            if (pendingCheck != null)
            {
                pendingCheck.cancel(false);
            }
            super.channelInactive(ctx);
        }
    }

    private final class End extends ChannelInboundHandlerAdapter
    {
        @Override
        public void handlerAdded(final ChannelHandlerContext ctx)
        {
            endContext = ctx;
        }

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object message) throws Exception
        {
            if (message instanceof FullHttpRequest)
            {
                requestStartNs = 0;
            }
            super.channelRead(ctx, message);
        }
    }
}
