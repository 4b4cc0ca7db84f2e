package dev.tally.ledger.batch;

/**
 * What an atomic batch changed, so that a failure midway can put everything back.
 *
 * <p>Each record is a kind and up to three {@code long} operands, appended while a batch is open and
 * walked backwards on rollback by {@link dev.tally.ledger.Ledger}. Records are fixed-width in one
 * pre-allocated array; an operation that might need more records than are left is refused before it changes
 * anything ({@link #hasRoomFor}), and the ledger then rolls the whole batch back. The ledger's capacity holds
 * a full batch ({@link dev.tally.ledger.LedgerLimits#BATCH_OPERATIONS_MAX} operations) of ordinary ones
 * (about 5 records each), not of the costliest kind (one drawing on all 64 sub-balances of a hot account: 70
 * records, with both accounts' low-balance alerts changing), of which it holds 936: see {@code Ledger.UNDO_RECORDS_MAX} and docs/ARCHITECTURE.md ("Batches and
 * atomicity").
 */
public final class UndoLog
{
    /** A sub-balance's posted and held before a change: (its offset in the accounts' array, posted, held). */
    public static final int SUB_BALANCE = 1;
    /** An account was appended: undo removes the newest account. */
    public static final int ACCOUNT_ADDED = 2;
    /** A transfer was appended to the transfer table: undo removes the newest. */
    public static final int TRANSFER_ADDED = 3;
    /** A transfer's reversed amount before a reversal: (transfer slot, old reversed amount). */
    public static final int TRANSFER_REVERSED = 4;
    /** A reference was appended: undo removes the newest. */
    public static final int REFERENCE_ADDED = 5;
    /** A hold was created in a slot: undo frees it. */
    public static final int HOLD_ADDED = 6;
    /** A hold was removed from a slot: undo puts it back. */
    public static final int HOLD_REMOVED = 7;
    /** A hold's status before a change: (hold slot, old status). */
    public static final int HOLD_STATUS = 8;
    /** An idempotency key was appended: undo removes the newest (unless the batch keeps its results). */
    public static final int KEY_ADDED = 9;
    /** A reversal kept the transfer's new state until the cold index holds it: (its journal index, the record it superseded or -1). */
    public static final int COLD_TRANSFER_TOUCHED = 10;
    /** An idempotency key past its retention was forgotten before its key was stored anew: (its ring position). */
    public static final int KEY_FORGOTTEN = 11;
    /** An account's lifecycle status before a freeze, unfreeze or close: (account slot, old status bits). */
    public static final int ACCOUNT_STATUS = 12;
    /** An account's low-balance alert before a set, removal or crossing: (account slot, old state, old threshold). */
    public static final int LOW_BALANCE_ALERT = 13;
    /** An account's has-metadata bit before a metadata update: (account slot, 1 when it had metadata). */
    public static final int ACCOUNT_METADATA = 14;

    private static final int STRIDE = 4;

    private final long[] records;
    private final int capacity;
    private int size;
    private boolean recording;

    /** @param capacity the most records one atomic batch may produce. */
    public UndoLog(final int capacity)
    {
        this.capacity = capacity;
        records = new long[capacity * STRIDE];
    }

    /** Starts recording (at the first operation of an atomic batch). */
    public void begin()
    {
        size = 0;
        recording = true;
    }

    /** Stops recording and forgets the records (the batch committed or has been rolled back). */
    public void end()
    {
        size = 0;
        recording = false;
    }

    /** @return true while an atomic batch is open. */
    public boolean isRecording()
    {
        return recording;
    }

    /** @return true when {@code needed} more records fit. */
    public boolean hasRoomFor(final int needed)
    {
        return !recording || size + needed <= capacity;
    }

    /** Appends a record if recording; a no-op otherwise. */
    public void record(final int kind, final long a, final long b, final long c)
    {
        if (!recording)
        {
            return;
        }
        if (size == capacity)
        {
            throw new IllegalStateException("undo log overflow: hasRoomFor must be checked before mutating");
        }
        final int offset = size * STRIDE;
        records[offset] = kind;
        records[offset + 1] = a;
        records[offset + 2] = b;
        records[offset + 3] = c;
        size++;
    }

    /** @return records held. */
    public int size()
    {
        return size;
    }

    /** @return the kind of record {@code i}. */
    public int kind(final int i)
    {
        return (int)records[i * STRIDE];
    }

    /** @return operand {@code n} (0..2) of record {@code i}. */
    public long operand(final int i, final int n)
    {
        return records[i * STRIDE + 1 + n];
    }
}
