package dev.tally.ledger;

import dev.tally.ledger.batch.UndoLog;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.effect.EffectLog;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;

/**
 * The unit of work the ledger is in: a single command, or a whole batch whose operations come one by one, each its
 * own command with its own key and journal index, marked with its position. It frames the unit (positions in order,
 * nothing else among a batch's operations), holds each operation's result, and makes an atomic batch all or nothing:
 * the tables record undo information while it runs ({@link UndoLog}); if any operation fails, everything the batch
 * did is put back newest first and each operation applied so far reports {@code LINKED_OPERATION_FAILED}. The failed
 * batch's results are stored under their keys when every failure in it is a stored (business) outcome; otherwise none
 * are, so a retry is evaluated afresh.
 *
 * <p>A unit starts by forgetting what left its retention windows (before an atomic batch's undo region opens, so a
 * rollback never brings an expired item back). A batch the journal holds only part of (the process stopped while
 * journaling it; its reply never left) is settled where the next unit starts, or at the end of a replay: a
 * non-atomic batch keeps what it applied, an atomic one is rolled back and stores nothing. Deterministic: replay
 * meets the same partial batch at the same place.
 *
 * <p>Business thread only; allocation-free.
 */
final class UnitOfWork
{
    /**
     * Undo records one atomic operation may need at most: one per sub-balance it changes (a sub-balance is recorded
     * once per command, see {@code Accounts}), all 64 of one account plus the credited one, and at most three more: a
     * transfer, capture or reversal adds its transfer and one of a reference, a removed hold or a reversed amount, and
     * its key is stored; and the low-balance alert of each of its two accounts may change. A hold or void needs 67 at
     * most; opening an account 3; marking a hold unknown, freezing, unfreezing or closing an account, setting a
     * low-balance alert, or updating its metadata, 2.
     */
    static final int UNDO_PER_OPERATION_MAX = LedgerLimits.SUB_BALANCES_MAX + 1 + 3 + 2;
    /**
     * Undo records an atomic batch may hold (65,520 of 32 bytes: 2 MiB): a full batch of operations averaging fewer
     * than 8 (a transfer between ordinary accounts needs 5), or 936 operations of the costliest kind. An
     * operation starts only while {@link #UNDO_PER_OPERATION_MAX} more fit; once they do not, it is refused with
     * {@code CAPACITY_EXCEEDED} and the batch rolls back, storing nothing (docs/ARCHITECTURE.md, "Batches").
     */
    static final int UNDO_RECORDS_MAX = LedgerLimits.BATCH_OPERATIONS_MAX * 8;

    private final LedgerState state;
    private final EffectLog effects;
    private final UndoLog undo;
    private final Retention retention;
    private final Result[] results = new Result[LedgerLimits.BATCH_OPERATIONS_MAX];
    /** Per operation: where its result is stored among the keys (-1: not stored), and whether it was applied. */
    private final int[] keyPositions = new int[LedgerLimits.BATCH_OPERATIONS_MAX];
    private final boolean[] applied = new boolean[LedgerLimits.BATCH_OPERATIONS_MAX];
    private int size;
    private int nextPosition;
    private boolean atomic;
    private boolean failed;
    private boolean failureStored;
    private long effectsMark;
    private long firstIndex;

    UnitOfWork(final LedgerState state, final EffectLog effects, final UndoLog undo, final Retention retention)
    {
        this.state = state;
        this.effects = effects;
        this.undo = undo;
        this.retention = retention;
        for (int i = 0; i < results.length; i++)
        {
            results[i] = new Result();
        }
    }

    /**
     * Takes command {@code c} into its unit: a batch's first operation (or a single command) starts a new unit, settling
     * a batch left incomplete first; a later operation must follow the one before.
     *
     * @return the command's result holder, reset, stamped with its journal index and time.
     * @throws InvariantViolation when the journal's framing of batches is broken.
     */
    Result begin(final Command c)
    {
        if (c.batchPosition == 0)
        {
            if (nextPosition != size)
            {
                abortIncomplete();
            }
            open(c);
        }
        else if (!isInsideBatch() || c.batchPosition != nextPosition || c.batchSize != size || c.atomic != atomic ||
            !c.type.isKeyed())
        {
            // Past the end of a finished batch, or a tick or snapshot among a batch's operations (a tick's
            // expiries cannot be undone, a snapshot must see whole units): the journal's framing is broken.
            throw new InvariantViolation("batch out of order at journal index " + c.journalIndex + ": position " +
                c.batchPosition + "/" + c.batchSize + ", expected " + nextPosition + "/" + size);
        }
        nextPosition = c.batchPosition + 1;
        if (!atomic)
        {
            // Outside an atomic batch every command is its own unit of effects.
            effects.clear();
        }
        effects.lastCommand(c.journalIndex, c.timestampNs);
        keyPositions[c.batchPosition] = -1;
        applied[c.batchPosition] = false;
        final Result r = results[c.batchPosition].reset(c.type);
        r.originIndex = c.journalIndex;
        r.originTimestampNs = c.timestampNs;
        return r;
    }

    private void open(final Command c)
    {
        effects.clear();
        size = c.batchSize;
        firstIndex = c.journalIndex;
        atomic = c.atomic && c.batchSize > 1;
        failed = false;
        failureStored = true;
        if (c.batchSize < 1 || c.batchSize > LedgerLimits.BATCH_OPERATIONS_MAX || (!c.type.isKeyed() && c.batchSize != 1))
        {
            throw new InvariantViolation("invalid batch size " + c.batchSize + " at journal index " + c.journalIndex);
        }
        if (c.type.isKeyed())
        {
            // Before the unit's undo region opens: a rollback never brings an expired item back. Deterministic: it
            // depends only on the journaled time and the commands before.
            retention.expire(c.timestampNs, LedgerLimits.EXPIRIES_PER_OPERATION * c.batchSize, c.coldWatermark);
        }
        if (atomic)
        {
            undo.begin();
            effectsMark = effects.mark();
        }
    }

