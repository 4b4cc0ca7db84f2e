package dev.tally.gateway.api.json;

/**
 * Conversion between decimal amounts in major units (what the API speaks) and {@code long} minor units
 * (what the ledger stores), without floating point and without allocation.
 *
 * <p>Accepted text, the same whether it arrived as a JSON string or a JSON number:
 * <pre>
 *   amount   = integer [ "." fraction ]
 *   integer  = "0" / ( digit1-9 *digit )        ; no leading zeros, no sign, no "+"
 *   fraction = 1*minorDigits digit               ; at most the currency's exponent
 * </pre>
 * So for TRY (2 digits) {@code "1000"} is 100000 minor, {@code "1000.5"} and {@code "1000.50"} are both
 * 100050, while {@code "1000.005"}, {@code "1e3"}, {@code "+5"}, {@code ".5"}, {@code "5."}, {@code "05"},
 * {@code "-5"} and {@code " 5"} are rejected. Trailing zeros are allowed only within the
 * exponent: for JPY (0 digits) {@code "5"} is fine and {@code "5.0"} is rejected, because a client that
 * sends a fraction for a currency that has none is more likely confused than precise.
 *
 * <p>Parsing returns the amount (zero included, so that an overdraft limit of {@code "0.00"} parses) or
 * one of the negative {@code ERROR_*} codes; callers that need a positive amount reject zero themselves.
 */
public final class Money
{
    /** Not a decimal of the accepted form (sign, exponent, stray character, empty, misplaced point). */
    public static final long ERROR_FORMAT = -1;
    /** More fraction digits than the currency's exponent. */
    public static final long ERROR_TOO_MANY_DECIMALS = -2;
    /** A negative amount. */
    public static final long ERROR_NEGATIVE = -3;
    /** The amount in minor units does not fit in a signed 64-bit integer. */
    public static final long ERROR_OVERFLOW = -4;

    /** Largest exponent handled: 10^18 still fits in a long. ISO 4217 uses at most 4. */
    public static final int MINOR_DIGITS_MAX = 18;
    /** Longest text {@link #format} writes: sign, 19 digits, point. */
    public static final int FORMATTED_LENGTH_MAX = 21;

    private static final long[] POWERS_OF_TEN = new long[MINOR_DIGITS_MAX + 1];

    static
    {
        POWERS_OF_TEN[0] = 1;
        for (int i = 1; i <= MINOR_DIGITS_MAX; i++)
        {
            POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
        }
    }

    private Money()
    {
    }

    /**
     * @param text        the decimal text in major units.
     * @param minorDigits the currency's exponent, 0 to {@link #MINOR_DIGITS_MAX}.
     * @return the amount in minor units (zero or more), or a negative {@code ERROR_*} code.
     */
    public static long parseMinor(final CharSequence text, final int minorDigits)
    {
        final int length = text.length();
        final char[] chars = new char[length];
        for (int i = 0; i < length; i++)
        {
            chars[i] = text.charAt(i);
        }
        return parseMinor(chars, 0, length, minorDigits);
    }

    /**
     * The allocation-free form of {@link #parseMinor(CharSequence, int)} over a character range, as a
     * streaming JSON parser exposes token text.
     *
     * @return the amount in minor units (zero or more), or a negative {@code ERROR_*} code.
     */
    public static long parseMinor(final char[] chars, final int offset, final int length, final int minorDigits)
    {
        if (minorDigits < 0 || minorDigits > MINOR_DIGITS_MAX)
        {
            throw new IllegalArgumentException("minor digits out of range: " + minorDigits);
        }
        if (length == 0)
        {
            return ERROR_FORMAT;
        }
        if (chars[offset] == '-')
        {
            return isDecimal(chars, offset + 1, length - 1) ? ERROR_NEGATIVE : ERROR_FORMAT;
        }
        if (!isDecimal(chars, offset, length))
        {
            return ERROR_FORMAT;
        }
        final int end = offset + length;
        int point = end;
        for (int i = offset; i < end; i++)
        {
            if (chars[i] == '.')
            {
                point = i;
                break;
            }
        }
        final int fractionDigits = point == end ? 0 : end - point - 1;
        if (fractionDigits > minorDigits)
        {
            return ERROR_TOO_MANY_DECIMALS;
        }
        long minor = 0;
        for (int i = offset; i < end; i++)
        {
            if (i == point)
            {
                continue;
            }
            final int digit = chars[i] - '0';
            if (minor > (Long.MAX_VALUE - digit) / 10)
            {
                return ERROR_OVERFLOW;
            }
            minor = minor * 10 + digit;
        }
        final long scale = POWERS_OF_TEN[minorDigits - fractionDigits];
        if (minor > Long.MAX_VALUE / scale)
        {
            return ERROR_OVERFLOW;
        }
        return minor * scale;
    }

