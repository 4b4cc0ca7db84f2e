package dev.tally.ledger.command;

/**
 * Every kind of command the ledger applies. The {@link #code()} is the stable byte written to the
 * journal: never renumber a constant, only append.
 */
public enum CommandType
{
    /** Creates an account (id, currency, sub-balance count, constraint flags). */
    CREATE_ACCOUNT(1),
    /** Moves money from a debit account to a credit account. */
    TRANSFER(2),
    /** Moves back (part of) what an earlier transfer moved, as a new transfer. */
    REVERSE_TRANSFER(3),
    /** Reserves an amount on an account until a journaled deadline. */
    CREATE_HOLD(4),
    /** Posts (part of) a hold to a credit account and releases the rest. */
    CAPTURE_HOLD(5),
    /** Releases a hold without moving money. */
    VOID_HOLD(6),
    /** Marks a hold whose outcome is not known: it no longer expires on its own. */
    MARK_HOLD_UNKNOWN(7),
    /** Advances journaled time: expires holds, idempotency keys, references and old transfers. */
    TICK(8),
    /**
     * Marks the point where a snapshot of the state is taken. It changes nothing but the journal position
     * and time, so a snapshot taken here is the state after exactly the commands before it.
     */
    SNAPSHOT(9),
    /**
     * Freezes an account's debits: transfers out, holds, captures from it and reversals that would debit it are refused;
     * credits still arrive. The scope is the type, not a field: the journal record's flag bits are all taken, and a type
     * code costs nothing (docs/JOURNAL.md).
     */
    FREEZE_ACCOUNT(10),
    /** Freezes an account's debits and credits. */
    FREEZE_ACCOUNT_ALL(11),
    /** Lifts a freeze of either scope. */
    UNFREEZE_ACCOUNT(12),
    /** Closes an account whose every sub-balance has zero posted and zero held: from then on nothing moves money on it. */
    CLOSE_ACCOUNT(13),
    /**
     * Sets, changes or removes an account's low-balance threshold: {@code accountId}, the threshold in {@code amountMinor}
     * (0 removes it; in thousandths of a major unit when {@code currency} is 0, as a capture's amount may be). A threshold
     * at creation travels in {@code CREATE_ACCOUNT}'s {@code amountMinor} instead, which it never used before.
     */
    SET_LOW_BALANCE_ALERT(14),
    /**
     * Replaces an account's metadata with the command's (none: removes it). Only the account's has-metadata bit is ledger
     * state; the canonical bytes travel in the journal record (flag bit 4) and on to PostgreSQL with the event.
     */
    UPDATE_ACCOUNT_METADATA(15);

    private static final CommandType[] BY_CODE = new CommandType[16];

    static
    {
        for (final CommandType type : values())
        {
            BY_CODE[type.code] = type;
        }
    }

    private final int code;

    CommandType(final int code)
    {
        this.code = code;
    }

    /** @return the stable journal code of this command type. */
    public int code()
    {
        return code;
    }

    /**
     * @param code a journal code.
     * @return the type for that code, or {@code null} when the code is unknown.
     */
    public static CommandType fromCode(final int code)
    {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** @return true when the command changes business state and therefore carries an idempotency key. */
    public boolean isKeyed()
    {
        return this != TICK && this != SNAPSHOT;
    }
}
