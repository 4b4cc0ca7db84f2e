package dev.tally.gateway.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ReadGate} on a real Netty channel: when a connection stops reading, and what it drops. */
class ReadGateTest
{
    private static final int HIGH_WATER_MARK = 64;

    private static EmbeddedChannel channel(final int requestsMax)
    {
        final EmbeddedChannel channel = new EmbeddedChannel(new ReadGate(requestsMax));
        channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(HIGH_WATER_MARK / 2, HIGH_WATER_MARK));
        return channel;
    }

    private static FullHttpRequest request(final String uri)
    {
        return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri, Unpooled.EMPTY_BUFFER);
    }

    @Test
    void shouldStopReadingWhileRepliesBackUpAndReadAgainOnceTheyDrain()
    {
        final EmbeddedChannel channel = channel(0);

        channel.write(Unpooled.wrappedBuffer(new byte[HIGH_WATER_MARK + 1]));   // a reply the client has not taken yet

        assertFalse(channel.isWritable());
        assertFalse(channel.config().isAutoRead(), "no more requests are read while the replies back up");

        channel.flush();   // the client read them

        assertTrue(channel.isWritable());
        assertTrue(channel.config().isAutoRead());
        channel.finishAndReleaseAll();
    }

    @Test
    void shouldNeverReadAgainAfterAGracefulStopWhateverTheRepliesDo()
    {
        final EmbeddedChannel channel = channel(0);

        ReadGate.stop(channel);
        channel.write(Unpooled.wrappedBuffer(new byte[HIGH_WATER_MARK + 1]));   // replies of the drain back up...
        channel.flush();                                                         // ... and drain

        assertFalse(channel.config().isAutoRead(), "a drained reply must not turn reading back on during a stop");
        final FullHttpRequest decodedBefore = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/late",
            Unpooled.copiedBuffer(new byte[] {'{', '}'}));
        channel.writeInbound(decodedBefore);
        assertNull(channel.readInbound(), "nothing reaches the API handler, so nothing is published into the ring");
        assertEquals(0, decodedBefore.refCnt());
        channel.finishAndReleaseAll();
    }

    @Test
    void shouldDropEveryRequestBehindOneThatSaysConnectionCloseAndNeverReadAgain()
    {
        final EmbeddedChannel channel = channel(0);
        final FullHttpRequest last = request("/last");
        last.headers().set(HttpHeaderNames.CONNECTION, "close");
        final FullHttpRequest behind = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/behind",
            Unpooled.copiedBuffer(new byte[] {'{', '}'}));

        channel.writeInbound(request("/first"), last, behind);

        assertEquals("/first", ((FullHttpRequest)channel.readInbound()).uri());
        assertEquals("/last", ((FullHttpRequest)channel.readInbound()).uri());
        assertNull(channel.readInbound(), "the request behind the last one is dropped");
        assertEquals(0, behind.refCnt(), "and released");
        assertFalse(channel.config().isAutoRead());

        channel.write(Unpooled.wrappedBuffer(new byte[HIGH_WATER_MARK + 1]));
        channel.flush();

        assertFalse(channel.config().isAutoRead(), "draining replies does not resume reading past the last request");
        channel.finishAndReleaseAll();
    }

    @Test
    void shouldEndAtARequestThatCouldNotBeFramedAndMarkItConnectionClose()
    {
        final EmbeddedChannel channel = channel(0);
        final FullHttpRequest broken = request("/broken");
        broken.setDecoderResult(io.netty.handler.codec.DecoderResult.failure(new IllegalArgumentException("bad header")));

        channel.writeInbound(broken, request("/behind"));

        final FullHttpRequest passed = channel.readInbound();
        assertSame(broken, passed);
        assertEquals("close", passed.headers().get(HttpHeaderNames.CONNECTION));
        assertNull(channel.readInbound());
        assertFalse(channel.config().isAutoRead());
        passed.release();
        channel.finishAndReleaseAll();
    }

    @Test
    void shouldEndAtTheLastAllowedRequest()
    {
        final EmbeddedChannel channel = channel(2);

        channel.writeInbound(request("/1"), request("/2"), request("/3"));

        assertEquals("/1", ((FullHttpRequest)channel.readInbound()).uri());
        final FullHttpRequest second = channel.readInbound();
        assertEquals("close", second.headers().get(HttpHeaderNames.CONNECTION));
        assertNull(channel.readInbound());
        channel.finishAndReleaseAll();
    }
}
