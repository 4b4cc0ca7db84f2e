package dev.tally.ledger;

import dev.tally.ledger.account.Accounts;
import dev.tally.ledger.account.LowBalanceAlert;
import dev.tally.ledger.batch.UndoLog;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.effect.EffectLog;
import dev.tally.ledger.effect.EventType;
import dev.tally.ledger.hold.HoldTable;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import dev.tally.ledger.transfer.ColdTransfers;
import dev.tally.ledger.transfer.ReferenceTable;
import dev.tally.ledger.transfer.TransferKind;
import dev.tally.ledger.transfer.TransferTable;

/**
 * The business rules of every money-moving command. Each method validates everything first and only
 * then mutates, so a rejection changes nothing; on success it records ledger entries (which sum to
 * zero) and outbox events in the {@link EffectLog}.
 *
 * <p>Runs on the business thread only. Allocation-free.
 */
final class Postings
{
    /**
     * Money movements touching an account with more than one sub-balance (a hot account), since start.
     * A monitoring counter, not state: not in the state hash or a snapshot, and not undone with a failed
     * atomic batch. Other threads read it through {@link LedgerStats}.
     */
    private long hotAccountMoves;

    private static final long HOLD_TIMEOUT_MAX_MS = LedgerLimits.HOLD_TIMEOUT_MAX_MS;
    private static final long OVERDRAFT_LIMIT_MAX_MINOR = LedgerLimits.OVERDRAFT_LIMIT_MAX_MINOR;

    private final Accounts accounts;
    private final TransferTable transfers;
    private final ReferenceTable references;
    private final ColdTransfers coldTransfers;
    private final HoldTable holds;
    /** The transfer a reversal reverses, wherever it was found ({@link #reverse}). */
    private final long[] originalRecord = new long[LedgerLimits.COLD_TRANSFER_LONGS];
    private final long reversalWindowNs;
    private final EffectLog effects;
    private final UndoLog undo;
    private int eventOrdinal;

    Postings(final LedgerConfig config, final LedgerState state, final EffectLog effects, final UndoLog undo)
    {
        this.accounts = state.accounts;
        this.transfers = state.transfers;
        this.references = state.references;
        this.coldTransfers = state.coldTransfers;
        // LedgerConfig bounds the window (WINDOW_MS_LIMIT) so that this cannot overflow.
        this.reversalWindowNs = config.reversalWindowMs() * 1_000_000L;
        this.holds = state.holds;
        this.effects = effects;
        this.undo = undo;
    }

    /** Starts a command: event ordinals restart at 0. */
    void begin()
    {
        eventOrdinal = 0;
    }

    void createAccount(final Command c, final Result r)
    {
        r.accountA = c.accountId;
        r.currency = c.currency;
        if (c.accountId <= 0 || c.subBalances < 1 || c.subBalances > LedgerLimits.SUB_BALANCES_MAX ||
            CurrencyCode.minorDigits(c.currency) < 0 || c.overdraftLimitMinor < 0 ||
            c.overdraftLimitMinor > OVERDRAFT_LIMIT_MAX_MINOR || c.amountMinor < 0 ||
            (c.overdraftLimitMinor > 0 && (!c.debitsMustNotExceedCredits || c.subBalances != 1)) || !hasValidMetadata(c))
        {
            r.code = ResultCode.INVALID_COMMAND;
            return;
        }
        if (accounts.slotOf(c.accountId, c.tenantId) >= 0)
        {
            r.code = ResultCode.ACCOUNT_EXISTS;
            return;
        }
        if (!accounts.hasRoomFor(c.subBalances))
        {
            r.code = ResultCode.CAPACITY_EXCEEDED;
            return;
        }
        final int slot = accounts.add(
            c.accountId, c.tenantId, c.currency, c.subBalances, c.debitsMustNotExceedCredits, c.overdraftLimitMinor);
        accounts.created(slot, c.timestampNs);
        for (int i = 0; i < c.subBalances; i++)
        {
            effects.balance(c.journalIndex, c.tenantId, c.accountId, i, 0, 0);
        }
        if (c.metadataLength > 0)
        {
            accounts.restoreHasMetadata(slot, true);   // no undo record of its own: undoing the account's creation removes it
        }
        event(EventType.ACCOUNT_CREATED, c, c.accountId, c.accountId, 0, 0, c.currency, c.subBalances);
        effects.eventAccountRules(c.debitsMustNotExceedCredits, c.overdraftLimitMinor);
        eventMetadata(c);
        if (c.amountMinor > 0)
        {
            // A low-balance threshold (amountMinor, which no creation used before): a new account is at zero, below it.
            accounts.setLowBalanceAlert(slot, LowBalanceAlert.WAITING, c.amountMinor);
        }
    }