    /** @return a short description of an {@code ERROR_*} code, for a problem detail. */
    public static String describe(final long errorCode)
    {
        if (errorCode == ERROR_TOO_MANY_DECIMALS)
        {
            return "has more decimal places than the currency allows";
        }
        if (errorCode == ERROR_NEGATIVE)
        {
            return "must not be negative";
        }
        if (errorCode == ERROR_OVERFLOW)
        {
            return "is too large";
        }
        return "must be a plain decimal in major units such as \"1000.00\" (no sign, exponent or spaces)";
    }

    /**
     * Writes an amount in major units, always with exactly {@code minorDigits} decimals
     * ({@code 100000} TRY is {@code 1000.00}, {@code -5} TRY is {@code -0.05}, {@code 5} JPY is {@code 5}).
     *
     * @param amountMinor any long, negative included.
     * @param minorDigits the currency's exponent, 0 to {@link #MINOR_DIGITS_MAX}.
     * @param dst         receives ASCII bytes; needs {@link #FORMATTED_LENGTH_MAX} bytes from {@code offset}.
     * @return the number of bytes written.
     */
    public static int format(final long amountMinor, final int minorDigits, final byte[] dst, final int offset)
    {
        if (minorDigits < 0 || minorDigits > MINOR_DIGITS_MAX)
        {
            throw new IllegalArgumentException("minor digits out of range: " + minorDigits);
        }
        // digits of |amount|, computed on the negative side so that Long.MIN_VALUE needs no special case
        long rest = amountMinor > 0 ? -amountMinor : amountMinor;
        int digitCount = 0;
        for (long probe = rest; probe != 0; probe /= 10)
        {
            digitCount++;
        }
        final int integerDigits = Math.max(1, digitCount - minorDigits);
        final int length = (amountMinor < 0 ? 1 : 0) + integerDigits + (minorDigits > 0 ? 1 + minorDigits : 0);
        int position = offset + length;
        for (int i = 0; i < minorDigits; i++)
        {
            dst[--position] = (byte)('0' - (rest % 10));
            rest /= 10;
        }
        if (minorDigits > 0)
        {
            dst[--position] = '.';
        }
        for (int i = 0; i < integerDigits; i++)
        {
            dst[--position] = (byte)('0' - (rest % 10));
            rest /= 10;
        }
        if (amountMinor < 0)
        {
            dst[--position] = '-';
        }
        return length;
    }

    /** @return {@link #format(long, int, byte[], int)} as a string (off the hot path: tests, logs, details). */
    public static String format(final long amountMinor, final int minorDigits)
    {
        final byte[] bytes = new byte[FORMATTED_LENGTH_MAX];
        final int length = format(amountMinor, minorDigits, bytes, 0);
        return new String(bytes, 0, length, java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** True when the range is {@code integer [ "." 1*digit ]} with no leading zero. */
    private static boolean isDecimal(final char[] chars, final int offset, final int length)
    {
        final int end = offset + length;
        int i = offset;
        if (i == end || !isDigit(chars[i]))
        {
            return false;
        }
        if (chars[i] == '0' && i + 1 < end && isDigit(chars[i + 1]))
        {
            return false;
        }
        while (i < end && isDigit(chars[i]))
        {
            i++;
        }
        if (i == end)
        {
            return true;
        }
        if (chars[i] != '.' || i + 1 == end)
        {
            return false;
        }
        i++;
        while (i < end && isDigit(chars[i]))
        {
            i++;
        }
        return i == end;
    }

    private static boolean isDigit(final char c)
    {
        return c >= '0' && c <= '9';
    }
}
