package dev.tally.persistence.writer;

import org.agrona.ExpandableArrayBuffer;

import java.nio.ByteOrder;

/**
 * Encodes rows in PostgreSQL's binary COPY format into a reusable, growing byte array (writer thread only).
 * Binary rather than text: the server does not parse numbers, uuids or timestamps, and the writer does not
 * format them.
 *
 * <pre>
 * header:  "PGCOPY\n\377\r\n\0" (11 B) | flags int32 = 0 | header extension length int32 = 0
 * row:     field count int16 | per field: length int32 (-1 = NULL) | bytes (big-endian)
 * trailer: int16 -1
 * </pre>
 * Field encodings used: bigint 8 B, integer 4 B, smallint 2 B, boolean 1 B, uuid 16 B (most significant half
 * first), timestamptz int64 microseconds since 2000-01-01T00:00:00Z, text/char(n) UTF-8 bytes, jsonb a
 * version byte (1) then the JSON text.
 */
final class CopyBuffer
{
    /** Microseconds from the Unix epoch to PostgreSQL's epoch, 2000-01-01T00:00:00Z. */
    private static final long POSTGRES_EPOCH_OFFSET_US = 946_684_800_000_000L;
    private static final byte[] SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte)0xFF, '\r', '\n', 0};
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(1 << 20);
    private int length;
    private int rows;
    private int openFieldLengthAt = -1;

    /** Starts a new COPY stream: header only. */
    CopyBuffer begin()
    {
        length = 0;
        rows = 0;
        buffer.putBytes(0, SIGNATURE);
        length = SIGNATURE.length;
        putInt(0);
        putInt(0);
        return this;
    }

    /** Starts a row of {@code fields} fields. */
    CopyBuffer row(final int fields)
    {
        putShort((short)fields);
        rows++;
        return this;
    }

    /** Ends the stream (trailer). */
    CopyBuffer end()
    {
        putShort((short)-1);
        return this;
    }

    byte[] array()
    {
        return buffer.byteArray();
    }

    int length()
    {
        return length;
    }

    int rows()
    {
        return rows;
    }

    CopyBuffer int8(final long value)
    {
        putInt(Long.BYTES);
        putLong(value);
        return this;
    }

    CopyBuffer int4(final int value)
    {
        putInt(Integer.BYTES);
        putInt(value);
        return this;
    }

    CopyBuffer int2(final int value)
    {
        putInt(Short.BYTES);
        putShort((short)value);
        return this;
    }

    CopyBuffer bool(final boolean value)
    {
        putInt(1);
        buffer.putByte(length++, (byte)(value ? 1 : 0));
        return this;
    }

    CopyBuffer nul()
    {
        putInt(-1);
        return this;
    }

    CopyBuffer uuid(final long hi, final long lo)
    {
        putInt(16);
        putLong(hi);
        putLong(lo);
        return this;
    }

    /** A timestamptz from journaled epoch nanoseconds (truncated to microseconds, PostgreSQL's resolution). */
    CopyBuffer timestampNs(final long epochNs)
    {
        putInt(Long.BYTES);
        putLong(Math.floorDiv(epochNs, 1_000L) - POSTGRES_EPOCH_OFFSET_US);
        return this;
    }

    /** A timestamptz from epoch milliseconds. */
    CopyBuffer timestampMs(final long epochMs)
    {
        putInt(Long.BYTES);
        putLong(epochMs * 1_000L - POSTGRES_EPOCH_OFFSET_US);
        return this;
    }

    /** A text field of ASCII characters. */
    CopyBuffer text(final String ascii)
    {
        putInt(ascii.length());
        for (int i = 0; i < ascii.length(); i++)
        {
            buffer.putByte(length++, (byte)ascii.charAt(i));
        }
        return this;
    }

    /** A text field from bytes. */
    CopyBuffer text(final byte[] bytes, final int offset, final int count)
    {
        putInt(count);
        buffer.putBytes(length, bytes, offset, count);
        length += count;
        return this;
    }

    /** A jsonb field from JSON text already valid (UTF-8 bytes), as is: PostgreSQL parses it. */
    CopyBuffer jsonb(final byte[] json, final int offset, final int count)
    {
        return beginJsonbField().appendBytes(json, offset, count).endField();
    }

    /** A char(3) field from a packed ISO 4217 code. */
    CopyBuffer currency(final int packed)
    {
        putInt(3);
        return currencyChars(packed);
    }

    /** Opens a text field whose content follows through the {@code append*} methods; close with {@link #endField}. */
    CopyBuffer beginTextField()
    {
        openFieldLengthAt = length;
        putInt(0);
        return this;
    }

    /** Opens a jsonb field (binary version 1); content through {@code append*}; close with {@link #endField}. */
    CopyBuffer beginJsonbField()
    {
        beginTextField();
        buffer.putByte(length++, (byte)1);
        return this;
    }

    /** Closes the field opened last, writing its length. */
    CopyBuffer endField()
    {
        buffer.putInt(openFieldLengthAt, length - openFieldLengthAt - Integer.BYTES, ByteOrder.BIG_ENDIAN);
        openFieldLengthAt = -1;
        return this;
    }

    // ---- content of an open field ----

    CopyBuffer appendAscii(final String ascii)
    {
        for (int i = 0; i < ascii.length(); i++)
        {
            buffer.putByte(length++, (byte)ascii.charAt(i));
        }
        return this;
    }

    /** Appends bytes as they are: text already encoded (UTF-8) and, inside JSON, already valid JSON. */
    CopyBuffer appendBytes(final byte[] bytes, final int offset, final int count)
    {
        buffer.putBytes(length, bytes, offset, count);
        length += count;
        return this;
    }

    CopyBuffer appendLong(final long value)
    {
        length += buffer.putLongAscii(length, value);
        return this;
    }

    /** Appends a decimal amount: {@code minor} units with {@code digits} digits after the point ("1000.00"). */
    CopyBuffer appendDecimal(final long minor, final int digits)
    {
        if (digits <= 0)
        {
            return appendLong(minor);
        }
        long factor = 1;
        for (int i = 0; i < digits; i++)
        {
            factor *= 10;
        }
        if (minor < 0)
        {
            buffer.putByte(length++, (byte)'-');
        }
        final long whole = Math.abs(minor / factor);
        final long fraction = Math.abs(minor % factor);
        appendLong(whole);
        buffer.putByte(length++, (byte)'.');
        for (long f = factor / 10; f > 0; f /= 10)
        {
            buffer.putByte(length++, (byte)('0' + (fraction / f) % 10));
        }
        return this;
    }

    /** Appends the canonical 36-character form of a uuid. */
    CopyBuffer appendUuid(final long hi, final long lo)
    {
        appendHex(hi >>> 32, 8);
        buffer.putByte(length++, (byte)'-');
        appendHex(hi >>> 16, 4);
        buffer.putByte(length++, (byte)'-');
        appendHex(hi, 4);
        buffer.putByte(length++, (byte)'-');
        appendHex(lo >>> 48, 4);
        buffer.putByte(length++, (byte)'-');
        appendHex(lo, 12);
        return this;
    }

    /** Appends the three letters of a packed currency code. */
    CopyBuffer currencyChars(final int packed)
    {
        buffer.putByte(length++, (byte)(packed >>> 16));
        buffer.putByte(length++, (byte)(packed >>> 8));
        buffer.putByte(length++, (byte)packed);
        return this;
    }

    /** Appends an ISO-8601 UTC instant with milliseconds, e.g. 2026-01-01T00:00:00.001Z. */
    CopyBuffer appendIsoInstant(final long epochMs)
    {
        final long days = Math.floorDiv(epochMs, 86_400_000L);
        final long msOfDay = Math.floorMod(epochMs, 86_400_000L);
        // Civil date from days since 1970-01-01 (proleptic Gregorian), era-based.
        final long z = days + 719_468;
        final long era = Math.floorDiv(z, 146_097);
        final long dayOfEra = z - era * 146_097;
        final long yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
        final long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        final long mp = (5 * dayOfYear + 2) / 153;
        final long day = dayOfYear - (153 * mp + 2) / 5 + 1;
        final long month = mp < 10 ? mp + 3 : mp - 9;
        final long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
        appendPadded(year, 4).appendAscii("-").appendPadded(month, 2).appendAscii("-").appendPadded(day, 2);
        appendAscii("T").appendPadded(msOfDay / 3_600_000, 2).appendAscii(":").appendPadded(msOfDay / 60_000 % 60, 2);
        appendAscii(":").appendPadded(msOfDay / 1_000 % 60, 2).appendAscii(".").appendPadded(msOfDay % 1_000, 3);
        return appendAscii("Z");
    }

    private CopyBuffer appendPadded(final long value, final int width)
    {
        long limit = 1;
        for (int i = 1; i < width; i++)
        {
            limit *= 10;
        }
        for (long l = limit; l > 1 && value < l; l /= 10)
        {
            buffer.putByte(length++, (byte)'0');
        }
        return appendLong(value);
    }

    private void appendHex(final long value, final int digits)
    {
        for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
        {
            buffer.putByte(length++, HEX[(int)(value >>> shift) & 0xF]);
        }
    }

    private void putLong(final long value)
    {
        buffer.putLong(length, value, ByteOrder.BIG_ENDIAN);
        length += Long.BYTES;
    }

    private void putInt(final int value)
    {
        buffer.putInt(length, value, ByteOrder.BIG_ENDIAN);
        length += Integer.BYTES;
    }

    private void putShort(final short value)
    {
        buffer.putShort(length, value, ByteOrder.BIG_ENDIAN);
        length += Short.BYTES;
    }
}