    void transfer(final Command c, final Result r)
    {
        r.accountA = c.debitAccountId;
        r.accountB = c.creditAccountId;
        r.amountMinor = c.amountMinor;
        r.currency = c.currency;
        if (c.amountMinor <= 0 || c.referenceLength < 0 || c.referenceLength > LedgerLimits.REFERENCE_LENGTH_MAX || !hasValidMetadata(c))
        {
            r.code = ResultCode.INVALID_COMMAND;
            return;
        }
        if (c.debitAccountId == c.creditAccountId)
        {
            r.code = ResultCode.SAME_ACCOUNT;
            return;
        }
        final int debitSlot = accounts.slotOf(c.debitAccountId, c.tenantId);
        final int creditSlot = accounts.slotOf(c.creditAccountId, c.tenantId);
        if (debitSlot < 0 || creditSlot < 0)
        {
            r.code = ResultCode.ACCOUNT_NOT_FOUND;
            nameRejectedAccount(c, r, debitSlot < 0 ? c.debitAccountId : c.creditAccountId);
            return;
        }
        if (refusesDebit(debitSlot, r) || refusesCredit(creditSlot, r))
        {
            return;
        }
        if (accounts.currency(debitSlot) != c.currency || accounts.currency(creditSlot) != c.currency)
        {
            r.code = ResultCode.CURRENCY_MISMATCH;
            nameRejectedAccount(c, r, accounts.currency(debitSlot) != c.currency ? c.debitAccountId : c.creditAccountId);
            return;
        }
        if (c.hasReference())
        {
            final long existing = references.find(c.referenceHi, c.referenceLo);
            if (existing >= 0)
            {
                r.code = ResultCode.DUPLICATE_REFERENCE;
                r.extra = existing;
                r.extraTimestampNs = references.findTimestampNs(c.referenceHi, c.referenceLo);
                return;
            }
            if (c.referenceTaken)
            {
                // older than the window: the journaler found it in PostgreSQL and journaled that transfer's id
                r.code = ResultCode.DUPLICATE_REFERENCE;
                r.extra = Math.max(0, Uuid7.journalIndex(c.targetIdHi, c.targetIdLo));
                r.extraTimestampNs = Uuid7.timestampNs(c.targetIdHi);
                return;
            }
            if (c.referenceUnchecked)
            {
                r.code = ResultCode.REFERENCE_CHECK_UNAVAILABLE; // not stored: a retry is decided afresh
                return;
            }
            if (!references.makeRoom(c.coldWatermark))
            {
                r.code = ResultCode.CAPACITY_EXCEEDED;   // only when the cold index is behind further than the journal stage lets it
                return;
            }
        }
        final ResultCode funds = checkMove(debitSlot, creditSlot, c.amountMinor, c.journalIndex);
        if (funds != ResultCode.OK)
        {
            r.code = funds;
            return;
        }
        if (!transfers.makeRoom(c.coldWatermark))
        {
            r.code = ResultCode.CAPACITY_EXCEEDED;   // only when the cold index is behind further than the journal stage lets it
            return;
        }
        move(debitSlot, creditSlot, c.amountMinor, c, TransferKind.TRANSFER);
        transfers.add(c.journalIndex, c.timestampNs, c.tenantId, c.debitAccountId, c.creditAccountId, c.amountMinor,
            c.currency, TransferKind.TRANSFER, 0, 0, c.referenceHi, c.referenceLo, c.reference, c.referenceLength, c.metadataLength > 0);
        undo.record(UndoLog.TRANSFER_ADDED, 0, 0, 0);
        if (c.hasReference())
        {
            references.add(c.referenceHi, c.referenceLo, c.journalIndex, c.timestampNs);
            undo.record(UndoLog.REFERENCE_ADDED, 0, 0, 0);
        }
        event(EventType.TRANSFER_POSTED, c, c.journalIndex, c.debitAccountId, c.creditAccountId, c.amountMinor, c.currency, 0);
        if (c.referenceLength > 0)
        {
            effects.eventReference(c.reference, c.referenceLength);
        }
        eventMetadata(c);
    }

