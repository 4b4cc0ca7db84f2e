package dev.tally.gateway.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import org.junit.jupiter.api.Test;

/**
 * A connection's replies leave in request order even when some are answered later from the read pool:
 * on Netty's {@link EmbeddedChannel}, replies written behind a hole wait until it is filled, and a second hole
 * holds what follows it.
 */
class HttpRepliesOrderTest
{
    @Test
    void shouldHoldRepliesBehindAHoleUntilItIsFilled()
    {
        final EmbeddedChannel channel = new EmbeddedChannel();
        write(channel, "r1");
        final List<Integer> filled = new ArrayList<>();
        final HttpReplies.Hole r2 = HttpReplies.hold(channel, null, filled::add);
        write(channel, "r3");
        final HttpReplies.Hole r4 = HttpReplies.hold(channel, null, filled::add);
        write(channel, "r5");
        channel.flush();
        assertEquals(List.of("r1"), bodies(channel), "r3 waits for r2");

        HttpReplies.fill(r4, 404, "text/plain", Unpooled.copiedBuffer("r4", StandardCharsets.US_ASCII), true, 0);
        assertEquals(List.of(), bodies(channel), "r4 is ready but waits for r2");

        HttpReplies.fill(r2, 200, "text/plain", Unpooled.copiedBuffer("r2", StandardCharsets.US_ASCII), true, 0);
        assertEquals(List.of("r2", "r3", "r4", "r5"), bodies(channel));
        assertEquals(List.of(404, 200), filled, "each hole tells its status when filled");

        write(channel, "r6");
        channel.flush();
        assertEquals(List.of("r6"), bodies(channel), "nothing held: written at once");
        channel.finishAndReleaseAll();
    }

    private static void write(final EmbeddedChannel channel, final String body)
    {
        HttpReplies.write(channel, 200, "text/plain", Unpooled.copiedBuffer(body, StandardCharsets.US_ASCII), true, false, 0, null, null);
    }

    private static List<String> bodies(final EmbeddedChannel channel)
    {
        final List<String> bodies = new ArrayList<>();
        FullHttpResponse response;
        while ((response = channel.readOutbound()) != null)
        {
            bodies.add(response.content().toString(StandardCharsets.US_ASCII));
            response.release();
        }
        assertNull(channel.readOutbound());
        return bodies;
    }
}
