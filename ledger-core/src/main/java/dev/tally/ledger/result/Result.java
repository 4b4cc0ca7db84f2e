package dev.tally.ledger.result;

import dev.tally.ledger.command.CommandType;

/**
 * The outcome of one command, in a fixed shape so it can be stored under its idempotency key and
 * rendered again byte for byte. Mutable and reused: the ledger fills it, the caller reads it before
 * the next command.
 *
 * <p>The ids of whatever the command created are derived from {@link #originIndex} and
 * {@link #originTimestampNs}: the journal position and time of the command that first produced this
 * result. On an idempotent replay they still name the first command, so the replayed body is identical.
 *
 * <p>Payload fields by command type (unused fields are 0):
 * <pre>
 * type               accountA         accountB          amountMinor        extra (+ extraTimestampNs)
 * CREATE_ACCOUNT     account id       -                 -                  -
 * TRANSFER           debit account    credit account    amount             - (see below)
 * REVERSE_TRANSFER   debit account    credit account    amount reversed    journal index of the reversed transfer
 * CREATE_HOLD        account          -                 amount held        deadline (epoch ms)
 * CAPTURE_HOLD       held account     credit account    amount captured    journal index of the hold
 * VOID_HOLD          held account     -                 amount released    journal index of the hold
 * MARK_HOLD_UNKNOWN  held account     -                 amount held        journal index of the hold
 * FREEZE_ACCOUNT(_ALL), UNFREEZE_ACCOUNT, CLOSE_ACCOUNT, UPDATE_ACCOUNT_METADATA
 *                    account          -                 -                  -
 * SET_LOW_BALANCE_ALERT account       -                 threshold set (0:  its LowBalanceAlert state
 *                                                       removed), minor
 * DUPLICATE_REFERENCE (any)           -                 -                  journal index of the existing transfer
 * ACCOUNT_FROZEN, ACCOUNT_CLOSED, ACCOUNT_NOT_EMPTY (any)                   id of the account that refused
 * ACCOUNT_NOT_FOUND, CURRENCY_MISMATCH (TRANSFER)                           id of the account missing or in another
 *                                                                          currency; 0 for a command journaled before
 *                                                                          that rule ({@link dev.tally.ledger.command.Command#rejectionNamesAccount})
 * </pre>
 */
public final class Result
{
    public ResultCode code = ResultCode.OK;
    /** True when this result was read back from the idempotency table rather than computed now. */
    public boolean replayed;
    public CommandType type;
    public long originIndex;
    public long originTimestampNs;
    public long accountA;
    public long accountB;
    public long amountMinor;
    public long extra;
    /** Journaled time of the command {@link #extra} names (a transfer or hold), so its id can be rebuilt. */
    public long extraTimestampNs;
    public int currency;

    /** Clears every field. */
    public Result clear()
    {
        return reset(null);
    }

    /**
     * Clears every field for a result of {@code type}, storing the two references only when they change (see
     * {@link dev.tally.ledger.command.Command#reset(CommandType)}: these holders are long-lived).
     */
    public Result reset(final CommandType type)
    {
        if (code != ResultCode.OK)
        {
            code = ResultCode.OK;
        }
        if (this.type != type)
        {
            this.type = type;
        }
        replayed = false;
        originIndex = 0;
        originTimestampNs = 0;
        accountA = 0;
        accountB = 0;
        amountMinor = 0;
        extra = 0;
        extraTimestampNs = 0;
        currency = 0;
        return this;
    }

    /** Copies every field of {@code other} (the two references only when they differ, as in {@link #reset}). */
    public Result copyFrom(final Result other)
    {
        if (code != other.code)
        {
            code = other.code;
        }
        replayed = other.replayed;
        if (type != other.type)
        {
            type = other.type;
        }
        originIndex = other.originIndex;
        originTimestampNs = other.originTimestampNs;
        accountA = other.accountA;
        accountB = other.accountB;
        amountMinor = other.amountMinor;
        extra = other.extra;
        extraTimestampNs = other.extraTimestampNs;
        currency = other.currency;
        return this;
    }

    @Override
    public String toString()
    {
        return "Result{" + code + (replayed ? " replayed" : "") + " type=" + type + " origin=" + originIndex +
            " a=" + accountA + " b=" + accountB + " amount=" + amountMinor + " extra=" + extra + '}';
    }
}