    /** @return true when the command's metadata length is one its array holds (reserved up to the limit), 0 included. */
    private static boolean hasValidMetadata(final Command c)
    {
        return c.metadataLength >= 0 && c.metadataLength <= c.metadata.array().length;
    }

    /** Gives the event appended last the command's metadata, if it has any: the ledger hands it on and does not keep it. */
    private void eventMetadata(final Command c)
    {
        if (c.metadataLength > 0)
        {
            effects.eventMetadata(c.metadata.array(), c.metadataLength);
        }
    }

    /**
     * Names, in {@code extra}, the account a transfer's {@code account-not-found} or {@code currency-mismatch} is about
     * (the debit account when both are), when the command was journaled under that rule: a command journaled before it
     * keeps the result it was answered with, {@code extra} 0, on every replay.
     */
    private static void nameRejectedAccount(final Command c, final Result r, final long accountId)
    {
        if (c.rejectionNamesAccount)
        {
            r.extra = accountId;
        }
    }

    /**
     * Reverses all or part of a transfer that is still inside the reversal window by journaled time (created less than
     * the window before this command), wherever it is: in memory, in memory again after an earlier reversal brought it
     * back from the cold index ({@link ColdTransfers}), or in the cold index, as the journal stage found it there and
     * journaled it with the command ({@link Command#coldTransfer}). The window is checked by time in all three, so that
     * where a transfer happens to be (memory expires at most a few a command) never changes the answer.
     */
    void reverse(final Command c, final Result r)
    {
        if (!transfers.makeRoom(c.coldWatermark))
        {
            // First, so that a transfer let go for room is looked for where it went, not at its old position.
            r.code = ResultCode.CAPACITY_EXCEEDED;   // only when the cold index is behind further than the journal stage lets it
            return;
        }
        final long originalIndex = Uuid7.journalIndex(c.targetIdHi, c.targetIdLo);
        final int position = originalIndex < 0 ? -1 : transfers.find(originalIndex);
        final int broughtBack = position >= 0 || originalIndex < 0 ? -1 : coldTransfers.find(originalIndex);
        final long[] original = originalRecord;
        final boolean journaledFromCold = c.coldTransferFound && TransferTable.recordIndex(c.coldTransfer) == originalIndex;
        if (position >= 0)
        {
            transfers.copyCold(position, original);
        }
        else if (broughtBack >= 0)
        {
            coldTransfers.copy(broughtBack, original);
        }
        else if (journaledFromCold)
        {
            System.arraycopy(c.coldTransfer, 0, original, 0, LedgerLimits.COLD_TRANSFER_LONGS);
        }
        if ((position < 0 && broughtBack < 0 && !journaledFromCold) ||
            TransferTable.recordTenant(original) != c.tenantId ||
            TransferTable.recordKind(original) == TransferKind.REVERSAL ||
            Uuid7.hi(TransferTable.recordTimestampNs(original), Uuid7.KIND_TRANSFER) != c.targetIdHi ||
            Uuid7.lo(originalIndex, 0) != c.targetIdLo ||
            c.timestampNs - TransferTable.recordTimestampNs(original) >= reversalWindowNs)
        {
            r.code = ResultCode.TRANSFER_NOT_FOUND;
            return;
        }
        final long debitAccount = TransferTable.recordCreditAccountId(original);
        final long creditAccount = TransferTable.recordDebitAccountId(original);
        final long remaining = TransferTable.recordAmount(original) - TransferTable.recordReversed(original);
        final long requested = toMinor(c, TransferTable.recordCurrency(original));
        final long amount = c.amountMinor == 0 ? remaining : requested;
        r.accountA = debitAccount;
        r.accountB = creditAccount;
        r.amountMinor = amount;
        r.currency = TransferTable.recordCurrency(original);
        r.extra = originalIndex;
        r.extraTimestampNs = TransferTable.recordTimestampNs(original);
        final ResultCode stated = checkStatedAmount(c, requested, r.currency);
        if (stated != ResultCode.OK)
        {
            r.code = stated;
            return;
        }
        if (amount <= 0 || amount > remaining)
        {
            r.code = ResultCode.REVERSAL_EXCEEDS_REMAINING;
            return;
        }
        final int debitSlot = accounts.slotOf(debitAccount, c.tenantId);
        final int creditSlot = accounts.slotOf(creditAccount, c.tenantId);
        // A reversal moves money back: the original credit account is debited, so its freeze or closure refuses it too.
        if (refusesDebit(debitSlot, r) || refusesCredit(creditSlot, r))
        {
            return;
        }
        final ResultCode funds = checkMove(debitSlot, creditSlot, amount, c.journalIndex);
        if (funds != ResultCode.OK)
        {
            r.code = funds;
            return;
        }
        if (!coldTransfers.makeRoom(c.coldWatermark))
        {
            r.code = ResultCode.CAPACITY_EXCEEDED;   // only when the cold index is behind further than the journal stage lets it
            return;
        }
        move(debitSlot, creditSlot, amount, c, TransferKind.REVERSAL);
        TransferTable.recordReversed(original, TransferTable.recordReversed(original) + amount);
        if (position >= 0)
        {
            undo.record(UndoLog.TRANSFER_REVERSED, position, transfers.reversed(position), 0);
            transfers.setReversed(position, TransferTable.recordReversed(original));
        }
        // Kept until the cold index holds it, wherever the transfer is: memory may let it go before then, as it lets a
        // transfer go once the cold index holds its creation, and a later reversal must find this state, not that one.
        undo.record(UndoLog.COLD_TRANSFER_TOUCHED, originalIndex, coldTransfers.touch(original, c.journalIndex), 0);
        transfers.add(c.journalIndex, c.timestampNs, c.tenantId, debitAccount, creditAccount, amount, r.currency,
            TransferKind.REVERSAL, originalIndex, r.extraTimestampNs, 0, 0, c.reference, 0, false);
        undo.record(UndoLog.TRANSFER_ADDED, 0, 0, 0);
        event(EventType.TRANSFER_REVERSED, c, c.journalIndex, debitAccount, creditAccount, amount, r.currency, originalIndex);
        effects.eventExtraTimestampNs(r.extraTimestampNs);
    }

