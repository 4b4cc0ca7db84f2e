package dev.tally.ledger.result;

/**
 * Every outcome of a command. Rejections are data, not exceptions: the gateway maps each code to an
 * HTTP status and an RFC 9457 problem type. {@link #code()} is stable (snapshots store it): append only.
 *
 * <p>{@link #isStored()} says whether the outcome is kept under the idempotency key and replayed
 * byte-identically on a retry (every business outcome), or not kept so that a retry is evaluated
 * afresh (a reused key with another payload, a full table).
 */
public enum ResultCode
{
    OK(0, true),
    /** The account id is already taken. */
    ACCOUNT_EXISTS(1, true),
    /** An account named by the command does not exist, or belongs to another tenant. */
    ACCOUNT_NOT_FOUND(2, true),
    /** The command's currency differs from an account's currency. */
    CURRENCY_MISMATCH(3, true),
    /** Debit and credit name the same account. */
    SAME_ACCOUNT(4, true),
    /** The debit (or hold) exceeds what the constrained account has available. */
    INSUFFICIENT_FUNDS(5, true),
    /** A balance would leave the 64-bit range. */
    AMOUNT_OVERFLOW(6, true),
    /** Another transfer of this tenant already carries the reference. */
    DUPLICATE_REFERENCE(7, true),
    /** The transfer to reverse is unknown, another tenant's, or outside the reversal window. */
    TRANSFER_NOT_FOUND(8, true),
    /** The reversal asks for more than what is left to reverse. */
    REVERSAL_EXCEEDS_REMAINING(9, true),
    /** No active hold with that id (never existed, another tenant's, captured, voided or expired). */
    HOLD_NOT_ACTIVE(10, true),
    /** The capture asks for more than the hold reserved. */
    CAPTURE_EXCEEDS_HOLD(11, true),
    /** An operation of an atomic batch failed, so this one was not applied. */
    LINKED_OPERATION_FAILED(12, true),
    /** The command is malformed in a way the gateway should have caught (defence in depth). */
    INVALID_COMMAND(13, false),
    /** The same idempotency key arrived with a different payload; nothing applied, first result kept. */
    KEY_REUSED(14, false),
    /** A configured maximum (accounts, keys, holds, transfers) is reached; retry later. */
    CAPACITY_EXCEEDED(15, false),
    /**
     * A transfer's reference could not be checked against the references older than the ledger remembers (their
     * store did not answer when the journaler asked); nothing applied, retry later.
     */
    REFERENCE_CHECK_UNAVAILABLE(16, false),
    /**
     * A capture or reversal amount sent without a currency has more decimals than the hold's or transfer's currency
     * allows: the gateway, not knowing that currency, could not refuse it; not stored, like its other 400s.
     */
    INVALID_AMOUNT(17, false),
    /**
     * The cold index (what left the ledger's memory: older keys, references and transfers) did not answer when the
     * journal stage asked about this command, or is too far behind the business thread; nothing applied, not stored,
     * retry later.
     */
    COLD_INDEX_UNAVAILABLE(18, false),
    /** An account the command would debit (or credit, under a freeze of credits too) is frozen; {@code extra} names it. */
    ACCOUNT_FROZEN(19, true),
    /** An account the command would move or reserve money on, freeze or close, is closed; {@code extra} names it. */
    ACCOUNT_CLOSED(20, true),
    /** The account to close still has posted or held money on a sub-balance; {@code extra} names it. */
    ACCOUNT_NOT_EMPTY(21, true);

    private static final ResultCode[] BY_CODE = values();

    private final int code;
    private final boolean stored;

    ResultCode(final int code, final boolean stored)
    {
        this.code = code;
        this.stored = stored;
    }

    /** @return the stable numeric code. */
    public int code()
    {
        return code;
    }

    /** @return true when this outcome is stored under its idempotency key and replayed. */
    public boolean isStored()
    {
        return stored;
    }

    /** @return true for {@link #OK}. */
    public boolean isSuccess()
    {
        return this == OK;
    }

    /**
     * @param code a stable numeric code.
     * @return its result code.
     */
    public static ResultCode fromCode(final int code)
    {
        if (code < 0 || code >= BY_CODE.length || BY_CODE[code].code != code)
        {
            throw new IllegalArgumentException("unknown result code " + code);
        }
        return BY_CODE[code];
    }
}
