package dev.tally.gateway.api.json;

import io.netty.buffer.ByteBuf;

/**
 * A minimal compact JSON writer into a {@link ByteBuf}: no intermediate strings, numbers,
 * money, UUIDs and timestamps written digit by digit.
 *
 * <p>Bytes are staged in an 8 KiB array and copied to the buffer in runs (when the array is full and when
 * the document's outermost object closes). Writing them one at a time through {@code ByteBuf.writeByte},
 * with its bounds, reference-count and capacity checks, took about half of the responder's CPU on a batch
 * reply (docs/benchmarks/history/2026-11-30-json-staging-array.md).
 *
 * <p>Everything it writes is ASCII: characters outside visible ASCII inside strings are written as
 * {@code \\uXXXX} escapes, so the output is valid UTF-8 and never depends on a charset. Not thread-safe:
 * one per renderer. Every document it writes is an object or an array: the bytes reach the buffer when it closes.
 */
public final class JsonOut
{
    /** Nesting the renderers need: batch envelope, results array, result, body, sub-balance array, entry. */
    private static final int DEPTH_MAX = 8;
    private static final int STAGING_BYTES = 8192;
    /** The longest decimal long: {@code -9223372036854775808}. */
    private static final int LONG_TEXT_LENGTH_MAX = 20;
    /** Texts up to this long get room for their worst-case escaping at once (6 bytes a character), well inside the staging array. */
    private static final int PLAIN_RUN_MAX = 128;
    private static final byte[] HEX = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};

    private final boolean[] firstAtDepth = new boolean[DEPTH_MAX];
    private final byte[] staged = new byte[STAGING_BYTES];
    private int position;
    private ByteBuf out;
    private int depth;

    /** Starts writing a new document at the writer index of {@code target}. */
    public JsonOut wrap(final ByteBuf target)
    {
        out = target;
        depth = 0;
        position = 0;
        return this;
    }

    public JsonOut beginObject()
    {
        return open('{');
    }

    public JsonOut endObject()
    {
        return close('}');
    }

    public JsonOut beginArray()
    {
        return open('[');
    }

    public JsonOut endArray()
    {
        return close(']');
    }

    /** Writes a member name; the value follows with one of the value methods. */
    public JsonOut name(final String name)
    {
        separate();
        quoted(name);
        room(1);
        put(':');
        // the value that follows must not be preceded by a comma
        firstAtDepth[depth - 1] = true;
        return this;
    }

    public JsonOut string(final CharSequence value)
    {
        separate();
        quoted(value);
        return this;
    }

    /** Writes {@code length} ASCII bytes of {@code bytes} as a string, escaping as needed. */
    public JsonOut string(final byte[] bytes, final int length)
    {
        separate();
        room(1);
        put('"');
        for (int i = 0; i < length; i++)
        {
            escaped((char)(bytes[i] & 0xFF));
        }
        room(1);
        put('"');
        return this;
    }

    /**
     * Writes {@code length} bytes of {@code bytes} as they are: a value already rendered as JSON (canonical metadata,
     * at most {@link dev.tally.ledger.LedgerLimits#METADATA_LENGTH_MAX} bytes, well within the staging array).
     */
    public JsonOut raw(final byte[] bytes, final int length)
    {
        separate();
        room(length);
        System.arraycopy(bytes, 0, staged, position, length);
        position += length;
        return this;
    }

    public JsonOut number(final long value)
    {
        separate();
        room(LONG_TEXT_LENGTH_MAX);
        digits(value);
        return this;
    }

    /** Writes {@code value}'s decimal digits (room already made). */
    private void digits(final long value)
    {
        if (value < 0)
        {
            put('-');
        }
        // work in negatives so that Long.MIN_VALUE needs no special case; digits land right to left
        long rest = value > 0 ? -value : value;
        int at = position + decimalDigits(rest);
        position = at;
        // two digits per division: a long division by a constant is a multiply and shifts, but one per digit
        // (twice, with the count) was half of a batch reply's rendering (BatchCodecBenchmark)
        while (rest <= -100)
        {
            final long quotient = rest / 100;
            at -= 2;
            DigitPairs.write((int)(quotient * 100 - rest), staged, at);
            rest = quotient;
        }
        if (rest <= -10)
        {
            DigitPairs.write((int)-rest, staged, at - 2);
        }
        else
        {
            staged[--at] = (byte)('0' - rest);
        }
    }

    /**
     * Writes a 64-bit integer id (an account id, a tenant id) as a JSON string of its decimal digits: a JavaScript client
     * reads a JSON number through a double, which holds integers exactly only up to 2^53.
     */
    public JsonOut id(final long value)
    {
        separate();
        room(LONG_TEXT_LENGTH_MAX + 2);
        put('"');
        digits(value);
        put('"');
        return this;
    }

    /** @return the number of decimal digits of {@code negative} (≤ 0), from 1 to 19. */
    private static int decimalDigits(final long negative)
    {
        int digits = 1;
        for (long bound = -10; digits < 19 && negative <= bound; bound *= 10)
        {
            digits++;
        }
        return digits;
    }

    public JsonOut bool(final boolean value)
    {
        separate();
        room(5);
        if (value)
        {
            put('t');
            put('r');
            put('u');
            put('e');
        }
        else
        {
            put('f');
            put('a');
            put('l');
            put('s');
            put('e');
        }
        return this;
    }

    /**
     * Writes an amount as a decimal string in major units; when the currency is unknown
     * ({@code minorDigits < 0}) the plain minor units are written rather than failing.
     */
    public JsonOut money(final long amountMinor, final int minorDigits)
    {
        separate();
        room(Money.FORMATTED_LENGTH_MAX + 2);
        put('"');
        position += Money.format(amountMinor, Math.max(0, minorDigits), staged, position);
        put('"');
        return this;
    }

    /** Writes a currency packed by {@link dev.tally.ledger.currency.CurrencyCode#pack} as its three letters. */
    public JsonOut currency(final int packed)
    {
        separate();
        room(1);
        put('"');
        escaped((char)((packed >>> 16) & 0xFF));
        escaped((char)((packed >>> 8) & 0xFF));
        escaped((char)(packed & 0xFF));
        room(1);
        put('"');
        return this;
    }

    /** Writes a UUID as its canonical lower-case 36-character string. */
    public JsonOut uuid(final long hi, final long lo)
    {
        separate();
        room(38);
        put('"');
        hex(hi >>> 32, 8);
        put('-');
        hex(hi >>> 16, 4);
        put('-');
        hex(hi, 4);
        put('-');
        hex(lo >>> 48, 4);
        put('-');
        hex(lo, 12);
        put('"');
        return this;
    }

    /** Writes epoch milliseconds as an ISO-8601 UTC string with millisecond precision. */
    public JsonOut time(final long epochMs)
    {
        separate();
        room(IsoTime.LENGTH + 2);
        put('"');
        IsoTime.format(epochMs, staged, position);
        position += IsoTime.LENGTH;
        put('"');
        return this;
    }

    public JsonOut field(final String name, final long value)
    {
        return name(name).number(value);
    }

    /** Writes a member whose value is a 64-bit id, as a string ({@link #id}). */
    public JsonOut idField(final String name, final long value)
    {
        return name(name).id(value);
    }

    public JsonOut field(final String name, final boolean value)
    {
        return name(name).bool(value);
    }

    public JsonOut field(final String name, final CharSequence value)
    {
        return name(name).string(value);
    }

    private JsonOut open(final char bracket)
    {
        separate();
        room(1);
        put(bracket);
        firstAtDepth[depth++] = true;
        return this;
    }

    private JsonOut close(final char bracket)
    {
        depth--;
        room(1);
        put(bracket);
        if (depth == 0)
        {
            drain();
        }
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
            room(1);
            put(',');
        }
    }

    private void quoted(final CharSequence text)
    {
        final int length = text.length();
        if (length > PLAIN_RUN_MAX)
        {
            room(1);
            put('"');
            for (int i = 0; i < length; i++)
            {
                escaped(text.charAt(i));
            }
            room(1);
            put('"');
            return;
        }
        // short texts (every member name, most values): room for the worst case once, not per character
        room(2 + 6 * length);
        put('"');
        for (int i = 0; i < length; i++)
        {
            final char c = text.charAt(i);
            if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\')
            {
                put(c);
            }
            else
            {
                escaped(c);
            }
        }
        put('"');
    }

    private void escaped(final char c)
    {
        room(6);
        if (c == '"' || c == '\\')
        {
            put('\\');
            put(c);
        }
        else if (c >= 0x20 && c < 0x7F)
        {
            put(c);
        }
        else
        {
            put('\\');
            put('u');
            hex(c, 4);
        }
    }

    /** Writes the low {@code digits} hex digits of {@code value} (room already made). */
    private void hex(final long value, final int digits)
    {
        for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
        {
            staged[position++] = HEX[(int)((value >>> shift) & 0xF)];
        }
    }

    /** Makes room for {@code bytes} more staged bytes, copying what is staged to the buffer if needed. */
    private void room(final int bytes)
    {
        if (position + bytes > STAGING_BYTES)
        {
            drain();
        }
    }

    private void put(final char c)
    {
        staged[position++] = (byte)c;
    }

    private void drain()
    {
        out.writeBytes(staged, 0, position);
        position = 0;
    }
}