    void createHold(final Command c, final Result r)
    {
        r.accountA = c.accountId;
        r.amountMinor = c.amountMinor;
        r.currency = c.currency;
        if (c.amountMinor <= 0 || c.holdTimeoutMs <= 0 || c.holdTimeoutMs > HOLD_TIMEOUT_MAX_MS)
        {
            r.code = ResultCode.INVALID_COMMAND;
            return;
        }
        final long deadlineNs = c.timestampNs + c.holdTimeoutMs * 1_000_000L;
        r.extra = deadlineNs / 1_000_000L;
        final int slot = accounts.slotOf(c.accountId, c.tenantId);
        if (slot < 0)
        {
            r.code = ResultCode.ACCOUNT_NOT_FOUND;
            return;
        }
        if (refusesDebit(slot, r))
        {
            return;   // a hold reserves: a debit to come
        }
        if (accounts.currency(slot) != c.currency)
        {
            r.code = ResultCode.CURRENCY_MISMATCH;
            return;
        }
        final int funds = accounts.checkDraw(slot, c.amountMinor, true, c.journalIndex);
        if (funds != Accounts.Funds.OK)
        {
            r.code = funds == Accounts.Funds.INSUFFICIENT ? ResultCode.INSUFFICIENT_FUNDS : ResultCode.AMOUNT_OVERFLOW;
            return;
        }
        if (!holds.hasRoom())
        {
            r.code = ResultCode.CAPACITY_EXCEEDED;
            return;
        }
        accounts.draw(slot, c.amountMinor, true, c.journalIndex);
        holds.add(c.journalIndex, c.timestampNs, c.tenantId, c.accountId, c.amountMinor, c.currency, deadlineNs);
        event(EventType.HOLD_CREATED, c, c.journalIndex, c.accountId, 0, c.amountMinor, c.currency, r.extra);
    }

