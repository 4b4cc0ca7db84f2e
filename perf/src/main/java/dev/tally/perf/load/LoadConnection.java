package dev.tally.perf.load;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * One keep-alive connection: up to {@code depth} requests in flight, answered in order (HTTP/1.1), kept
 * in a small ring of pre-allocated slots. Runs only on its event-loop thread.
 */
final class LoadConnection extends ChannelInboundHandlerAdapter implements ResponseDecoder.Sink
{
    private final LoopDriver driver;
    private final int depth;
    private final int mask;
    private final long[] keySeqs;
    private final int[] flags;
    private final long[] startNs;
    private long head;
    private long tail;
    private Channel channel;
    boolean dirty;
    boolean free;

    /** @param depth requests this connection may have in flight. */
    LoadConnection(final LoopDriver driver, final int depth)
    {
        this.driver = driver;
        this.depth = depth;
        final int size = Integer.highestOneBit(Math.max(1, depth - 1)) << 1;
        this.mask = size - 1;
        this.keySeqs = new long[size];
        this.flags = new int[size];
        this.startNs = new long[size];
    }

    Channel channel()
    {
        return channel;
    }

    int inFlight()
    {
        return (int)(tail - head);
    }

    boolean hasCapacity()
    {
        return channel != null && channel.isActive() && inFlight() < depth;
    }

    /**
     * Queues a request: its bytes are written (not flushed; the driver flushes once per burst).
     *
     * @param start the time its latency is measured from.
     */
    void send(final ByteBuf request, final long keySeq, final int requestFlags, final long start)
    {
        final int slot = (int)(tail++ & mask);
        keySeqs[slot] = keySeq;
        flags[slot] = requestFlags;
        startNs[slot] = start;
        channel.write(request, channel.voidPromise());
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx) throws Exception
    {
        channel = ctx.channel();
        super.channelActive(ctx);
    }

    @Override
    public void onResponse(final int status, final boolean replayed, final ByteBuf buffer, final int bodyIndex, final int bodyLength)
    {
        final long now = System.nanoTime();
        if (inFlight() == 0)
        {
            onProtocolError("a response nobody asked for");
            channel.close();
            return;
        }
        final int slot = (int)(head++ & mask);
        driver.onReply(this, keySeqs[slot], flags[slot], startNs[slot], now, status, replayed, buffer, bodyIndex, bodyLength);
    }

    @Override
    public void onProtocolError(final String what)
    {
        driver.stats().transportError("protocol: " + what, 0);
    }

    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx) throws Exception
    {
        driver.flushDirty();
        super.channelReadComplete(ctx);
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) throws Exception
    {
        abandonInFlight("connection closed with the request in flight");
        driver.onClosed(this);
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        driver.stats().transportError("exception: " + cause.getClass().getSimpleName(), 0);
        ctx.close();
    }

    /** Gives up on every request in flight: their outcome is unknown until the check resolves them. */
    void abandonInFlight(final String why)
    {
        while (head < tail)
        {
            final int slot = (int)(head++ & mask);
            driver.onAbandoned(keySeqs[slot], flags[slot], startNs[slot], why);
        }
    }
}
