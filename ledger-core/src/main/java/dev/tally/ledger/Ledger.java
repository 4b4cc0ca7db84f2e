package dev.tally.ledger;

import dev.tally.ledger.account.Accounts;
import dev.tally.ledger.batch.UndoLog;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.effect.EffectLog;
import dev.tally.ledger.hold.HoldTable;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.idempotency.IdempotencyTable;
import dev.tally.ledger.image.StateImage;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.query.AccountVisitor;
import dev.tally.ledger.query.HoldView;
import dev.tally.ledger.query.HoldVisitor;
import dev.tally.ledger.query.TransferView;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import dev.tally.ledger.transfer.ReferenceTable;
import dev.tally.ledger.transfer.TransferTable;

/**
 * The deterministic state machine at the heart of Tally: {@code apply(command) -> result}.
 *
 * <p>Single-threaded, no I/O, no clock, no randomness: everything it reads comes from the command,
 * including time ({@link Command#timestampNs}) and identity ({@link Command#journalIndex}), so replaying
 * the journal rebuilds exactly the same state, ids and {@link #stateHash()}.
 *
 * <p>Per command, in order:
 * <ol>
 *   <li>Sequence: the journal index must rise and time must not fall, or the journal is corrupt.</li>
 *   <li>Retention, at the start of a unit (a single command, or a batch's first operation): up to
 *   {@link LedgerLimits#EXPIRIES_PER_OPERATION} keys, references and transfers per operation that left
 *   their windows by the command's journaled time are forgotten, oldest first (a tick: up to
 *   {@code expiriesPerTickMax}, and due holds).</li>
 *   <li>Idempotency: a stored key with the same fingerprint returns its stored result with no effect;
 *   with another fingerprint, {@code KEY_REUSED} and nothing changes.</li>
 *   <li>The business rule ({@link Postings}): validate everything, then mutate.</li>
 *   <li>Stored outcomes (every business outcome) are kept under the key.</li>
 *   <li>Invariants: the command's entries sum to zero, every touched sub-balance respects its floor.</li>
 * </ol>
 *
 * <p>Batches: each operation of a batch is its own command with its own key and journal index, marked
 * with its position. A unit of work is a single command or a whole batch; {@link #effects()} holds the
 * unit's effects once its last operation is applied. An atomic batch records undo information; if any
 * operation fails, everything the batch did is put back and each operation applied so far reports
 * {@code LINKED_OPERATION_FAILED}. The failed batch's results are stored under their keys when every
 * failure in it is a stored (business) outcome; otherwise none are, so a retry is evaluated afresh.
 */
public final class Ledger
{
    /**
     * Undo records one atomic operation may need at most: one per sub-balance it changes (a sub-balance is recorded
     * once per command, see {@link Accounts}), all 64 of one account plus the credited one, and at most three
     * more: a transfer, capture or reversal adds its transfer and one of a reference, a removed hold or a reversed
     * amount, and its key is stored. A hold or void needs 66 at most, opening an account or marking a hold unknown 2.
     */
    private static final int UNDO_PER_OPERATION_MAX = LedgerLimits.SUB_BALANCES_MAX + 1 + 3;
    /**
     * Undo records an atomic batch may hold (65,520 of 32 bytes: 2 MiB): a full batch of operations averaging fewer
     * than 8 (a transfer between ordinary accounts needs 5), or 963 operations of the costliest kind. An
     * operation starts only while {@link #UNDO_PER_OPERATION_MAX} more fit; once they do not, it is refused with
     * {@code CAPACITY_EXCEEDED} and the batch rolls back, storing nothing (docs/ARCHITECTURE.md, "Batches").
     */
    private static final int UNDO_RECORDS_MAX = LedgerLimits.BATCH_OPERATIONS_MAX * 8;

    private final LedgerConfig config;
    private final UndoLog undo = new UndoLog(UNDO_RECORDS_MAX);
    private final EffectLog effects = new EffectLog();
    private final Accounts accounts;
    private final IdempotencyTable keys;
    private final TransferTable transfers;
    private final ReferenceTable references;
    private final HoldTable holds;
    private final Postings postings;
    private final LedgerStats stats;
    private final Result[] results = new Result[LedgerLimits.BATCH_OPERATIONS_MAX];
    private final long keyRetentionNs;
    private final long referenceRetentionNs;
    private final long reversalWindowNs;

