package dev.tally.perf.peer;

/**
 * Amounts as Tally's API takes and renders them: a decimal string in major units with at most the
 * currency's ISO 4217 minor digits ({@code "1000.5"} TRY = 100050 minor units), no sign, no exponent,
 * no leading zeros; rendered with exactly the currency's minor digits ({@code "1000.50"}).
 */
final class PeerMoney
{
    /** Currencies whose exponent is not 2 (ISO 4217); every other three-letter code has 2 minor digits. */
    private static final String ZERO_DIGITS = "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF";
    private static final String THREE_DIGITS = "BHD IQD JOD KWD LYD OMR TND";
    private static final long[] POWERS = {1L, 10L, 100L, 1_000L};

    private PeerMoney()
    {
    }

    /** @return true for three upper-case ASCII letters. */
    static boolean isCurrency(final String code)
    {
        return code.length() == 3 && isUpper(code.charAt(0)) && isUpper(code.charAt(1)) && isUpper(code.charAt(2));
    }

    /** @return the minor digits of a currency code. */
    static int minorDigits(final String currency)
    {
        if (ZERO_DIGITS.contains(currency))
        {
            return 0;
        }
        return THREE_DIGITS.contains(currency) ? 3 : 2;
    }

    /**
     * @param text     the amount as sent.
     * @param currency its currency.
     * @return minor units, or -1 when the text is not an amount of that currency (malformed, too many
     *         digits, overflow).
     */
    static long parseMinor(final String text, final String currency)
    {
        final int digits = minorDigits(currency);
        final int length = text.length();
        final int dot = text.indexOf('.');
        final int integerEnd = dot < 0 ? length : dot;
        if (integerEnd == 0 || (integerEnd > 1 && text.charAt(0) == '0') || dot == length - 1)
        {
            return -1;
        }
        final int fractionLength = dot < 0 ? 0 : length - dot - 1;
        if (fractionLength > digits)
        {
            return -1;
        }
        long minor = 0;
        try
        {
            for (int i = 0; i < length; i++)
            {
                if (i == dot)
                {
                    continue;
                }
                final char c = text.charAt(i);
                if (c < '0' || c > '9')
                {
                    return -1;
                }
                minor = Math.addExact(Math.multiplyExact(minor, 10L), c - '0');
            }
            return Math.multiplyExact(minor, POWERS[digits - fractionLength]);
        }
        catch (final ArithmeticException ex)
        {
            return -1;
        }
    }

    /** @return {@code minor} rendered with exactly the currency's minor digits, e.g. {@code "-11.00"}. */
    static String format(final long minor, final String currency)
    {
        final int digits = minorDigits(currency);
        if (digits == 0)
        {
            return Long.toString(minor);
        }
        final String sign = minor < 0 ? "-" : "";
        final String abs = minor == Long.MIN_VALUE ? Long.toString(minor).substring(1) : Long.toString(Math.abs(minor));
        final String padded = abs.length() <= digits ? "0".repeat(digits - abs.length() + 1) + abs : abs;
        final int split = padded.length() - digits;
        return sign + padded.substring(0, split) + "." + padded.substring(split);
    }

    private static boolean isUpper(final char c)
    {
        return c >= 'A' && c <= 'Z';
    }
}
