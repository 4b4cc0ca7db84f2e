package dev.tally.gateway.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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
    private static final int DEPTH = ReadGate.PIPELINE_DEPTH_MAX;

    private final ReadGateMeter meter = new ReadGateMeter();

    private EmbeddedChannel channel(final int requestsMax)
    {
        final EmbeddedChannel channel = new EmbeddedChannel(new ReadGate(requestsMax, meter));
        channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(HIGH_WATER_MARK / 2, HIGH_WATER_MARK));
        return channel;
    }

    /** A request whose body counts references (the empty buffer's never drops), to see that it is released. */
    private static FullHttpRequest requestWithBody(final String uri)
    {
        return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, uri, Unpooled.copiedBuffer(new byte[] {'{', '}'}));
    }

    /** Sends {@code count} requests {@code /0}, {@code /1}, ... in one read. */
    private static void read(final EmbeddedChannel channel, final int count)
    {
        final Object[] requests = new Object[count];
        for (int i = 0; i < count; i++)
        {
            requests[i] = request("/" + i);
        }
        channel.writeInbound(requests);
    }

    /** @return the uris of the requests passed on to the API handler so far, releasing them. */
    private static List<String> passed(final EmbeddedChannel channel)
    {
        final List<String> uris = new ArrayList<>();
        for (FullHttpRequest request = channel.readInbound(); request != null; request = channel.readInbound())
        {
            uris.add(request.uri());
            request.release();
        }
        return uris;
    }

    private static List<String> uris(final int from, final int to)
    {
        final List<String> uris = new ArrayList<>();
        for (int i = from; i < to; i++)
        {
            uris.add("/" + i);
        }
        return uris;
    }

    /** Fills the depth, then reads one more request, which the gate holds; @return that one. */
    private static FullHttpRequest holdOne(final EmbeddedChannel channel)
    {
        read(channel, DEPTH);
        final FullHttpRequest held = requestWithBody("/held");
        channel.writeInbound(held);
        assertEquals(DEPTH, passed(channel).size());
        return held;
    }

    /** Writes the API handler's reply to the oldest request not yet answered. */
    private static void reply(final EmbeddedChannel channel)
    {
        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        ((DefaultFullHttpResponse)channel.readOutbound()).release();
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

    @Test
    void shouldStopReadingAtTheDepthAndPassWhatWasReadBehindItOnePerReply()
    {
        final EmbeddedChannel channel = channel(0);

        read(channel, DEPTH + 2);

        assertEquals(uris(0, DEPTH), passed(channel), "the depth's worth goes on");
        assertFalse(channel.config().isAutoRead(), "no more is read at the depth");
        assertEquals(1, meter.depthPauses());

        reply(channel);
        assertEquals(List.of("/" + DEPTH), passed(channel), "a reply lets the next request read go on, in order");
        reply(channel);
        assertEquals(List.of("/" + (DEPTH + 1)), passed(channel));
        assertFalse(channel.config().isAutoRead());
        channel.finishAndReleaseAll();
    }

    @Test
    void shouldReadAgainOnceTheUnansweredRequestsDrainToTheResumeDepth()
    {
        final EmbeddedChannel channel = channel(0);
        read(channel, DEPTH);
        passed(channel);

        for (int unanswered = DEPTH; unanswered > ReadGate.PIPELINE_RESUME_DEPTH + 1; unanswered--)
        {
            reply(channel);
        }
        assertFalse(channel.config().isAutoRead(), "one above the resume depth: still paused");
        reply(channel);

        assertTrue(channel.config().isAutoRead(), "at the resume depth the connection reads again");
        read(channel, 1);
        assertEquals(List.of("/0"), passed(channel), "and passes a new request straight on");
        assertEquals(1, meter.depthPauses());
        channel.finishAndReleaseAll();
    }

    @Test
    void shouldNotCountAnInformationalReplyAsAnAnswer()
    {
        final EmbeddedChannel channel = channel(0);
        read(channel, DEPTH + 1);
        passed(channel);

        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));

        assertEquals(List.of(), passed(channel), "a 100 Continue answers no request");
        channel.finishAndReleaseAll();
    }

    @Test
    void shouldEndTheConnectionAtTheLastRequestItHoldsWhenMoreWait()
    {
        final EmbeddedChannel channel = channel(0);
        final FullHttpRequest over = requestWithBody("/over");

        read(channel, DEPTH + ReadGate.PIPELINE_HELD_MAX);
        channel.writeInbound(over);

        assertEquals(0, over.refCnt(), "a request past what is held is dropped unapplied");
        assertEquals(1, meter.overflows());
        assertEquals(DEPTH, passed(channel).size());
        final List<String> closing = new ArrayList<>();
        for (int i = 0; i < ReadGate.PIPELINE_HELD_MAX; i++)
        {
            reply(channel);
            final FullHttpRequest next = channel.readInbound();
            if (next.headers().contains(HttpHeaderNames.CONNECTION, "close", true))
            {
                closing.add(next.uri());
            }
            next.release();
        }
        assertEquals(List.of("/" + (DEPTH + ReadGate.PIPELINE_HELD_MAX - 1)), closing,
            "every held request is answered, and the last says Connection: close");
        assertFalse(channel.config().isAutoRead(), "the connection never reads again");
        channel.finishAndReleaseAll();
    }

    @Test
    void shouldDropWhatItHoldsWhenTheConnectionCloses()
    {
        final EmbeddedChannel channel = channel(0);
        final FullHttpRequest held = holdOne(channel);

        channel.close();

        assertEquals(0, held.refCnt());
        channel.finishAndReleaseAll();
    }

    @Test
    void shouldDropWhatItHoldsOnAGracefulStop()
    {
        final EmbeddedChannel channel = channel(0);
        final FullHttpRequest held = holdOne(channel);

        ReadGate.stop(channel);
        reply(channel);

        assertEquals(0, held.refCnt(), "nothing decoded before the stop is published after it");
        assertEquals(List.of(), passed(channel));
        channel.finishAndReleaseAll();
    }

    @Test
    void shouldNotLetTheCodecReadOnToFinishARequestWhileTheGatePaused()
    {
        final List<String> reads = new ArrayList<>();
        final EmbeddedChannel channel = new EmbeddedChannel(
            new ChannelOutboundHandlerAdapter()
            {
                @Override
                public void read(final ChannelHandlerContext ctx)
                {
                    reads.add("read");
                    ctx.read();
                }
            },
            ReadValve.INSTANCE,
            new HttpServerCodec(new HttpDecoderConfig(), ApiChannelInitializer.CODEC_PIPELINE_DEPTH_MAX),
            new ProblemAggregator(1024),
            new ReadGate(0, meter));
        final String get = "GET /health HTTP/1.1\r\nHost: h\r\n\r\n";
        final String halfPost = "POST /v1/transfers HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n{\"a\":";
        reads.clear();

        // the depth and one more whole, then half a body: the aggregator would ask for a read to finish it
        channel.writeInbound(Unpooled.copiedBuffer(get.repeat(DEPTH + 1) + halfPost, StandardCharsets.US_ASCII));

        assertFalse(channel.config().isAutoRead());
        assertEquals(List.of(), reads, "no read while paused at the depth");
        assertEquals(DEPTH, passed(channel).size());
        channel.writeInbound(Unpooled.copiedBuffer("1234}", StandardCharsets.US_ASCII));   // the body's end, for a clean close
        channel.finishAndReleaseAll();
    }
}