    // what the current unit (single command or batch) is doing
    private final int[] batchKeyPositions = new int[LedgerLimits.BATCH_OPERATIONS_MAX];
    private final boolean[] batchApplied = new boolean[LedgerLimits.BATCH_OPERATIONS_MAX];
    private int batchSize;
    private int batchNextPosition;
    private boolean batchAtomic;
    private boolean batchFailed;
    private boolean batchFailureStored;
    private long batchEffectsMark;
    private long batchFirstIndex;

    /** Keeps the values {@link #preload} reads, so that the JIT cannot drop those loads. */
    private long preloaded;
    private long lastJournalIndex;
    private long nowNs;
    private long commandsApplied;
    private long transfersPosted;

    public Ledger(final LedgerConfig config)
    {
        this.config = config;
        accounts = new Accounts(config.accountsMax(), config.subBalancesMax(), undo);
        keys = new IdempotencyTable(config.idempotencyKeysMax());
        transfers = new TransferTable(config.transfersMax());
        references = new ReferenceTable(config.referencesMax());
        holds = new HoldTable(config.holdsMax(), undo);
        postings = new Postings(accounts, transfers, references, holds, effects, undo);
        // LedgerConfig bounds the windows (WINDOW_MS_LIMIT) so that these cannot overflow.
        keyRetentionNs = config.keyRetentionMs() * 1_000_000L;
        referenceRetentionNs = config.referenceRetentionMs() * 1_000_000L;
        reversalWindowNs = config.reversalWindowMs() * 1_000_000L;
        for (int i = 0; i < results.length; i++)
        {
            results[i] = new Result();
        }
        stats = new LedgerStats(config);
        publishStats();
    }

    /**
     * Applies one command.
     *
     * @return the command's result, valid until the next unit starts. For an atomic batch, earlier
     * operations' results may still change until the last operation is applied: read them with
     * {@link #result(int)} after it.
     * @throws InvariantViolation when the journal is out of order or an invariant breaks: halt.
     */
    public Result apply(final Command c)
    {
        checkSequence(c);
        preload(c);
        lastJournalIndex = c.journalIndex;
        nowNs = c.timestampNs;
        commandsApplied++;
        if (c.batchPosition == 0)
        {
            if (batchNextPosition != batchSize)
            {
                abortIncompleteBatch();
            }
            beginUnit(c);
        }
        else if (!isInsideBatch() || c.batchPosition != batchNextPosition || c.batchSize != batchSize ||
            c.atomic != batchAtomic || !c.type.isKeyed())
        {
            // Past the end of a finished batch, or a tick or snapshot among a batch's operations (a tick's
            // expiries cannot be undone, a snapshot must see whole units): the journal's framing is broken.
            throw new InvariantViolation("batch out of order at journal index " + c.journalIndex + ": position " +
                c.batchPosition + "/" + c.batchSize + ", expected " + batchNextPosition + "/" + batchSize);
        }
        batchNextPosition = c.batchPosition + 1;
        if (!batchAtomic)
        {
            // Outside an atomic batch every command is its own unit of effects.
            effects.clear();
        }
        effects.lastCommand(c.journalIndex, c.timestampNs);

        final Result r = results[c.batchPosition].reset(c.type);
        r.originIndex = c.journalIndex;
        r.originTimestampNs = c.timestampNs;
        accounts.clearTouched();
        postings.begin();
        final long entriesBefore = effects.entryCount();
        if (c.type == CommandType.TICK)
        {
            tick(c, r);
        }
        else if (c.type == CommandType.SNAPSHOT)
        {
            // Only the journal position and time advance: the snapshotter copies the state as it stands.
            r.code = ResultCode.OK;
        }
        else
        {
            applyKeyed(c, r);
        }
        checkInvariants(c, r, entriesBefore);
        emitBalances(c);
        if (c.isLastOfBatch())
        {
            endUnit();
        }
        return r;
    }

