package dev.tally.gateway.api;

import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.problem.ProblemType;

import dev.tally.ledger.LedgerLimits;

/**
 * The rule for idempotency keys: 1 to {@link LedgerLimits#IDEMPOTENCY_KEY_LENGTH_MAX} visible ASCII
 * characters (0x21 to 0x7E). No spaces, so that a key copied with surrounding whitespace is rejected
 * instead of silently becoming another key.
 */
public final class IdempotencyKey
{
    /** The HTTP header that carries the key of a single mutating request. */
    public static final String HEADER = "Idempotency-Key";

    private IdempotencyKey()
    {
    }

    /**
     * @param key   the key text, or {@code null} when the request has none.
     * @param where how to name the key in the problem detail ({@code "Idempotency-Key header"}, or a
     *              batch field path).
     * @return {@code null} when the key is valid, otherwise an {@code idempotency-key-missing} or
     * {@code idempotency-key-invalid} problem.
     */
    public static Problem validate(final CharSequence key, final String where)
    {
        if (key == null)
        {
            return new Problem(ProblemType.IDEMPOTENCY_KEY_MISSING, where + " is required on every mutating request");
        }
        final int length = key.length();
        if (length == 0 || length > LedgerLimits.IDEMPOTENCY_KEY_LENGTH_MAX)
        {
            return new Problem(ProblemType.IDEMPOTENCY_KEY_INVALID,
                where + " must be 1 to " + LedgerLimits.IDEMPOTENCY_KEY_LENGTH_MAX + " characters long, not " + length);
        }
        for (int i = 0; i < length; i++)
        {
            if (!isVisibleAscii(key.charAt(i)))
            {
                return new Problem(ProblemType.IDEMPOTENCY_KEY_INVALID,
                    where + " must contain only visible ASCII characters (0x21 to 0x7E); position " + i + " does not");
            }
        }
        return null;
    }

    /** @return true when {@code key} is valid: the allocation-free test, before {@link #validate} builds a problem. */
    public static boolean isValid(final CharSequence key)
    {
        return isVisibleAsciiToken(key, LedgerLimits.IDEMPOTENCY_KEY_LENGTH_MAX);
    }

    /**
     * @return true when {@code text} is 1 to {@code lengthMax} visible ASCII characters: the rule of keys, and of the
     *         request ids the gateway echoes (no space, control character or non-ASCII byte, so safe in a header).
     */
    public static boolean isVisibleAsciiToken(final CharSequence text, final int lengthMax)
    {
        if (text == null || text.length() == 0 || text.length() > lengthMax)
        {
            return false;
        }
        for (int i = 0; i < text.length(); i++)
        {
            if (!isVisibleAscii(text.charAt(i)))
            {
                return false;
            }
        }
        return true;
    }

    /** @return true for 0x21 to 0x7E, the characters allowed in keys and references. */
    static boolean isVisibleAscii(final char c)
    {
        return c >= 0x21 && c <= 0x7E;
    }
}