    void captureHold(final Command c, final Result r)
    {
        final int hold = findLiveHold(c, r);
        if (hold < 0)
        {
            return;
        }
        final long heldAmount = holds.amount(hold);
        final long requested = toMinor(c, holds.currency(hold));
        final long amount = c.amountMinor == 0 ? heldAmount : requested;
        final long heldAccount = holds.accountId(hold);
        r.accountA = heldAccount;
        r.accountB = c.creditAccountId;
        r.amountMinor = amount;
        r.currency = holds.currency(hold);
        final ResultCode stated = checkStatedAmount(c, requested, r.currency);
        if (stated != ResultCode.OK)
        {
            r.code = stated;
            return;
        }
        if (amount > heldAmount)
        {
            r.code = ResultCode.CAPTURE_EXCEEDS_HOLD;
            return;
        }
        final int creditSlot = accounts.slotOf(c.creditAccountId, c.tenantId);
        if (creditSlot < 0)
        {
            r.code = ResultCode.ACCOUNT_NOT_FOUND;
            return;
        }
        if (c.creditAccountId == heldAccount)
        {
            r.code = ResultCode.SAME_ACCOUNT;
            return;
        }
        if (accounts.currency(creditSlot) != holds.currency(hold))
        {
            r.code = ResultCode.CURRENCY_MISMATCH;
            return;
        }
        final int debitSlot = accounts.slotOf(heldAccount, c.tenantId);
        // A capture debits the held account and credits the other; a void or expiry only releases, and stays allowed.
        if (refusesDebit(debitSlot, r) || refusesCredit(creditSlot, r))
        {
            return;
        }
        // Unconstrained: checked before the release, which only raises available, so the check after it passes.
        if (!accounts.canCredit(creditSlot, amount, c.journalIndex) ||
            (!accounts.isConstrained(debitSlot) && accounts.checkDraw(debitSlot, amount, false, c.journalIndex) != Accounts.Funds.OK))
        {
            r.code = ResultCode.AMOUNT_OVERFLOW;
            return;
        }
        if (!transfers.makeRoom(c.coldWatermark))
        {
            r.code = ResultCode.CAPACITY_EXCEEDED;   // only when the cold index is behind further than the journal stage lets it
            return;
        }
        // Release the whole hold, then post the captured part: the released amount always covers it.
        accounts.release(debitSlot, heldAmount);
        if (accounts.checkDraw(debitSlot, amount, false, c.journalIndex) != Accounts.Funds.OK)
        {
            throw new InvariantViolation("capture of hold " + holds.journalIndex(hold) + " not covered by its release");
        }
        move(debitSlot, creditSlot, amount, c, TransferKind.CAPTURE);
        holds.remove(hold);
        transfers.add(c.journalIndex, c.timestampNs, c.tenantId, heldAccount, c.creditAccountId, amount, r.currency,
            TransferKind.CAPTURE, 0, 0, 0, 0, c.reference, 0, false);
        undo.record(UndoLog.TRANSFER_ADDED, 0, 0, 0);
        event(EventType.HOLD_CAPTURED, c, r.extra, heldAccount, c.creditAccountId, amount, r.currency, heldAmount - amount);
    }

    void voidHold(final Command c, final Result r)
    {
        final int hold = findLiveHold(c, r);
        if (hold < 0)
        {
            return;
        }
        r.accountA = holds.accountId(hold);
        r.amountMinor = holds.amount(hold);
        r.currency = holds.currency(hold);
        accounts.release(accounts.slotOf(r.accountA, c.tenantId), r.amountMinor);
        holds.remove(hold);
        event(EventType.HOLD_VOIDED, c, r.extra, r.accountA, 0, r.amountMinor, r.currency, 0);
    }