    /**
     * Issues, first thing, the independent cache misses a transfer will wait for: its key's index bucket
     * and both accounts' index buckets, then the entries they name. Issued back to back they overlap
     * (tens of loads can be in flight); issued where the code needs them, each waits behind the one
     * before, as the reorder window does not reach from the key lookup to the account lookups. Changes
     * no state: a lookup that follows finds the same answer, from cache.
     */
    /**
     * Warms the cache for a command that will be applied soon (the business thread calls it for the next few
     * slots of its batch), exactly as {@link #apply} does first for its own command. Changes no state.
     */
    public void prefetch(final Command c)
    {
        preload(c);
    }

    private void preload(final Command c)
    {
        if (c.type == CommandType.TRANSFER)
        {
            preloaded += keys.preload(c.keyHi, c.keyLo) + accounts.preload(c.debitAccountId, c.tenantId) +
                accounts.preload(c.creditAccountId, c.tenantId);
        }
    }

    private void applyKeyed(final Command c, final Result r)
    {
        final int position = c.batchPosition;
        batchKeyPositions[position] = -1;
        batchApplied[position] = false;
        final int stored = keys.find(c.keyHi, c.keyLo);
        if (stored >= 0)
        {
            if (keys.fingerprintMatches(stored, c.fingerprintHi, c.fingerprintLo))
            {
                keys.read(stored, r);
            }
            else
            {
                r.code = ResultCode.KEY_REUSED;
            }
            noteOutcome(r.code);
            return;
        }
        if (!keys.hasRoom() || !undo.hasRoomFor(UNDO_PER_OPERATION_MAX))
        {
            // Checked first: a linked failure is stored under its key too, so it needs a free slot.
            r.code = ResultCode.CAPACITY_EXCEEDED;
        }
        else if (batchAtomic && batchFailed)
        {
            r.code = ResultCode.LINKED_OPERATION_FAILED;
        }
        else
        {
            dispatch(c, r);
            batchApplied[position] = r.code == ResultCode.OK;
        }
        // Every outcome counts: a full table fails an atomic batch like any rejection, or the rest would commit.
        noteOutcome(r.code);
        if (r.code.isStored())
        {
            batchKeyPositions[position] = keys.add(c.keyHi, c.keyLo, c.fingerprintHi, c.fingerprintLo, r);
            undo.record(UndoLog.KEY_ADDED, 0, 0, 0);
        }
        if (r.code == ResultCode.OK)
        {
            transfersPosted += c.type == CommandType.TRANSFER ? 1 : 0;
        }
    }

    private void dispatch(final Command c, final Result r)
    {
        switch (c.type)
        {
            case CREATE_ACCOUNT: postings.createAccount(c, r); break;
            case TRANSFER: postings.transfer(c, r); break;
            case REVERSE_TRANSFER: postings.reverse(c, r); break;
            case CREATE_HOLD: postings.createHold(c, r); break;
            case CAPTURE_HOLD: postings.captureHold(c, r); break;
            case VOID_HOLD: postings.voidHold(c, r); break;
            case MARK_HOLD_UNKNOWN: postings.markHoldUnknown(c, r); break;
            default: r.code = ResultCode.INVALID_COMMAND;
        }
    }

    /**
     * Advances journaled time: expires due holds, then keys, references and transfers past their windows,
     * up to {@code expiriesPerTickMax} of each kind.
     */
    private void tick(final Command c, final Result r)
    {
        final int max = config.expiriesPerTickMax();
        int expiredHolds = 0;
        int hold = holds.earliest();
        while (hold >= 0 && expiredHolds < max && holds.deadlineNs(hold) <= c.timestampNs)
        {
            postings.expireHold(c, hold);
            expiredHolds++;
            hold = holds.earliest();
        }
        expireWindows(c.timestampNs, max);
        r.code = ResultCode.OK;
        r.extra = expiredHolds;
    }

    /**
     * Ends a replay of the journal. If the journal ends inside a batch, the process stopped after
     * journaling part of it and its reply never left: settle it now, exactly as the next command would
     * (an atomic batch is rolled back and stores nothing; a non-atomic one keeps what it applied), so that
     * reads served before that next command never show half an atomic batch. Replaying the same journal
     * later, the next command settles it at the same point with the same outcome.
     *
     * @return true when an atomic batch was rolled back here: its unit is now complete, with no effects, and is
     *         recorded like any other ({@code isUnitComplete()} holds), so that the PostgreSQL watermark covers its
     *         journal indexes and the read model and the journal agree on where the ledger stands.
     */
    public boolean endReplay()
    {
        if (batchNextPosition == batchSize)
        {
            publishStats();
            return false;
        }
        abortIncompleteBatch();
        batchNextPosition = batchSize;
        publishStats();
        return batchAtomic;
    }

