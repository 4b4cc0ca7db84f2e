package dev.tally.perf.load;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * A lean HTTP/1.1 response framer: status code, {@code Content-Length}, {@code Idempotent-Replayed}, and
 * the body handed to the sink in place (no message objects, no header maps, no copies). Responses
 * arrive in request order (HTTP/1.1), so the sink matches them to its in-flight queue.
 *
 * <p>Tally always answers with {@code Content-Length}; a response without it (chunked, or read-to-close)
 * is a protocol error for this client, as is a head longer than {@link #HEAD_LENGTH_MAX_BYTES}.
 */
final class ResponseDecoder extends ByteToMessageDecoder
{
    /** Longest response head accepted (status line and headers). */
    static final int HEAD_LENGTH_MAX_BYTES = 16 * 1024;
    /** Largest body accepted (a full batch answer is a few MB). */
    static final int BODY_LENGTH_MAX_BYTES = 64 * 1024 * 1024;

    private static final byte[] CONTENT_LENGTH = "content-length".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] IDEMPOTENT_REPLAYED = "idempotent-replayed".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** Receives each complete response. */
    interface Sink
    {
        /**
         * @param status     the HTTP status code.
         * @param replayed   whether {@code Idempotent-Replayed: true} was present.
         * @param buffer     holds the body, valid only during the call.
         * @param bodyIndex  where the body starts in {@code buffer}.
         * @param bodyLength the body's length in bytes.
         */
        void onResponse(int status, boolean replayed, ByteBuf buffer, int bodyIndex, int bodyLength);

        /** The byte stream is not a response this client understands; the connection will be closed. */
        void onProtocolError(String what);
    }

    private final Sink sink;
    // A head already parsed whose body has not fully arrived: offsets relative to the reader index.
    private int pendingHeadLength;
    private int pendingStatus;
    private boolean pendingReplayed;
    private int pendingBodyLength;
    // Results of the last parseHead call.
    private int parsedStatus;
    private boolean parsedReplayed;
    private long parsedContentLength;

    ResponseDecoder(final Sink sink)
    {
        this.sink = sink;
    }

    @Override
    protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out)
    {
        while (in.isReadable())
        {
            if (pendingHeadLength == 0 && !readHead(ctx, in))
            {
                return;
            }
            if (in.readableBytes() < pendingHeadLength + pendingBodyLength)
            {
                return;
            }
            final int start = in.readerIndex();
            final int headLength = pendingHeadLength;
            pendingHeadLength = 0;
            in.readerIndex(start + headLength + pendingBodyLength);
            sink.onResponse(pendingStatus, pendingReplayed, in, start + headLength, pendingBodyLength);
        }
    }

    /** @return true when a complete head was parsed into the pending fields. */
    private boolean readHead(final ChannelHandlerContext ctx, final ByteBuf in)
    {
        final int headLength = parseHead(in, in.readerIndex(), in.writerIndex());
        if (headLength == 0)
        {
            if (in.readableBytes() > HEAD_LENGTH_MAX_BYTES)
            {
                fail(ctx, in, "response head longer than " + HEAD_LENGTH_MAX_BYTES + " bytes");
            }
            return false;
        }
        if (headLength < 0)
        {
            fail(ctx, in, "malformed response head");
            return false;
        }
        if (parsedContentLength < 0 || parsedContentLength > BODY_LENGTH_MAX_BYTES)
        {
            fail(ctx, in, "response without a usable Content-Length (status " + parsedStatus + ")");
            return false;
        }
        pendingHeadLength = headLength;
        pendingStatus = parsedStatus;
        pendingReplayed = parsedReplayed;
        pendingBodyLength = (int)parsedContentLength;
        return true;
    }

    private void fail(final ChannelHandlerContext ctx, final ByteBuf in, final String what)
    {
        in.skipBytes(in.readableBytes());
        sink.onProtocolError(what);
        ctx.close();
    }

    /**
     * Parses the status line and the headers this client needs.
     *
     * @return the head's length including the empty line; 0 when incomplete; -1 when malformed.
     */
    int parseHead(final ByteBuf in, final int start, final int end)
    {
        parsedStatus = -1;
        parsedReplayed = false;
        parsedContentLength = -1;
        int lineStart = start;
        while (true)
        {
            final int lf = in.indexOf(lineStart, end, (byte)'\n');
            if (lf < 0)
            {
                return 0;
            }
            final int lineEnd = lf > lineStart && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
            if (lineStart == start)
            {
                parsedStatus = parseStatusLine(in, lineStart, lineEnd);
                if (parsedStatus < 0)
                {
                    return -1;
                }
            }
            else if (lineEnd == lineStart)
            {
                return lf + 1 - start;
            }
            else
            {
                parseHeader(in, lineStart, lineEnd);
            }
            lineStart = lf + 1;
        }
    }

    private static int parseStatusLine(final ByteBuf in, final int start, final int end)
    {
        // "HTTP/1.1 201 Created": the three digits sit at offsets 9..11.
        if (end - start < 12 || in.getByte(start) != 'H' || in.getByte(start + 4) != '/' || in.getByte(start + 8) != ' ')
        {
            return -1;
        }
        int status = 0;
        for (int i = start + 9; i < start + 12; i++)
        {
            final int digit = in.getByte(i) - '0';
            if (digit < 0 || digit > 9)
            {
                return -1;
            }
            status = status * 10 + digit;
        }
        return status;
    }

    private void parseHeader(final ByteBuf in, final int start, final int end)
    {
        if (nameIs(in, start, end, CONTENT_LENGTH))
        {
            parsedContentLength = parseNumber(in, start + CONTENT_LENGTH.length + 1, end);
        }
        else if (nameIs(in, start, end, IDEMPOTENT_REPLAYED))
        {
            final int value = skipSpaces(in, start + IDEMPOTENT_REPLAYED.length + 1, end);
            parsedReplayed = end - value >= 4 && (in.getByte(value) | 0x20) == 't' && (in.getByte(value + 1) | 0x20) == 'r' &&
                (in.getByte(value + 2) | 0x20) == 'u' && (in.getByte(value + 3) | 0x20) == 'e';
        }
    }

    private static boolean nameIs(final ByteBuf in, final int start, final int end, final byte[] lowerName)
    {
        if (end - start <= lowerName.length || in.getByte(start + lowerName.length) != ':')
        {
            return false;
        }
        for (int i = 0; i < lowerName.length; i++)
        {
            if ((in.getByte(start + i) | 0x20) != lowerName[i])
            {
                return false;
            }
        }
        return true;
    }

    private static long parseNumber(final ByteBuf in, final int start, final int end)
    {
        int i = skipSpaces(in, start, end);
        long value = 0;
        int digitCount = 0;
        while (i < end)
        {
            final int digit = in.getByte(i) - '0';
            if (digit < 0 || digit > 9)
            {
                break;
            }
            value = value * 10 + digit;
            if (++digitCount > 12)
            {
                return -1;
            }
            i++;
        }
        return digitCount == 0 || skipSpaces(in, i, end) != end ? -1 : value;
    }

    private static int skipSpaces(final ByteBuf in, final int start, final int end)
    {
        int i = start;
        while (i < end && (in.getByte(i) == ' ' || in.getByte(i) == '\t'))
        {
            i++;
        }
        return i;
    }
}