    void markHoldUnknown(final Command c, final Result r)
    {
        final int hold = findLiveHold(c, r);
        if (hold < 0)
        {
            return;
        }
        r.accountA = holds.accountId(hold);
        r.amountMinor = holds.amount(hold);
        r.currency = holds.currency(hold);
        if (holds.status(hold) == HoldTable.ACTIVE)
        {
            holds.markUnknown(hold);
            event(EventType.HOLD_MARKED_UNKNOWN, c, r.extra, r.accountA, 0, r.amountMinor, r.currency, 0);
        }
    }

    /**
     * Freezes an account's debits, or its debits and credits ({@code credits}): the freeze is set to exactly that
     * scope, so a second freeze widens or narrows the first. An event only when the status changes.
     */
    void freezeAccount(final Command c, final Result r, final boolean credits)
    {
        final int slot = lifecycleTarget(c, r);
        if (slot >= 0)
        {
            final int status = Accounts.Status.DEBITS_FROZEN | (credits ? Accounts.Status.CREDITS_FROZEN : 0);
            changeStatus(c, slot, status, EventType.ACCOUNT_FROZEN, credits ? 1 : 0);
        }
    }

    /** Lifts a freeze; an account that is not frozen stays as it is (OK, no event). */
    void unfreezeAccount(final Command c, final Result r)
    {
        final int slot = lifecycleTarget(c, r);
        if (slot >= 0)
        {
            changeStatus(c, slot, 0, EventType.ACCOUNT_UNFROZEN, 0);
        }
    }

    /**
     * Closes an account with zero posted and zero held on every sub-balance (held zero: no live hold reserves on it), frozen
     * or not. Closed is for good: no command reopens it.
     */
    void closeAccount(final Command c, final Result r)
    {
        final int slot = lifecycleTarget(c, r);
        if (slot < 0)
        {
            return;
        }
        if (!accounts.isEmpty(slot))
        {
            r.code = ResultCode.ACCOUNT_NOT_EMPTY;
            r.extra = c.accountId;
            return;
        }
        changeStatus(c, slot, Accounts.Status.CLOSED, EventType.ACCOUNT_CLOSED, 0);
    }

    /**
     * Replaces an account's metadata with the command's; a command without metadata removes it. The ledger keeps only
     * whether the account has some (so that a read knows to ask PostgreSQL for it), and hands the bytes on with the event,
     * which every applied update emits: memory cannot tell an unchanged value from a new one. A closed account refuses
     * it, as it refuses every other change.
     */
    void updateAccountMetadata(final Command c, final Result r)
    {
        if (!hasValidMetadata(c))
        {
            r.accountA = c.accountId;
            r.code = ResultCode.INVALID_COMMAND;
            return;
        }
        final int slot = lifecycleTarget(c, r);
        if (slot < 0)
        {
            return;
        }
        accounts.setHasMetadata(slot, c.metadataLength > 0);
        event(EventType.ACCOUNT_METADATA_UPDATED, c, c.accountId, c.accountId, 0, 0, accounts.currency(slot), 0);
        eventMetadata(c);
    }

    /**
     * Finds the account a freeze, unfreeze, close or metadata update names: @return its slot, or -1 with the rejection in {@code r}
     * (unknown or another tenant's, or already closed).
     */
    private int lifecycleTarget(final Command c, final Result r)
    {
        r.accountA = c.accountId;
        if (c.accountId <= 0)
        {
            r.code = ResultCode.INVALID_COMMAND;
            return -1;
        }
        final int slot = accounts.slotOf(c.accountId, c.tenantId);
        if (slot < 0)
        {
            r.code = ResultCode.ACCOUNT_NOT_FOUND;
            return -1;
        }
        r.currency = accounts.currency(slot);
        if ((accounts.status(slot) & Accounts.Status.CLOSED) != 0)
        {
            r.code = ResultCode.ACCOUNT_CLOSED;
            r.extra = c.accountId;
            return -1;
        }
        return slot;
    }

    private void changeStatus(final Command c, final int slot, final int status, final EventType type, final long extra)
    {
        if (accounts.status(slot) != status)
        {
            accounts.setStatus(slot, status);
            event(type, c, c.accountId, c.accountId, 0, 0, accounts.currency(slot), extra);
        }
    }

