package dev.tally.gateway.http;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RequestIdsTest
{
    private static final Pattern MADE = Pattern.compile("^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{12})$");

    @Test
    void shouldEchoASaneClientIdAndPreferRequestIdToXRequestId()
    {
        final RequestIds ids = new RequestIds();
        final HttpHeaders headers = new DefaultHttpHeaders().set("X-Request-Id", "proxy-1");
        assertEquals("proxy-1", ids.of(headers).toString());
        headers.set("Request-Id", "client-1");
        assertEquals("client-1", ids.of(headers).toString());
        headers.set("Request-Id", "not sane");
        assertEquals("proxy-1", ids.of(headers).toString(), "an insane Request-Id is ignored, not an error");
        headers.set("X-Request-Id", "");
        assertTrue(MADE.matcher(ids.of(headers)).matches());
    }

    @Test
    void shouldTakeOnlyOneTo128VisibleAsciiCharacters()
    {
        assertTrue(RequestIds.isSane("!"));
        assertTrue(RequestIds.isSane("~".repeat(RequestIds.LENGTH_MAX)));
        assertTrue(RequestIds.isSane("0b7c6f1e-2a3d-4c5b-9e8f-7a6b5c4d3e2f"));
        assertFalse(RequestIds.isSane(null));
        assertFalse(RequestIds.isSane(""));
        assertFalse(RequestIds.isSane("~".repeat(RequestIds.LENGTH_MAX + 1)));
        assertFalse(RequestIds.isSane("a b"));
        assertFalse(RequestIds.isSane("a\tb"));
        assertFalse(RequestIds.isSane("a\r\nSet-Cookie: x=1"));
        assertFalse(RequestIds.isSane("caf\u00e9"));
        assertFalse(RequestIds.isSane("\u007f"));
    }

    @Test
    void shouldMakeIdsUniqueAcrossThreadsAndChunksInTheDocumentedFormat()
    {
        final RequestIds first = new RequestIds();
        final RequestIds second = new RequestIds();
        final Set<String> seen = new HashSet<>();
        String process = null;
        for (int i = 0; i < 1_000; i++)
        {
            for (final RequestIds ids : new RequestIds[] {first, second})
            {
                final String id = ids.next().toString();
                assertEquals(RequestIds.LENGTH, id.length());
                final var parts = MADE.matcher(id);
                assertTrue(parts.matches(), id);
                process = process == null ? parts.group(1) : process;
                assertEquals(process, parts.group(1), "one tag per process");
                assertTrue(seen.add(id), () -> "made twice: " + id);
            }
        }
        final String a = first.next().toString();
        final String b = second.next().toString();
        assertNotEquals(a.substring(9, 13), b.substring(9, 13), "each thread its own number");
        assertEquals("0000000003e9", a.substring(14), "counted from 1");
    }

    @Test
    void shouldKeepTheIdsItHandedOutWhenItMovesToANewChunk()
    {
        final RequestIds ids = new RequestIds();
        final CharSequence early = ids.next();
        final String text = early.toString();
        for (int i = 0; i < 1_000; i++)
        {
            ids.next();
        }
        assertEquals(text, early.toString());
    }

    @Test
    void shouldEchoTheClientsOwnValueWithoutCopyingIt()
    {
        final String own = "client-7";
        assertSame(own, new RequestIds().of(new DefaultHttpHeaders().set("Request-Id", own)));
    }

    /** What a made id costs the I/O thread: one small object and a share of a chunk (the figure is printed for the record). */
    @Test
    void shouldAllocateUnderSixtyFourBytesPerMadeId()
    {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final RequestIds ids = new RequestIds();
        // kept, as the ring slot keeps it: an id that escapes is allocated, one that does not might be scalar-replaced
        final CharSequence[] kept = new CharSequence[1024];
        for (int i = 0; i < 200_000; i++)
        {
            kept[i & 1023] = ids.next();   // warm up: compiled as it will run
        }
        final int count = 1_000_000;
        final long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < count; i++)
        {
            kept[i & 1023] = ids.next();
        }
        final double perId = (threads.getCurrentThreadAllocatedBytes() - before) / (double)count;
        System.out.printf("RequestIds.next: %.1f bytes allocated per id (last %s)%n", perId, kept[(count - 1) & 1023]);
        assertTrue(perId < 64, () -> perId + " bytes per id");
    }
}
