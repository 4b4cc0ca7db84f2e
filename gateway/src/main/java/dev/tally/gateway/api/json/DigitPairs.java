package dev.tally.gateway.api.json;

/**
 * The two ASCII digits of every number from 0 to 99, for writers that render decimals two digits per division
 * ({@link JsonOut#number}, {@link IsoTime}): half the divisions of one digit at a time, and no division at all for a
 * field that is two digits wide.
 */
public final class DigitPairs
{
    private static final byte[] TENS = new byte[100];
    private static final byte[] ONES = new byte[100];

    static
    {
        for (int i = 0; i < 100; i++)
        {
            TENS[i] = (byte)('0' + i / 10);
            ONES[i] = (byte)('0' + i % 10);
        }
    }

    private DigitPairs()
    {
    }

    /** Writes {@code pair} (0 to 99) as two digits at {@code dst[offset]} and {@code dst[offset + 1]}. */
    public static void write(final int pair, final byte[] dst, final int offset)
    {
        dst[offset] = TENS[pair];
        dst[offset + 1] = ONES[pair];
    }
}
