package dev.tally.ledger;

import dev.tally.ledger.account.Accounts;
import dev.tally.ledger.batch.UndoLog;
import dev.tally.ledger.cold.ColdSink;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.effect.EffectLog;
import dev.tally.ledger.hold.HoldTable;
import dev.tally.ledger.idempotency.IdempotencyTable;
import dev.tally.ledger.image.StateImage;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.query.AccountVisitor;
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
 * <p>This class applies commands and is the façade of the ledger's parts, each with one job: {@link UnitOfWork}
 * frames single commands and batches and rolls back a failed atomic batch, {@link Postings} holds the business rules,
 * {@link Retention} forgets what left its windows, {@link LedgerQueries} reads the state into views,
 * {@link LedgerImage} copies, restores and hashes it for snapshots, {@link Invariants} checks what must hold around
 * every command, and {@link LedgerStats} carries its figures to other threads. A unit of work is a single command or
 * a whole batch; {@link #effects()} holds the unit's effects once its last operation is applied.
 */
public final class Ledger
{
    private final LedgerConfig config;
    private final UndoLog undo = new UndoLog(UnitOfWork.UNDO_RECORDS_MAX);
    private final EffectLog effects = new EffectLog();
    private final LedgerState state;
    private final Accounts accounts;
    private final IdempotencyTable keys;
    private final HoldTable holds;
    private final Postings postings;
    private final Retention retention;
    private final UnitOfWork unit;
    private final Invariants invariants;
    private final LedgerQueries queries;
    private final LedgerImage image;
    private final LedgerStats stats;
    private final ColdFiling coldFiling;
    private final LowBalanceAlerts alerts;
    /** How long a stored result answers a retry, in journaled nanoseconds (a key found in the cold index included). */
    private final long keyRetentionNs;

    /** Keeps the values {@link #preload} reads, so that the JIT cannot drop those loads. */
    private long preloaded;

    public Ledger(final LedgerConfig config)
    {
        this.config = config;
        keyRetentionNs = config.keyRetentionMs() * 1_000_000L;
        state = new LedgerState(config, undo);
        accounts = state.accounts;
        keys = state.keys;
        holds = state.holds;
        postings = new Postings(config, state, effects, undo);
        retention = new Retention(config, state);
        unit = new UnitOfWork(state, effects, undo, retention);
        invariants = new Invariants(state, effects);
        queries = new LedgerQueries(state);
        image = new LedgerImage(config, state);
        stats = new LedgerStats(config);
        coldFiling = new ColdFiling(state, effects);
        alerts = new LowBalanceAlerts(state, postings);
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
        invariants.checkSequence(c);
        preload(c);
        state.lastJournalIndex = c.journalIndex;
        state.nowNs = c.timestampNs;
        state.commandsApplied++;
        final Result r = unit.begin(c);
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
        invariants.checkAfter(c, r, entriesBefore);
        emitBalances(c);
        unit.end(c);
        return r;
    }

    /**
     * Warms the cache for a command that will be applied soon (the business thread calls it for the next few
     * slots of its batch), exactly as {@link #apply} does first for its own command. Changes no state.
     */
    public void prefetch(final Command c)
    {
        preload(c);
    }

    /**
     * Issues, first thing, the independent cache misses a transfer will wait for: its key's index bucket
     * and both accounts' index buckets, then the entries they name. Issued back to back they overlap
     * (tens of loads can be in flight); issued where the code needs them, each waits behind the one
     * before, as the reorder window does not reach from the key lookup to the account lookups. Changes
     * no state: a lookup that follows finds the same answer, from cache.
     */
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
        int stored = keys.find(c.keyHi, c.keyLo);
        if (stored >= 0 && c.timestampNs - keys.storedAtNs(stored) >= keyRetentionNs)
        {
            // Past its retention though no tick has expired it yet: expired, as it is in the cold index and as a smaller
            // table would have let it go, so that the tables' sizes never change an outcome.
            keys.forgetExpired(stored);
            undo.record(UndoLog.KEY_FORGOTTEN, stored, 0, 0);
            stored = -1;
        }
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
            unit.settle(c.batchPosition, r.code, false, -1);
            return;
        }
        if (c.coldKeyFound && c.timestampNs - IdempotencyTable.coldStoredAtNs(c.coldKey) < keyRetentionNs)
        {
            // Memory let the key go; the journal stage found it in the cold index and journaled its record with the command.
            // Inside its retention by the rule memory expires by: a key stored at t is forgotten once now - t reaches it.
            if (IdempotencyTable.coldFingerprintMatches(c.coldKey, c.fingerprintHi, c.fingerprintLo))
            {
                IdempotencyTable.readCold(c.coldKey, r);
            }
            else
            {
                r.code = ResultCode.KEY_REUSED;
            }
            unit.settle(c.batchPosition, r.code, false, -1);
            return;
        }
        if (c.coldUnchecked)
        {
            r.code = ResultCode.COLD_INDEX_UNAVAILABLE;   // not stored: a retry is decided afresh, once it can be asked
            unit.settle(c.batchPosition, r.code, false, -1);
            return;
        }
        boolean applied = false;
        if (!keys.makeRoom(c.coldWatermark) || !unit.hasRoomForOperation())
        {
            // Checked first: a linked failure is stored under its key too, so it needs a free slot.
            r.code = ResultCode.CAPACITY_EXCEEDED;
        }
        else if (unit.isLinkedFailure())
        {
            r.code = ResultCode.LINKED_OPERATION_FAILED;
        }
        else
        {
            dispatch(c, r);
            applied = r.code == ResultCode.OK;
        }
        int keyPosition = -1;
        if (r.code.isStored())
        {
            keyPosition = keys.add(c.keyHi, c.keyLo, c.fingerprintHi, c.fingerprintLo, r);
            undo.record(UndoLog.KEY_ADDED, 0, 0, 0);
        }
        unit.settle(c.batchPosition, r.code, applied, keyPosition);
        if (r.code == ResultCode.OK)
        {
            state.transfersPosted += c.type == CommandType.TRANSFER ? 1 : 0;
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
            case FREEZE_ACCOUNT: postings.freezeAccount(c, r, false); break;
            case FREEZE_ACCOUNT_ALL: postings.freezeAccount(c, r, true); break;
            case UNFREEZE_ACCOUNT: postings.unfreezeAccount(c, r); break;
            case CLOSE_ACCOUNT: postings.closeAccount(c, r); break;
            case SET_LOW_BALANCE_ALERT: postings.setLowBalanceAlert(c, r); break;
            case UPDATE_ACCOUNT_METADATA: postings.updateAccountMetadata(c, r); break;
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
        // Events the low-balance alerts of the accounts released may add after the expiries: every event id of the tick
        // needs an ordinal of its own (LedgerLimits.ID_ORDINAL_BITS).
        int alertEvents = 0;
        int hold = holds.earliest();
        while (hold >= 0 && expiredHolds < max && holds.deadlineNs(hold) <= c.timestampNs)
        {
            final int more = alerts.eventsAfterRelease(accounts.slotOf(holds.accountId(hold), holds.tenant(hold)));
            if (expiredHolds + 1 + alertEvents + more > LedgerLimits.EXPIRIES_PER_TICK_MAX)
            {
                break;
            }
            alertEvents += more;
            postings.expireHold(c, hold);
            expiredHolds++;
            hold = holds.earliest();
        }
        retention.expire(c.timestampNs, max, c.coldWatermark);
        r.code = ResultCode.OK;
        r.extra = expiredHolds;
    }

    /**
     * Ends a replay of the journal. If the journal ends inside a batch, the process stopped after
     * journaling part of it and its reply never left: settle it now, exactly as the next command would
     * (an atomic batch is rolled back and stores nothing; a non-atomic one keeps what it applied), so that
     * reads served before that next command never show half an atomic batch. Replaying the same journal
     * later, the next command settles it at the same point with the same outcome. Publishes the figures.
     *
     * @return true when an atomic batch was rolled back here: its unit is now complete, with no effects, and is
     *         recorded like any other ({@code isUnitComplete()} holds), so that the PostgreSQL watermark covers its
     *         journal indexes and the read model and the journal agree on where the ledger stands.
     */
    public boolean endReplay()
    {
        final boolean rolledBack = unit.endReplay();
        publishStats();
        return rolledBack;
    }

    /**
     * Records the values of every sub-balance the command changed, and evaluates the low-balance alert of each account
     * among them that has one, once per account, after the whole command (a capture releases, then debits).
     */
    private void emitBalances(final Command c)
    {
        for (int i = 0; i < accounts.touchedCount(); i++)
        {
            final int slot = accounts.touchedSlot(i);
            final int sub = accounts.touchedSubIndex(i);
            effects.balance(c.journalIndex, accounts.tenant(slot), accounts.id(slot), sub, accounts.subPosted(slot, sub),
                accounts.subHeld(slot, sub));
            if (accounts.hasLowBalanceAlert(slot) && accounts.isFirstTouched(slot, sub))
            {
                alerts.evaluate(c, slot);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Reads: results, effects, position, figures.
    // ---------------------------------------------------------------------------------------------

    /** @return the result of operation {@code batchPosition} of the last unit. */
    public Result result(final int batchPosition)
    {
        return unit.result(batchPosition);
    }

    /**
     * Files what the last unit added or changed (stored keys, references, transfers created or reversed) into the cold
     * index's {@code sink}, from which the journal stage answers for them once memory has let them go. Call once per
     * unit, when {@link #isUnitComplete()}, from the first unit applied on: a unit not filed is never filed.
     * Allocation-free; business thread only.
     */
    public void fileCold(final ColdSink sink)
    {
        coldFiling.file(sink);
    }

    /** @return the effects of the last unit (entries, balances, events); final when {@link #isUnitComplete()}. */
    public EffectLog effects()
    {
        return effects;
    }

    /** @return true while a batch has more operations to come. */
    public boolean isInsideBatch()
    {
        return unit.isInsideBatch();
    }

    /**
     * @return true when the last command completed a unit of effects: any command outside an atomic
     * batch, or the last operation of an atomic batch. {@link #effects()} is then final and should be
     * drained before the next command.
     */
    public boolean isUnitComplete()
    {
        return unit.isUnitComplete();
    }

    public long lastJournalIndex()
    {
        return state.lastJournalIndex;
    }

    /** @return journaled time of the last command, epoch nanoseconds. */
    public long nowNs()
    {
        return state.nowNs;
    }

    public long commandsApplied()
    {
        return state.commandsApplied;
    }

    /** @return money movements that touched an account with more than one sub-balance, since start (a metric, not state). */
    public long hotAccountMoves()
    {
        return postings.hotAccountMoves();
    }

    public long transfersPosted()
    {
        return state.transfersPosted;
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
        stats.publish(state.lastJournalIndex, state.nowNs, state.commandsApplied, state.transfersPosted,
            postings.hotAccountMoves(), accounts.count(), accounts.subBalanceCount(), keys.size(), state.references.size(),
            state.transfers.size(), holds.size(), holds.unknownCount(), holds.oldestUnknownTimestampNs());
        stats.publishEvictions(keys.evicted(), state.references.evicted(), state.transfers.evicted(), state.coldTransfers.size());
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
        return state.transfers;
    }

    ReferenceTable references()
    {
        return state.references;
    }

    HoldTable holds()
    {
        return holds;
    }

    // ---------------------------------------------------------------------------------------------
    // Queries (LedgerQueries): into reused views, changing nothing.
    // ---------------------------------------------------------------------------------------------

    /**
     * Copies an account of the tenant into {@code out}; {@code out.found} is false when the account
     * does not exist or belongs to another tenant (the gateway answers 404 for both).
     */
    public AccountView readAccount(final long accountId, final long tenantId, final AccountView out)
    {
        return queries.readAccount(accountId, tenantId, out);
    }

    /**
     * Answers the read {@code out.lookup} asks ({@link TransferView#BY_ID} by default): copies a transfer of the tenant
     * that is still in memory into {@code out}, found by its id or ({@link TransferView#BY_REFERENCE}) by the digest
     * of its reference given as {@code idHi/idLo}; or ({@link TransferView#HOLD_BY_ID}) a live hold of the tenant into
     * {@code out.hold}. {@code out.found} is false when the id is unknown, another tenant's, or older than what memory
     * keeps. Every answer carries {@link TransferView#asOfJournalIndex}.
     */
    public TransferView readTransfer(final long idHi, final long idLo, final long tenantId, final TransferView out)
    {
        return queries.readTransfer(idHi, idLo, tenantId, out);
    }

    /**
     * Hands every account, in creation order, to {@code visitor}, for tools that read a ledger no command is being
     * applied to (replay, verify): never from another thread while the ledger runs.
     */
    public void forEachAccount(final AccountVisitor visitor)
    {
        queries.forEachAccount(visitor);
    }

    /** Hands every live hold, active or unknown, to {@code visitor}; as {@link #forEachAccount}, for tools only. */
    public void forEachLiveHold(final HoldVisitor visitor)
    {
        queries.forEachLiveHold(visitor);
    }

    /**
     * Copies the transfer created at {@code journalIndex}, whatever its tenant, when it is still in memory; for tools
     * that compare a stopped ledger with PostgreSQL ({@code out.found} false otherwise).
     */
    public TransferView readTransferAt(final long journalIndex, final TransferView out)
    {
        return queries.readTransferAt(journalIndex, out);
    }

    // ---------------------------------------------------------------------------------------------
    // Snapshots (LedgerImage).
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
            throw new IllegalStateException("snapshot inside a batch at journal index " + state.lastJournalIndex);
        }
        this.image.copyTo(image);
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
        this.image.reserve(image);
    }

    /**
     * Builds a ledger from a snapshot image: the same state, hash and future behaviour as the ledger it was
     * copied from (ids, expiries, idempotent replays), ready to apply the command after
     * {@link StateImage#lastJournalIndex()}.
     *
     * @param config must decide like the configuration the image was taken with ({@link LedgerConfig#decidesLike}): its
     *               keys, references and transfers tables may be larger or smaller (a smaller one keeps the newest, the
     *               cold index holds the rest), nothing else may differ.
     * @throws IllegalArgumentException when the configuration decides otherwise or the image is inconsistent.
     */
    public static Ledger restore(final LedgerConfig config, final StateImage image)
    {
        if (!config.decidesLike(image.config()))
        {
            throw new IllegalArgumentException("snapshot taken with " + image.config() + ", ledger configured with " + config);
        }
        return restoreAnySize(config, image);
    }

    /**
     * {@link #restore} without its check of the tables' sizes: for tests whose cold index trails by far less than
     * {@link LedgerLimits#COLD_LAG_MAX}, so that tables smaller than {@link LedgerConfig#TUNABLE_TABLE_MIN} decide alike.
     */
    static Ledger restoreAnySize(final LedgerConfig config, final StateImage image)
    {
        final Ledger ledger = new Ledger(config);
        ledger.image.restoreFrom(image);
        ledger.coldFiling.restart();
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
        return image.stateHash();
    }
}
