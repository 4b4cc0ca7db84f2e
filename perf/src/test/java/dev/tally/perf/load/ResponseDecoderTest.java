package dev.tally.perf.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResponseDecoderTest
{
    private static final String CREATED = "HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{\"id\":\"x\"}\n";
    private static final String REPLAYED =
        "HTTP/1.1 201 Created\r\nContent-Length: 2\r\nIdempotent-Replayed: true\r\n\r\n{}";
    private static final String REJECTED = "HTTP/1.1 422 Unprocessable Entity\r\ncontent-length: 0\r\n\r\n";

    private final List<String> seen = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    private final EmbeddedChannel channel = new EmbeddedChannel(new ResponseDecoder(new ResponseDecoder.Sink()
    {
        @Override
        public void onResponse(final int status, final boolean replayed, final ByteBuf buffer, final int bodyIndex, final int bodyLength)
        {
            seen.add(status + (replayed ? " replayed " : " ") + buffer.toString(bodyIndex, bodyLength, StandardCharsets.US_ASCII));
        }

        @Override
        public void onProtocolError(final String what)
        {
            errors.add(what);
        }
    }));

    @Test
    void shouldDecodePipelinedResponsesInOneRead()
    {
        channel.writeInbound(bytes(CREATED + REPLAYED + REJECTED));

        assertEquals(List.of("201 {\"id\":\"x\"}\n", "201 replayed {}", "422 "), seen);
        assertTrue(errors.isEmpty());
    }

    @Test
    void shouldDecodeAResponseSplitAtEveryByte()
    {
        final String all = CREATED + REPLAYED;
        for (int i = 0; i < all.length(); i++)
        {
            channel.writeInbound(bytes(all.substring(i, i + 1)));
        }

        assertEquals(List.of("201 {\"id\":\"x\"}\n", "201 replayed {}"), seen);
    }

    @Test
    void shouldTreatAMissingContentLengthAsAProtocolErrorAndClose()
    {
        channel.writeInbound(bytes("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n"));

        assertTrue(seen.isEmpty());
        assertEquals(1, errors.size());
        assertFalse(channel.isOpen());
    }

    @Test
    void shouldRejectSomethingThatIsNotAStatusLine()
    {
        channel.writeInbound(bytes("SSH-2.0-OpenSSH\r\n\r\n"));

        assertEquals(1, errors.size());
    }

    private static ByteBuf bytes(final String text)
    {
        return Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
    }
}