    /**
     * A new unit started while a batch was still incomplete: the process stopped after journaling part
     * of a batch (its reply never left). A non-atomic batch keeps what it applied, like any single
     * commands; an atomic one is rolled back and stores nothing, so the client's retry is applied afresh.
     * Deterministic: replay meets the same partial batch at the same place.
     */
    private void abortIncompleteBatch()
    {
        if (batchAtomic)
        {
            batchFailed = true;
            batchFailureStored = false;
            rollback();
            undo.end();
            holds.endBatch();
        }
    }

    /**
     * Forgets keys, references and transfers that left their windows by journaled time {@code nowNs}: the
     * oldest first, at most {@code max} of each kind. Each is a ring in time order, so this reads the ring
     * heads (sequential) and removes one index entry per key or reference.
     */
    private void expireWindows(final long nowNs, final int max)
    {
        keys.expire(nowNs - keyRetentionNs, max);
        references.expire(nowNs - referenceRetentionNs, max);
        transfers.expire(nowNs - reversalWindowNs, max);
    }

    private void beginUnit(final Command c)
    {
        effects.clear();
        batchSize = c.batchSize;
        batchFirstIndex = c.journalIndex;
        batchAtomic = c.atomic && c.batchSize > 1;
        batchFailed = false;
        batchFailureStored = true;
        if (c.batchSize < 1 || c.batchSize > LedgerLimits.BATCH_OPERATIONS_MAX || (!c.type.isKeyed() && c.batchSize != 1))
        {
            throw new InvariantViolation("invalid batch size " + c.batchSize + " at journal index " + c.journalIndex);
        }
        if (c.type.isKeyed())
        {
            // Before the unit's undo region opens: a rollback never brings an expired item back. Deterministic:
            // it depends only on the journaled time and the commands before.
            expireWindows(c.timestampNs, LedgerLimits.EXPIRIES_PER_OPERATION * c.batchSize);
        }
        if (batchAtomic)
        {
            undo.begin();
            batchEffectsMark = effects.mark();
        }
    }

    private void noteOutcome(final ResultCode code)
    {
        if (batchAtomic && code != ResultCode.OK)
        {
            batchFailed = true;
            batchFailureStored &= code.isStored();
        }
    }

