package dev.tally.ledger.currency;

/**
 * ISO 4217 alphabetic codes packed into an {@code int} (three ASCII letters, one byte each), plus the
 * minor-unit exponent of the currencies Tally accepts. Packing keeps the ledger free of strings.
 */
public final class CurrencyCode
{
    private static final String[] KNOWN = {
        "TRY:2", "USD:2", "EUR:2", "GBP:2", "CHF:2", "JPY:0", "KRW:0", "CNY:2", "CAD:2", "AUD:2", "SEK:2", "NOK:2",
        "DKK:2", "PLN:2", "CZK:2", "HUF:2", "RON:2", "BGN:2", "AED:2", "SAR:2", "INR:2", "BRL:2", "MXN:2", "ZAR:2",
        "KWD:3", "BHD:3", "OMR:3", "JOD:3", "TND:3", "CLP:0", "ISK:0", "VND:0", "HKD:2", "SGD:2", "NZD:2", "ILS:2",
    };
    private static final int[] PACKED = new int[KNOWN.length];
    private static final int[] MINOR_DIGITS = new int[KNOWN.length];

    static
    {
        for (int i = 0; i < KNOWN.length; i++)
        {
            PACKED[i] = pack(KNOWN[i].substring(0, 3));
            MINOR_DIGITS[i] = KNOWN[i].charAt(4) - '0';
        }
    }

    private CurrencyCode()
    {
    }

    /**
     * @param code three upper-case ASCII letters.
     * @return the packed code, or 0 when {@code code} is not three upper-case letters.
     */
    public static int pack(final CharSequence code)
    {
        if (code == null || code.length() != 3)
        {
            return 0;
        }
        int packed = 0;
        for (int i = 0; i < 3; i++)
        {
            final char c = code.charAt(i);
            if (c < 'A' || c > 'Z')
            {
                return 0;
            }
            packed = (packed << 8) | c;
        }
        return packed;
    }

    /** @return the three letters of a packed code. */
    public static String unpack(final int packed)
    {
        return new String(new char[] {(char)((packed >>> 16) & 0xFF), (char)((packed >>> 8) & 0xFF), (char)(packed & 0xFF)});
    }

    /** @return the number of minor digits (ISO 4217 exponent), or -1 when the currency is not accepted. */
    public static int minorDigits(final int packed)
    {
        for (int i = 0; i < PACKED.length; i++)
        {
            if (PACKED[i] == packed)
            {
                return MINOR_DIGITS[i];
            }
        }
        return -1;
    }
}
