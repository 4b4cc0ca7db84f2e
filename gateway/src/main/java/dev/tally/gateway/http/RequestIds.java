package dev.tally.gateway.http;

import dev.tally.gateway.api.IdempotencyKey;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@code Request-Id} every reply carries: the client's own, when its {@code Request-Id} (or else its
 * {@code X-Request-Id}) header is a sane token, 1 to {@value #LENGTH_MAX} visible ASCII characters
 * ({@code 0x21}-{@code 0x7E}); otherwise one made here, 26 characters:
 * <pre>
 *   PPPPPPPP-TTTT-CCCCCCCCCCCC    lower-case hex
 *   P  a random tag drawn once per process (so two runs' ids differ in logs)
 *   T  the I/O thread that received the request (its order of first use)
 *   C  that thread's count of requests, from 1
 * </pre>
 * Unique within a process (per thread, 2^48 requests before the count wraps), and cheap: no lock, no shared counter,
 * no random numbers per request. Each id is an {@link AsciiString} over a slice of a chunk of
 * {@value #IDS_PER_CHUNK} ids' bytes, so that making one allocates one small object plus a share of the chunk.
 *
 * <p>One per I/O thread ({@link IoThreadScratch}): not thread-safe.
 */
final class RequestIds
{
    static final AsciiString REQUEST_ID = AsciiString.cached("Request-Id");
    static final AsciiString X_REQUEST_ID = AsciiString.cached("X-Request-Id");
    /** The longest client id echoed; a longer one is ignored, and the server makes one. */
    static final int LENGTH_MAX = 128;
    /** Characters of a server-made id. */
    static final int LENGTH = 26;

    private static final int IDS_PER_CHUNK = 64;
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final int PROCESS_TAG = new SecureRandom().nextInt();
    private static final AtomicInteger THREADS = new AtomicInteger();

    /** The id's first 14 characters, {@code PPPPPPPP-TTTT-}: the same for every id this thread makes. */
    private final byte[] prefix = new byte[14];
    private byte[] chunk = new byte[LENGTH * IDS_PER_CHUNK];
    private int used;
    private long count;

    RequestIds()
    {
        hex(PROCESS_TAG & 0xFFFF_FFFFL, prefix, 0, 8);
        prefix[8] = '-';
        hex(THREADS.getAndIncrement() & 0xFFFF, prefix, 9, 4);
        prefix[13] = '-';
    }

    /** @return the id of a request with these headers: the client's own when it is sane, else a new one. */
    CharSequence of(final HttpHeaders headers)
    {
        final String own = headers.get(REQUEST_ID);
        if (isSane(own))
        {
            return own;
        }
        final String alternative = headers.get(X_REQUEST_ID);
        return isSane(alternative) ? alternative : next();
    }

    /** @return a new id, unique in this process. */
    CharSequence next()
    {
        if (used == chunk.length)
        {
            chunk = new byte[LENGTH * IDS_PER_CHUNK];   // the ids over the old one keep it until they are dropped
            used = 0;
        }
        final int start = used;
        System.arraycopy(prefix, 0, chunk, start, prefix.length);
        hex(++count & 0xFFFF_FFFF_FFFFL, chunk, start + prefix.length, 12);
        used += LENGTH;
        return new AsciiString(chunk, start, LENGTH, false);
    }

    /**
     * @return true when {@code value} may be echoed as a header value: 1 to {@value #LENGTH_MAX} visible ASCII
     *         characters, so no space, control character (CR, LF) or non-ASCII byte reaches the reply's head.
     */
    static boolean isSane(final CharSequence value)
    {
        return IdempotencyKey.isVisibleAsciiToken(value, LENGTH_MAX);
    }

    /** Writes the low {@code digits} hex digits of {@code value} at {@code dst[offset]}, most significant first. */
    private static void hex(final long value, final byte[] dst, final int offset, final int digits)
    {
        for (int i = 0; i < digits; i++)
        {
            dst[offset + i] = HEX[(int)(value >>> (4 * (digits - 1 - i))) & 0xF];
        }
    }
}