    private void endUnit()
    {
        if (batchAtomic)
        {
            if (batchFailed)
            {
                rollback();
            }
            undo.end();
            holds.endBatch();
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
                case UndoLog.SUB_BALANCE: accounts.restoreSub((int)a, b, c); break;
                case UndoLog.ACCOUNT_ADDED: accounts.removeNewest(); break;
                case UndoLog.TRANSFER_ADDED: transfers.removeNewest(); break;
                case UndoLog.TRANSFER_REVERSED: transfers.setReversed((int)a, b); break;
                case UndoLog.REFERENCE_ADDED: references.removeNewest(); break;
                case UndoLog.HOLD_ADDED: holds.undoAdd((int)a); break;
                case UndoLog.HOLD_REMOVED: holds.undoRemove((int)a, (byte)b); break;
                case UndoLog.HOLD_STATUS: holds.undoStatus((int)a, (byte)b); break;
                case UndoLog.KEY_ADDED:
                    if (!batchFailureStored)
                    {
                        keys.removeNewest();
                    }
                    break;
                default: throw new InvariantViolation("unknown undo record " + undo.kind(i));
            }
        }
        effects.truncate(batchEffectsMark);
        // Only the operations that ran: a batch cut short leaves stale flags in the positions after them.
        for (int position = 0; position < batchNextPosition; position++)
        {
            final Result r = results[position];
            if (batchApplied[position])
            {
                transfersPosted -= r.type == CommandType.TRANSFER ? 1 : 0;
                r.code = ResultCode.LINKED_OPERATION_FAILED;
                if (batchFailureStored)
                {
                    keys.write(batchKeyPositions[position], r);
                }
            }
            else if (r.replayed && r.code == ResultCode.OK && r.originIndex >= batchFirstIndex)
            {
                // A retry inside the batch of one of its own operations read OK before the rollback undid
                // that operation: it must report what the operation now reports, or the client sees a success
                // that was never kept.
                r.code = ResultCode.LINKED_OPERATION_FAILED;
            }
        }
    }

    private void checkSequence(final Command c)
    {
        if (c.journalIndex <= lastJournalIndex || c.journalIndex > LedgerLimits.JOURNAL_INDEX_MAX)
        {
            throw new InvariantViolation("journal index " + c.journalIndex + " after " + lastJournalIndex);
        }
        if (c.timestampNs < nowNs)
        {
            throw new InvariantViolation("journaled time went back at index " + c.journalIndex);
        }
        if (c.type == null)
        {
            throw new InvariantViolation("command without type at index " + c.journalIndex);
        }
    }

    /** Invariants that stay on in production: cheap, and a violation halts rather than corrupts. */
    private void checkInvariants(final Command c, final Result r, final long entriesBefore)
    {
        long sum = 0;
        for (int i = (int)entriesBefore; i < effects.entryCount(); i++)
        {
            sum += effects.entryAmount(i);
        }
        if (sum != 0)
        {
            throw new InvariantViolation("entries of journal index " + c.journalIndex + " sum to " + sum);
        }
        if (!r.replayed && r.code != ResultCode.OK && accounts.touchedCount() != 0 && c.type != CommandType.TICK)
        {
            throw new InvariantViolation("rejected command changed balances at journal index " + c.journalIndex);
        }
        for (int i = 0; i < accounts.touchedCount(); i++)
        {
            // Only a changed sub-balance can have left its floor: the others passed this check when they changed.
            final int slot = accounts.touchedSlot(i);
            if (!accounts.subHolds(slot, accounts.touchedSubIndex(i)))
            {
                throw new InvariantViolation("account " + accounts.id(slot) + " below its floor at journal index " + c.journalIndex);
            }
        }
    }

    private void emitBalances(final Command c)
    {
        for (int i = 0; i < accounts.touchedCount(); i++)
        {
            final int slot = accounts.touchedSlot(i);
            final int sub = accounts.touchedSubIndex(i);
            effects.balance(c.journalIndex, accounts.tenant(slot), accounts.id(slot), sub, accounts.subPosted(slot, sub), accounts.subHeld(slot, sub));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Reads: results, effects, state, digest.
    // ---------------------------------------------------------------------------------------------

    /** @return the result of operation {@code batchPosition} of the last unit. */
    public Result result(final int batchPosition)
    {
        return results[batchPosition];
    }

    /** @return the effects of the last unit (entries, balances, events); final when {@link #isUnitComplete()}. */
    public EffectLog effects()
    {
        return effects;
    }

    /** @return true while a batch has more operations to come. */
    public boolean isInsideBatch()
    {
        return batchNextPosition < batchSize;
    }

    /**
     * @return true when the last command completed a unit of effects: any command outside an atomic
     * batch, or the last operation of an atomic batch. {@link #effects()} is then final and should be
     * drained before the next command.
     */
    public boolean isUnitComplete()
    {
        return !batchAtomic || batchNextPosition == batchSize;
    }

    public long lastJournalIndex()
    {
        return lastJournalIndex;
    }

    /** @return journaled time of the last command, epoch nanoseconds. */
    public long nowNs()
    {
        return nowNs;
    }

    public long commandsApplied()
    {
        return commandsApplied;
    }

    /** @return money movements that touched an account with more than one sub-balance, since start (a metric, not state). */
    public long hotAccountMoves()
    {
        return postings.hotAccountMoves();
    }

    public long transfersPosted()
    {
        return transfersPosted;
    }

    public LedgerConfig config()
    {
        return config;
    }

    /**
     * @return the figures other threads may read (metrics), as of the last {@link #publishStats()}; the same object
     *         for the ledger's life.
     */
    public LedgerStats stats()
    {
        return stats;
    }

    /**
     * Publishes the ledger's figures to {@link #stats()}: a few release stores, allocation-free. The thread that applies
     * commands calls it (the business stage at the end of each batch; the ledger itself when built, restored and at
     * {@link #endReplay()}); a tool that applies commands itself calls it before it reads them.
     *
     * @return {@link #stats()}.
     */
    public LedgerStats publishStats()
    {
        stats.publish(lastJournalIndex, nowNs, commandsApplied, transfersPosted, postings.hotAccountMoves(), accounts.count(),
            accounts.subBalanceCount(), keys.size(), references.size(), transfers.size(), holds.size(), holds.unknownCount(),
            holds.oldestUnknownTimestampNs());
        return stats;
    }

    // The tables, for the ledger's own tests; everything outside reads through the queries below and the stats.

    Accounts accounts()
    {
        return accounts;
    }

    IdempotencyTable idempotencyKeys()
    {
        return keys;
    }

    TransferTable transfers()
    {
        return transfers;
    }

    ReferenceTable references()
    {
        return references;
    }

    HoldTable holds()
    {
        return holds;
    }

    /**
     * Copies an account of the tenant into {@code out}; {@code out.found} is false when the account
     * does not exist or belongs to another tenant (the gateway answers 404 for both).
     */
    public AccountView readAccount(final long accountId, final long tenantId, final AccountView out)
    {
        final int slot = accounts.slotOf(accountId, tenantId);
        out.found = slot >= 0;
        return slot < 0 ? out : copyAccount(slot, out);
    }

    /**
     * Hands every account, in creation order, to {@code visitor}, for tools that read a ledger no command is being
     * applied to (replay, verify): never from another thread while the ledger runs.
     */
    public void forEachAccount(final AccountVisitor visitor)
    {
        final AccountView view = new AccountView();
        view.found = true;
        for (int slot = 0; slot < accounts.count(); slot++)
        {
            visitor.visit(copyAccount(slot, view));
        }
    }

    private AccountView copyAccount(final int slot, final AccountView out)
    {
        out.accountId = accounts.id(slot);
        out.tenantId = accounts.tenant(slot);
        out.currency = accounts.currency(slot);
        out.subBalances = accounts.subCount(slot);
        out.debitsMustNotExceedCredits = accounts.isConstrained(slot);
        out.overdraftLimitMinor = accounts.overdraftLimit(slot);
        for (int i = 0; i < out.subBalances; i++)
        {
            out.postedMinor[i] = accounts.subPosted(slot, i);
            out.heldMinor[i] = accounts.subHeld(slot, i);
        }
        return out;
    }

    /** Hands every live hold, active or unknown, to {@code visitor}; as {@link #forEachAccount}, for tools only. */
    public void forEachLiveHold(final HoldVisitor visitor)
    {
        final HoldView view = new HoldView();
        holds.forEachLive(slot ->
        {
            view.journalIndex = holds.journalIndex(slot);
            view.timestampNs = holds.timestampNs(slot);
            view.tenantId = holds.tenant(slot);
            view.accountId = holds.accountId(slot);
            view.amountMinor = holds.amount(slot);
            view.currency = holds.currency(slot);
            view.deadlineNs = holds.deadlineNs(slot);
            view.unknown = holds.status(slot) == HoldTable.UNKNOWN;
            visitor.visit(view);
        });
    }

    /**
     * Copies a transfer of the tenant that is still in memory into {@code out}; {@code out.found} is
     * false when the id is unknown, another tenant's, or older than the reversal window.
     */
    public TransferView readTransfer(final long idHi, final long idLo, final long tenantId, final TransferView out)
    {
        final long index = Uuid7.journalIndex(idHi, idLo);
        final int position = index < 0 ? -1 : transfers.find(index);
        out.found = position >= 0 && transfers.tenant(position) == tenantId &&
            Uuid7.hi(transfers.timestampNs(position), Uuid7.KIND_TRANSFER) == idHi && Uuid7.lo(index, 0) == idLo;
        return out.found ? copyTransfer(position, out) : out;
    }

    /**
     * Copies the transfer created at {@code journalIndex}, whatever its tenant, when it is still in memory; for tools
     * that compare a stopped ledger with PostgreSQL ({@code out.found} false otherwise).
     */
    public TransferView readTransferAt(final long journalIndex, final TransferView out)
    {
        final int position = transfers.find(journalIndex);
        out.found = position >= 0;
        return out.found ? copyTransfer(position, out) : out;
    }

    private TransferView copyTransfer(final int position, final TransferView out)
    {
        out.journalIndex = transfers.journalIndex(position);
        out.timestampNs = transfers.timestampNs(position);
        out.tenantId = transfers.tenant(position);
        out.kind = transfers.kind(position);
        out.debitAccountId = transfers.debitAccountId(position);
        out.creditAccountId = transfers.creditAccountId(position);
        out.amountMinor = transfers.amount(position);
        out.reversedMinor = transfers.reversed(position);
        out.currency = transfers.currency(position);
        out.reversesIndex = transfers.reversesIndex(position);
        out.reversesTimestampNs = transfers.reversesTimestampNs(position);
        out.referenceLength = transfers.copyReference(position, out.reference);
        out.hasMetadata = transfers.hasMetadata(position);
        return out;
    }

    // ---------------------------------------------------------------------------------------------
    // Snapshots.
    // ---------------------------------------------------------------------------------------------

    /**
     * Copies the whole business state into {@code image} (reused from snapshot to snapshot): the live part
     * of every table by array copies, the counters and the journal position. Called on the business thread
     * right after a {@link CommandType#SNAPSHOT} command, between units. Allocates only when the state has
     * outgrown the image's sections since the last copy.
     *
     * @throws IllegalStateException inside a batch: a snapshot holds whole units only.
     */
    public void copyTo(final StateImage image)
    {
        if (isInsideBatch())
        {
            throw new IllegalStateException("snapshot inside a batch at journal index " + lastJournalIndex);
        }
        image.position(lastJournalIndex, nowNs, commandsApplied, transfersPosted);
        image.config(config);
        accounts.copyTo(image);
        keys.copyTo(image.keys());
        references.copyTo(image.references());
        transfers.copyTo(image);
        holds.copyTo(image.holds());
    }

    /**
     * Grows the image's sections for the state as it is now, so that the next {@link #copyTo} on the business
     * thread copies without allocating: for millions of keys and transfers the allocation, not the copy, is
     * most of the pause (docs/benchmarks/history/2026-11-30-snapshots-inside-load-run.md). Meant for the snapshotter's
     * thread before it asks for a snapshot, while no copy into {@code image} is under way: it reads the tables'
     * sizes without synchronisation — an estimate, which the sections' margin covers; a copy that still needs
     * more grows the section itself — and writes nothing but the image.
     */
    public void reserveImage(final StateImage image)
    {
        accounts.reserveImage(image);
        image.keys().reserve(keys.imageLength());
        image.references().reserve(references.imageLength());
        transfers.reserveImage(image);
        image.holds().reserve(holds.imageLength());
    }

    /**
     * Builds a ledger from a snapshot image: the same state, hash and future behaviour as the ledger it was
     * copied from (ids, expiries, idempotent replays), ready to apply the command after
     * {@link StateImage#lastJournalIndex()}.
     *
     * @param config must equal the configuration the image was taken with: capacities and windows decide
     *               outcomes, so a ledger with others would diverge from a replay of the same journal.
     * @throws IllegalArgumentException when the configuration differs or the image is inconsistent.
     */
    public static Ledger restore(final LedgerConfig config, final StateImage image)
    {
        if (!config.equals(image.config()))
        {
            throw new IllegalArgumentException("snapshot taken with " + image.config() + ", ledger configured with " + config);
        }
        final Ledger ledger = new Ledger(config);
        ledger.accounts.restoreFrom(image);
        ledger.keys.restoreFrom(image.keys());
        ledger.references.restoreFrom(image.references());
        ledger.transfers.restoreFrom(image);
        ledger.holds.restoreFrom(image.holds());
        ledger.lastJournalIndex = image.lastJournalIndex();
        ledger.nowNs = image.nowNs();
        ledger.commandsApplied = image.commandsApplied();
        ledger.transfersPosted = image.transfersPosted();
        ledger.publishStats();
        return ledger;
    }

    /**
     * A deterministic digest of the whole business state: accounts and sub-balances, live holds, stored
     * keys and results, references, transfers, and the journal position and time. Two ledgers that
     * applied the same commands have the same hash; it is what replay and snapshot tests compare.
     */
    public long stateHash()
    {
        final StateDigest digest = new StateDigest();
        digest.add(lastJournalIndex).add(nowNs);
        accounts.digest(digest);
        holds.digest(digest);
        keys.digest(digest);
        references.digest(digest);
        transfers.digest(digest);
        return digest.value();
    }
}
