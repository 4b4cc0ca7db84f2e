package dev.tally.gateway.api.routing;

import dev.tally.ledger.id.Uuid7;

/**
 * Parses the ids that appear in paths and request bodies: account ids (client-chosen positive 63-bit
 * decimals) and transfer or hold ids (Tally's UUIDv7, see {@link Uuid7}).
 *
 * <p>A UUID is accepted only when it could have been issued by Tally for the expected kind: canonical
 * 8-4-4-4-12 hex form (either case), version 7 with the kind's bits, the RFC variant, a journal index of at
 * least 1 and ordinal 0. Anything else names no resource: the caller answers 404 (path) or 400 (body).
 *
 * <p>An instance holds the two halves of the last parsed UUID: reuse one per thread.
 */
public final class ResourceId
{
    /** Returned by {@link #parseAccountId} for text that is not a positive 63-bit decimal. */
    public static final long INVALID_ACCOUNT_ID = -1;
    /** Length of the canonical UUID text. */
    public static final int UUID_LENGTH = 36;

    private long hi;
    private long lo;

    /**
     * @param text decimal digits, no sign, no leading zero.
     * @return the account id, 1 to {@link Long#MAX_VALUE}, or {@link #INVALID_ACCOUNT_ID}.
     */
    public static long parseAccountId(final CharSequence text)
    {
        final int length = text.length();
        if (length == 0 || length > 19 || text.charAt(0) == '0')
        {
            return INVALID_ACCOUNT_ID;
        }
        long value = 0;
        for (int i = 0; i < length; i++)
        {
            final int digit = text.charAt(i) - '0';
            if (digit < 0 || digit > 9)
            {
                return INVALID_ACCOUNT_ID;
            }
            value = value * 10 + digit;
        }
        // At most 19 digits: below 10^19 < 2^64, so a value past Long.MAX_VALUE wrapped exactly once and reads negative
        // (no per-digit overflow check: a 64-bit division per digit was ≈ 8 % of the I/O thread's time in batch runs).
        return value < 0 ? INVALID_ACCOUNT_ID : value;
    }

    /**
     * @param text a UUID string.
     * @param kind {@link Uuid7#KIND_TRANSFER} or {@link Uuid7#KIND_HOLD}.
     * @return true when {@code text} is a Tally id of that kind; then {@link #hi()} and {@link #lo()} hold it.
     */
    public boolean parse(final CharSequence text, final int kind)
    {
        hi = 0;
        lo = 0;
        if (text.length() != UUID_LENGTH)
        {
            return false;
        }
        long high = 0;
        long low = 0;
        int nibbles = 0;
        for (int i = 0; i < UUID_LENGTH; i++)
        {
            final char c = text.charAt(i);
            if (i == 8 || i == 13 || i == 18 || i == 23)
            {
                if (c != '-')
                {
                    return false;
                }
                continue;
            }
            final int nibble = Character.digit(c, 16);
            if (nibble < 0 || c > 'f')
            {
                return false;
            }
            if (nibbles < 16)
            {
                high = (high << 4) | nibble;
            }
            else
            {
                low = (low << 4) | nibble;
            }
            nibbles++;
        }
        final long expectedLowBitsOfHigh = Uuid7.hi(0, kind) & 0xFFFF;
        if ((high & 0xFFFF) != expectedLowBitsOfHigh || Uuid7.journalIndex(high, low) < 1 || Uuid7.ordinal(low) != 0)
        {
            return false;
        }
        hi = high;
        lo = low;
        return true;
    }

    /** @return the most significant half of the last successfully parsed UUID. */
    public long hi()
    {
        return hi;
    }

    /** @return the least significant half of the last successfully parsed UUID. */
    public long lo()
    {
        return lo;
    }
}
