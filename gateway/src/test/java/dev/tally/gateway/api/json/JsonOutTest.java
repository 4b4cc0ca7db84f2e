package dev.tally.gateway.api.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * JsonOut stages bytes in an 8 KiB array: documents many times that size, values of every kind landing across
 * the array's end, must come out as the same JSON, read back by an independent parser (Jackson).
 */
class JsonOutTest
{
    private static final long[] NUMBERS = {0, 7, -1, 10, -10, 999_999_999_999L, Long.MAX_VALUE, Long.MIN_VALUE};
    private static final String TRICKY = "q\"b\\s\u0001\u001f\u007f-\u00e9/ok";

    @Test
    void shouldWriteLargeDocumentsWhateverFallsAcrossTheStagingArraysEnd() throws IOException
    {
        // Different prefix lengths shift every value across the 8 KiB boundary at some point.
        for (int prefix = 0; prefix < 40; prefix++)
        {
            final ByteBuf out = Unpooled.buffer(16);
            out.writeCharSequence("<", StandardCharsets.US_ASCII); // the document starts at the writer index
            final JsonOut json = new JsonOut().wrap(out);
            json.beginObject().field("prefix", "x".repeat(prefix)).name("items").beginArray();
            for (int i = 0; i < 300; i++)
            {
                json.beginObject()
                    .field("i", i)
                    .field("n", NUMBERS[i % NUMBERS.length])
                    .idField("account", NUMBERS[(i + 1) % NUMBERS.length])
                    .field("flag", i % 2 == 0)
                    .field("text", TRICKY);
                json.name("bytes").string(TRICKY.getBytes(StandardCharsets.ISO_8859_1), 7);
                json.name("money").money(-123_456L * i, 2);
                json.name("currency").currency(('T' << 16) | ('R' << 8) | 'Y');
                json.name("id").uuid(0x0123456789abcdefL * i, 0xfedcba9876543210L ^ i);
                json.name("at").time(1_767_225_600_123L + i);
                json.endObject();
            }
            json.endArray().endObject();

            final byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            assertTrue(bytes.length > 3 * 8192, "several staging arrays' worth: " + bytes.length);
            assertEquals('<', bytes[0]);
            check(bytes, prefix);
        }
    }

    private static void check(final byte[] bytes, final int prefix) throws IOException
    {
        for (final byte b : bytes)
        {
            assertTrue(b >= 0x20 && b < 0x7F, "visible ASCII only");
        }
        try (JsonParser p = new JsonFactory().createParser(bytes, 1, bytes.length - 1))
        {
            assertEquals(JsonToken.START_OBJECT, p.nextToken());
            assertEquals("prefix", p.nextFieldName());
            assertEquals("x".repeat(prefix), p.nextTextValue());
            assertEquals("items", p.nextFieldName());
            assertEquals(JsonToken.START_ARRAY, p.nextToken());
            for (int i = 0; i < 300; i++)
            {
                assertEquals(JsonToken.START_OBJECT, p.nextToken());
                assertEquals("i", p.nextFieldName());
                assertEquals(i, p.nextLongValue(-1));
                assertEquals("n", p.nextFieldName());
                p.nextToken();
                assertEquals(NUMBERS[i % NUMBERS.length], p.getLongValue());
                assertEquals("account", p.nextFieldName());
                assertEquals(Long.toString(NUMBERS[(i + 1) % NUMBERS.length]), p.nextTextValue(), "an id: its digits as a string");
                assertEquals("flag", p.nextFieldName());
                assertEquals(i % 2 == 0, p.nextBooleanValue());
                assertEquals("text", p.nextFieldName());
                assertEquals(TRICKY, p.nextTextValue());
                assertEquals("bytes", p.nextFieldName());
                assertEquals(TRICKY.substring(0, 7), p.nextTextValue());
                assertEquals("money", p.nextFieldName());
                assertEquals(Money.format(-123_456L * i, 2), p.nextTextValue());
                assertEquals("currency", p.nextFieldName());
                assertEquals("TRY", p.nextTextValue());
                assertEquals("id", p.nextFieldName());
                assertEquals(new UUID(0x0123456789abcdefL * i, 0xfedcba9876543210L ^ i).toString(), p.nextTextValue());
                assertEquals("at", p.nextFieldName());
                assertEquals(Instant.ofEpochMilli(1_767_225_600_123L + i).toString(), p.nextTextValue());
                assertEquals(JsonToken.END_OBJECT, p.nextToken());
            }
            assertEquals(JsonToken.END_ARRAY, p.nextToken());
            assertEquals(JsonToken.END_OBJECT, p.nextToken());
            assertNull(p.nextToken());
        }
    }

    @Test
    void shouldWriteEveryNumberAtEachDigitCountBoundaryAsLongToStringDoes()
    {
        // the renderer counts digits and writes them two at a time: each power of ten and its neighbours, both
        // signs, odd and even digit counts, and the ends of the range are where an off-by-one would show
        final List<Long> values = new ArrayList<>(List.of(Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1));
        long power = 1;
        for (int digits = 1; digits <= 19; digits++, power *= 10)
        {
            for (final long v : new long[] {power - 1, power, power + 1})
            {
                values.add(v);
                values.add(-v);
            }
        }
        for (final long value : values)
        {
            final ByteBuf out = Unpooled.buffer(32);
            new JsonOut().wrap(out).beginArray().number(value).id(value).endArray();
            assertEquals("[" + value + ",\"" + value + "\"]", out.toString(StandardCharsets.US_ASCII));
        }
    }

    @Test
    void shouldEscapeTextsLongerThanTheShortTextFastPathTheSameWay() throws IOException
    {
        for (final int length : new int[] {127, 128, 129, 5000})
        {
            final String text = TRICKY.repeat(length / TRICKY.length() + 1).substring(0, length);
            final ByteBuf out = Unpooled.buffer(16);
            new JsonOut().wrap(out).beginObject().field("t", text).endObject();
            final byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            try (JsonParser p = new JsonFactory().createParser(bytes))
            {
                assertEquals(JsonToken.START_OBJECT, p.nextToken());
                assertEquals("t", p.nextFieldName());
                assertEquals(text, p.nextTextValue(), "length " + length);
            }
        }
    }
}
