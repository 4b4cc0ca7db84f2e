package dev.tally.perf.load;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import io.netty.buffer.ByteBuf;

/**
 * Reads the per-operation outcome out of a {@code POST /v1/batch} reply without a JSON parser:
 *
 * <pre>
 *   {"atomic":false,"results":[{"index":0,"status":201,"body":{...}},
 *                              {"index":1,"status":201,"replayed":true,"body":{...}}, ...]}
 * </pre>
 *
 * Each result opens with {@code {"index":N,"status":NNN} (then optionally {@code "replayed":true}); an account
 * body's {@code subBalanceDetail} entries open with {@code {"index":N} too, but never with a status after it.
 * One instance per event-loop thread: it owns its scratch arrays.
 */
final class BatchResults
{
    private static final byte[] INDEX = "{\"index\":".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] STATUS = ",\"status\":".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] REPLAYED = ",\"replayed\":true".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** Offset of the {@code x} in {@link #INDEX}. */
    private static final int MARKER_X = 6;
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] scratch = new byte[64 * 1024];
    private final int[] statuses;
    private final boolean[] replayed;
    private int count;

    /** @param operationsMax the most results one reply may carry. */
    BatchResults(final int operationsMax)
    {
        statuses = new int[operationsMax];
        replayed = new boolean[operationsMax];
    }

    /**
     * Scans one reply body.
     *
     * @return the number of results found, in order (their {@code index} is checked to run 0, 1, 2...);
     *         -1 when the body does not have that shape.
     */
    int scan(final ByteBuf buffer, final int index, final int length)
    {
        if (scratch.length < length)
        {
            scratch = new byte[Math.max(length, scratch.length * 2)];
        }
        buffer.getBytes(index, scratch, 0, length);
        return scan(scratch, length);
    }

    int scan(final byte[] body, final int length)
    {
        count = 0;
        int i = 0;
        while ((i = findResult(body, i, length)) >= 0)
        {
            i += INDEX.length;
            int resultIndex = 0;
            while (i < length && body[i] >= '0' && body[i] <= '9')
            {
                resultIndex = resultIndex * 10 + body[i++] - '0';
            }
            if (!startsWith(body, i, length, STATUS))
            {
                continue;   // not a result: an account body's subBalanceDetail entry is {"index":N,"posted":...
            }
            if (resultIndex != count || count == statuses.length || i + STATUS.length + 3 > length)
            {
                return -1;
            }
            i += STATUS.length;
            statuses[count] = (body[i] - '0') * 100 + (body[i + 1] - '0') * 10 + (body[i + 2] - '0');
            i += 3;
            replayed[count] = startsWith(body, i, length, REPLAYED);
            count++;
        }
        return count;
    }

    /** @return the status of result {@code index} of the last scan. */
    int status(final int index)
    {
        return statuses[index];
    }

    /** @return whether result {@code index} of the last scan was a replay. */
    boolean replayed(final int index)
    {
        return replayed[index];
    }

    /**
     * Finds the next {@code {"index":} from {@code from}. Its {@code x} is a rare byte (no UUID, number or time
     * has one, and few member names or problem texts: {@code existingTransferId}, {@code expiresAt}), so the
     * search looks for {@code x} eight bytes at a time and checks the whole marker around each one it finds: the
     * load client scans ~25 KiB per 100-transfer reply.
     */
    static int findResult(final byte[] body, final int from, final int length)
    {
        int i = from + MARKER_X;
        for (; i + Long.BYTES <= length; i += Long.BYTES)
        {
            long found = xBytes((long)WORDS.get(body, i));
            while (found != 0)
            {
                final int start = i + (Long.numberOfTrailingZeros(found) >>> 3) - MARKER_X;
                if (startsWith(body, start, length, INDEX))
                {
                    return start;
                }
                found &= found - 1;
            }
        }
        for (; i < length; i++)
        {
            if (body[i] == 'x' && startsWith(body, i - MARKER_X, length, INDEX))
            {
                return i - MARKER_X;
            }
        }
        return -1;
    }

    /** @return the high bit set in each byte of {@code word} that is {@code 'x'} (exact: no false positives). */
    private static long xBytes(final long word)
    {
        final long v = word ^ 0x7878787878787878L;
        return ~(((v & 0x7F7F7F7F7F7F7F7FL) + 0x7F7F7F7F7F7F7F7FL) | v | 0x7F7F7F7F7F7F7F7FL);
    }

    private static boolean startsWith(final byte[] body, final int at, final int length, final byte[] prefix)
    {
        if (at + prefix.length > length)
        {
            return false;
        }
        for (int i = 0; i < prefix.length; i++)
        {
            if (body[at + i] != prefix[i])
            {
                return false;
            }
        }
        return true;
    }
}