    /**
     * Sets, changes or removes (threshold 0) an account's low-balance threshold. The alert starts afresh, without an
     * event: armed when available is at or above the threshold, else waiting for it to get there ({@link LowBalanceAlert}).
     * A frozen account takes it; a closed one refuses it, as it refuses every change.
     */
    void setLowBalanceAlert(final Command c, final Result r)
    {
        final int slot = lifecycleTarget(c, r);
        if (slot < 0)
        {
            return;
        }
        final long threshold = toMinor(c, r.currency);
        r.amountMinor = threshold;
        final ResultCode stated = checkStatedAmount(c, threshold, r.currency);
        if (stated != ResultCode.OK)
        {
            r.code = stated;
            return;
        }
        final int state = threshold == 0 ? LowBalanceAlert.NONE :
            accounts.availableTotal(slot) >= threshold ? LowBalanceAlert.ARMED : LowBalanceAlert.WAITING;
        accounts.setLowBalanceAlert(slot, state, threshold);
        r.extra = state;
    }

    /**
     * Records an event of an account's own (a low-balance alert's): the account's tenant, not the command's, since a tick
     * has none; {@code amount} and {@code extra} as its {@link EventType} says.
     */
    void accountEvent(final EventType type, final Command c, final int slot, final long amount, final long extra)
    {
        final long accountId = accounts.id(slot);
        effects.event(type, c.journalIndex, c.timestampNs, eventOrdinal++, accounts.tenant(slot), accountId, accountId, 0, amount,
            accounts.currency(slot), extra);
    }

    /** @return true, with the rejection in {@code r} naming the account, when the account refuses a debit or a hold. */
    private boolean refusesDebit(final int slot, final Result r)
    {
        return refuse(accounts.refusesDebit(slot), slot, r);
    }

    /** @return true, with the rejection in {@code r} naming the account, when the account refuses a credit. */
    private boolean refusesCredit(final int slot, final Result r)
    {
        return refuse(accounts.refusesCredit(slot), slot, r);
    }

    private boolean refuse(final int status, final int slot, final Result r)
    {
        if (status == 0)
        {
            return false;
        }
        r.code = status == Accounts.Status.CLOSED ? ResultCode.ACCOUNT_CLOSED : ResultCode.ACCOUNT_FROZEN;
        r.extra = accounts.id(slot);
        return true;
    }

    /** Expires one active hold at a tick: its amount goes back to available. */
    void expireHold(final Command tick, final int hold)
    {
        final long accountId = holds.accountId(hold);
        final long amount = holds.amount(hold);
        final long holdIndex = holds.journalIndex(hold);
        final long tenant = holds.tenant(hold);
        final int currency = holds.currency(hold);
        accounts.release(accounts.slotOf(accountId, tenant), amount);
        holds.remove(hold);
        // One ordinal per expired hold: LedgerConfig keeps expiriesPerTickMax within the ids' 14-bit ordinals.
        effects.event(EventType.HOLD_EXPIRED, tick.journalIndex, tick.timestampNs, eventOrdinal++, tenant, holdIndex,
            accountId, 0, amount, currency, 0);
    }

    /**
     * Finds the live hold a capture, void or mark names, checking tenant and the full id; sets
     * {@code r.extra} to its journal index. A hold past its deadline is no longer live even before the
     * tick that expires it, so the outcome never depends on when ticks happen to arrive.
     *
     * @return the hold's slot, or -1 with {@code r.code = HOLD_NOT_ACTIVE}.
     */
    private int findLiveHold(final Command c, final Result r)
    {
        final long holdIndex = Uuid7.journalIndex(c.targetIdHi, c.targetIdLo);
        final int hold = holdIndex < 0 ? -1 : holds.find(holdIndex);
        r.extra = holdIndex < 0 ? 0 : holdIndex;
        if (hold < 0 || holds.tenant(hold) != c.tenantId ||
            Uuid7.hi(holds.timestampNs(hold), Uuid7.KIND_HOLD) != c.targetIdHi || Uuid7.lo(holdIndex, 0) != c.targetIdLo ||
            (holds.status(hold) == HoldTable.ACTIVE && holds.deadlineNs(hold) <= c.timestampNs))
        {
            r.code = ResultCode.HOLD_NOT_ACTIVE;
            return -1;
        }
        r.extraTimestampNs = holds.timestampNs(hold);
        return hold;
    }