    /** @return true when one more operation's undo records fit: otherwise it is refused, and its atomic batch fails. */
    boolean hasRoomForOperation()
    {
        return undo.hasRoomFor(UNDO_PER_OPERATION_MAX);
    }

    /** @return true when an earlier operation of this atomic batch failed: the rest only report it. */
    boolean isLinkedFailure()
    {
        return atomic && failed;
    }

    /**
     * Records how the keyed operation at {@code position} ended. Every outcome counts: a full table fails an atomic
     * batch like any rejection, or the rest would commit.
     *
     * @param wasApplied  the operation changed the ledger (its rule ran and succeeded).
     * @param keyPosition where its result was stored among the keys, or -1.
     */
    void settle(final int position, final ResultCode code, final boolean wasApplied, final int keyPosition)
    {
        applied[position] = wasApplied;
        keyPositions[position] = keyPosition;
        if (atomic && code != ResultCode.OK)
        {
            failed = true;
            failureStored &= code.isStored();
        }
    }

    /** Ends command {@code c}: after a batch's last operation, its unit (an atomic batch commits or rolls back). */
    void end(final Command c)
    {
        if (c.isLastOfBatch() && atomic)
        {
            if (failed)
            {
                rollback();
            }
            undo.end();
            state.holds.endBatch();
        }
    }

    /**
     * Settles a batch the journal ends inside, as the next unit would.
     *
     * @return true when an atomic batch was rolled back: its unit is now complete, with no effects.
     */
    boolean endReplay()
    {
        if (nextPosition == size)
        {
            return false;
        }
        abortIncomplete();
        nextPosition = size;
        return atomic;
    }

    /** A new unit starts while a batch is incomplete: an atomic one is rolled back and stores nothing. */
    private void abortIncomplete()
    {
        if (atomic)
        {
            failed = true;
            failureStored = false;
            rollback();
            undo.end();
            state.holds.endBatch();
        }
    }

    /** Puts back everything the failed atomic batch changed, newest first, and rewrites its results. */
    private void rollback()
    {
        for (int i = undo.size() - 1; i >= 0; i--)
        {
            final long a = undo.operand(i, 0);
            final long b = undo.operand(i, 1);
            final long c = undo.operand(i, 2);
            switch (undo.kind(i))
            {
                case UndoLog.SUB_BALANCE: state.accounts.restoreSub((int)a, b, c); break;
                case UndoLog.ACCOUNT_ADDED: state.accounts.removeNewest(); break;
                case UndoLog.TRANSFER_ADDED: state.transfers.removeNewest(); break;
                case UndoLog.TRANSFER_REVERSED: state.transfers.setReversed((int)a, b); break;
                case UndoLog.COLD_TRANSFER_TOUCHED: state.coldTransfers.undoTouch(a, (int)b); break;
                case UndoLog.REFERENCE_ADDED: state.references.removeNewest(); break;
                case UndoLog.HOLD_ADDED: state.holds.undoAdd((int)a); break;
                case UndoLog.HOLD_REMOVED: state.holds.undoRemove((int)a, (byte)b); break;
                case UndoLog.HOLD_STATUS: state.holds.undoStatus((int)a, (byte)b); break;
                case UndoLog.ACCOUNT_STATUS: state.accounts.restoreStatus((int)a, (int)b); break;
                case UndoLog.ACCOUNT_METADATA: state.accounts.restoreHasMetadata((int)a, b != 0); break;
                case UndoLog.LOW_BALANCE_ALERT: state.accounts.restoreLowBalanceAlert((int)a, (int)b, c); break;
                case UndoLog.KEY_ADDED:
                    if (!failureStored)
                    {
                        state.keys.removeNewest();
                    }
                    break;
                case UndoLog.KEY_FORGOTTEN:
                    if (!failureStored)
                    {
                        state.keys.unforget((int)a);   // the key stored anew is gone: the expired one is as it was
                    }
                    break;
                default: throw new InvariantViolation("unknown undo record " + undo.kind(i));
            }
        }
        effects.truncate(effectsMark);
        // Only the operations that ran: a batch cut short leaves stale flags in the positions after them.
        for (int position = 0; position < nextPosition; position++)
        {
            final Result r = results[position];
            if (applied[position])
            {
                state.transfersPosted -= r.type == CommandType.TRANSFER ? 1 : 0;
                r.code = ResultCode.LINKED_OPERATION_FAILED;
                if (failureStored)
                {
                    state.keys.write(keyPositions[position], r);
                }
            }
            else if (r.replayed && r.code == ResultCode.OK && r.originIndex >= firstIndex)
            {
                // A retry inside the batch of one of its own operations read OK before the rollback undid
                // that operation: it must report what the operation now reports, or the client sees a success
                // that was never kept.
                r.code = ResultCode.LINKED_OPERATION_FAILED;
            }
        }
    }

    /** @return the result of operation {@code batchPosition} of the last unit. */
    Result result(final int batchPosition)
    {
        return results[batchPosition];
    }

    /** @return true while a batch has more operations to come. */
    boolean isInsideBatch()
    {
        return nextPosition < size;
    }

    /** @return true when the last command completed a unit of effects: any outside an atomic batch, or its last. */
    boolean isUnitComplete()
    {
        return !atomic || nextPosition == size;
    }
}
