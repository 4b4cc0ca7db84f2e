package dev.tally.gateway.api;

import io.netty.buffer.ByteBuf;

/**
 * A minimal compact JSON writer straight into a {@link ByteBuf}: no intermediate strings, numbers,
 * money, UUIDs and timestamps written digit by digit from a small scratch array.
 *
 * <p>Everything it writes is ASCII: characters outside visible ASCII inside strings are written as
 * {@code \\uXXXX} escapes, so the output is valid UTF-8 and never depends on a charset. Not thread-safe:
 * one per renderer.
 */
final class JsonOut
{
    /** Nesting the renderers need: batch envelope, results array, result, body, sub-balance array, entry. */
    private static final int DEPTH_MAX = 8;
    private static final byte[] HEX = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};

    private final boolean[] firstAtDepth = new boolean[DEPTH_MAX];
    private final byte[] scratch = new byte[Math.max(Money.FORMATTED_LENGTH_MAX, IsoTime.LENGTH)];
    private ByteBuf out;
    private int depth;

    /** Starts writing a new document at the writer index of {@code target}. */
    JsonOut wrap(final ByteBuf target)
    {
        out = target;
        depth = 0;
        return this;
    }

    JsonOut beginObject()
    {
        return open('{');
    }

    JsonOut endObject()
    {
        return close('}');
    }

    JsonOut beginArray()
    {
        return open('[');
    }

    JsonOut endArray()
    {
        return close(']');
    }

    /** Writes a member name; the value follows with one of the value methods. */
    JsonOut name(final String name)
    {
        separate();
        quoted(name);
        out.writeByte(':');
        // the value that follows must not be preceded by a comma
        firstAtDepth[depth - 1] = true;
        return this;
    }

    JsonOut string(final CharSequence value)
    {
        separate();
        quoted(value);
        return this;
    }

    /** Writes {@code length} ASCII bytes of {@code bytes} as a string, escaping as needed. */
    JsonOut string(final byte[] bytes, final int length)
    {
        separate();
        out.writeByte('"');
        for (int i = 0; i < length; i++)
        {
            escaped((char)(bytes[i] & 0xFF));
        }
        out.writeByte('"');
        return this;
    }

    JsonOut number(final long value)
    {
        separate();
        final int start = scratch.length;
        int position = start;
        long rest = value;
        // work in negatives so that Long.MIN_VALUE needs no special case
        if (rest > 0)
        {
            rest = -rest;
        }
        do
        {
            scratch[--position] = (byte)('0' - (rest % 10));
            rest /= 10;
        }
        while (rest != 0);
        if (value < 0)
        {
            scratch[--position] = '-';
        }
        out.writeBytes(scratch, position, start - position);
        return this;
    }

    JsonOut bool(final boolean value)
    {
        separate();
        if (value)
        {
            out.writeByte('t').writeByte('r').writeByte('u').writeByte('e');
        }
        else
        {
            out.writeByte('f').writeByte('a').writeByte('l').writeByte('s').writeByte('e');
        }
        return this;
    }

    /**
     * Writes an amount as a decimal string in major units; when the currency is unknown
     * ({@code minorDigits < 0}) the plain minor units are written rather than failing.
     */
    JsonOut money(final long amountMinor, final int minorDigits)
    {
        separate();
        final int length = Money.format(amountMinor, Math.max(0, minorDigits), scratch, 0);
        out.writeByte('"').writeBytes(scratch, 0, length).writeByte('"');
        return this;
    }

    /** Writes a currency packed by {@link dev.tally.ledger.currency.CurrencyCode#pack} as its three letters. */
    JsonOut currency(final int packed)
    {
        separate();
        out.writeByte('"');
        escaped((char)((packed >>> 16) & 0xFF));
        escaped((char)((packed >>> 8) & 0xFF));
        escaped((char)(packed & 0xFF));
        out.writeByte('"');
        return this;
    }

    /** Writes a UUID as its canonical lower-case 36-character string. */
    JsonOut uuid(final long hi, final long lo)
    {
        separate();
        out.writeByte('"');
        hex(hi >>> 32, 8);
        out.writeByte('-');
        hex(hi >>> 16, 4);
        out.writeByte('-');
        hex(hi, 4);
        out.writeByte('-');
        hex(lo >>> 48, 4);
        out.writeByte('-');
        hex(lo, 12);
        out.writeByte('"');
        return this;
    }

    /** Writes epoch milliseconds as an ISO-8601 UTC string with millisecond precision. */
    JsonOut time(final long epochMs)
    {
        separate();
        IsoTime.format(epochMs, scratch, 0);
        out.writeByte('"').writeBytes(scratch, 0, IsoTime.LENGTH).writeByte('"');
        return this;
    }

    JsonOut field(final String name, final long value)
    {
        return name(name).number(value);
    }

    JsonOut field(final String name, final boolean value)
    {
        return name(name).bool(value);
    }

    JsonOut field(final String name, final CharSequence value)
    {
        return name(name).string(value);
    }

    private JsonOut open(final char bracket)
    {
        separate();
        out.writeByte(bracket);
        firstAtDepth[depth++] = true;
        return this;
    }

    private JsonOut close(final char bracket)
    {
        depth--;
        out.writeByte(bracket);
        return this;
    }

    private void separate()
    {
        if (depth == 0)
        {
            return;
        }
        if (firstAtDepth[depth - 1])
        {
            firstAtDepth[depth - 1] = false;
        }
        else
        {
            out.writeByte(',');
        }
    }

    private void quoted(final CharSequence text)
    {
        out.writeByte('"');
        for (int i = 0; i < text.length(); i++)
        {
            escaped(text.charAt(i));
        }
        out.writeByte('"');
    }

    private void escaped(final char c)
    {
        if (c == '"' || c == '\\')
        {
            out.writeByte('\\').writeByte(c);
        }
        else if (c >= 0x20 && c < 0x7F)
        {
            out.writeByte(c);
        }
        else
        {
            out.writeByte('\\').writeByte('u');
            hex(c, 4);
        }
    }

    /** Writes the low {@code digits} hex digits of {@code value}. */
    private void hex(final long value, final int digits)
    {
        for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
        {
            out.writeByte(HEX[(int)((value >>> shift) & 0xF)]);
        }
    }
}