    /**
     * @return the command's amount in minor units of {@code currency}: as given when the command names a
     * currency, otherwise converted from thousandths of a major unit; -1 when that has more decimals than
     * the currency allows (or the currency is unknown).
     */
    private static long toMinor(final Command c, final int currency)
    {
        if (c.currency != 0 || c.amountMinor <= 0)
        {
            return c.amountMinor;
        }
        final int digits = CurrencyCode.minorDigits(currency);
        if (digits < 0 || digits > Command.AMOUNT_THOUSANDTHS_DIGITS)
        {
            return -1;
        }
        long factor = 1;
        for (int i = digits; i < Command.AMOUNT_THOUSANDTHS_DIGITS; i++)
        {
            factor *= 10;
        }
        return c.amountMinor % factor == 0 ? c.amountMinor / factor : -1;
    }

    /**
     * Checks an amount a command may state with or without a currency (a reversal's, a capture's, a low-balance threshold):
     * {@code minor} is {@link #toMinor}'s conversion of it into {@code currency}, the currency of what the command names.
     *
     * @return {@code INVALID_COMMAND} for a negative amount, {@code INVALID_AMOUNT} for one with more decimals than the
     * currency has, {@code CURRENCY_MISMATCH} when the command gave it in another currency's units (refused rather than
     * reinterpreted), else {@code OK}.
     */
    private static ResultCode checkStatedAmount(final Command c, final long minor, final int currency)
    {
        if (c.amountMinor < 0)
        {
            return ResultCode.INVALID_COMMAND;
        }
        if (minor < 0)
        {
            return ResultCode.INVALID_AMOUNT;
        }
        return c.currency != 0 && c.currency != currency ? ResultCode.CURRENCY_MISMATCH : ResultCode.OK;
    }

    private ResultCode checkMove(final int debitSlot, final int creditSlot, final long amount, final long journalIndex)
    {
        final int funds = accounts.checkDraw(debitSlot, amount, false, journalIndex);
        if (funds == Accounts.Funds.INSUFFICIENT)
        {
            return ResultCode.INSUFFICIENT_FUNDS;
        }
        if (funds == Accounts.Funds.OVERFLOW || !accounts.canCredit(creditSlot, amount, journalIndex))
        {
            return ResultCode.AMOUNT_OVERFLOW;
        }
        return ResultCode.OK;
    }

    /**
     * Debits one account, credits the other, and records the two legs (entry ordinals 0 and 1), each with its
     * transfer's {@code kind} and its account's posted total right after it (exact: the checks before keep the total
     * inside a long; a hot account's total is a sum over its sub-balances, read here once per leg).
     */
    private void move(final int debitSlot, final int creditSlot, final long amount, final Command c, final int kind)
    {
        if (accounts.subCount(debitSlot) > 1 || accounts.subCount(creditSlot) > 1)
        {
            hotAccountMoves++;
        }
        accounts.draw(debitSlot, amount, false, c.journalIndex);
        accounts.credit(creditSlot, amount, c.journalIndex);
        final int currency = accounts.currency(debitSlot);
        effects.entry(c.journalIndex, c.timestampNs, 0, c.journalIndex, c.tenantId, accounts.id(debitSlot), -amount, currency, kind,
            accounts.postedTotal(debitSlot));
        effects.entry(c.journalIndex, c.timestampNs, 1, c.journalIndex, c.tenantId, accounts.id(creditSlot), amount, currency, kind,
            accounts.postedTotal(creditSlot));
    }

    private void event(
        final EventType type, final Command c, final long subject, final long accountA, final long accountB, final long amount,
        final int currency, final long extra)
    {
        effects.event(type, c.journalIndex, c.timestampNs, eventOrdinal++, c.tenantId, subject, accountA, accountB, amount,
            currency, extra);
    }

    /** @return money movements that touched a hot account (more than one sub-balance) since start. */
    long hotAccountMoves()
    {
        return hotAccountMoves;
    }
}
