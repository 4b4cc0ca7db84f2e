package dev.tally.ledger;

import dev.tally.ledger.account.Accounts;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * A deliberately simple model of the ledger, written from SPEC.md sections 3 and 4 rather than from the
 * code: balances per account only (no sub-balances), hash maps instead of rings and heaps, a full copy
 * instead of an undo log. The model test applies the same commands to it and to real ledgers and
 * compares outcomes and balances after every command.
 *
 * <p>What it leaves out on purpose: capacities (its tables are sized so they never fill) and the 64-bit
 * edges (amounts stay small), both covered by scenario tests.
 *
 * <p>The account lifecycle (ARCHITECTURE.md, "Account lifecycle"): a debit freeze refuses debits, holds and captures
 * from the account, a freeze of credits too refuses credits into it, a closed account refuses both; voids, expiries
 * and marking a hold unknown stay allowed. Close needs zero posted and zero held on every sub-balance. Held is never
 * negative on any sub-balance, and neither is posted on a constrained one, so zero totals say it for them; an
 * unconstrained account of several sub-balances may hold +x on one and -x on another, so the model keeps its posted
 * per sub-balance, placed as ARCHITECTURE.md ("Hot accounts and sub-balances") says: a credit in the sub-balance a hash
 * of the journal index picks, an unconstrained debit in the one a hash of its complement picks.
 */
final class ReferenceModel
{
    /** Currencies the model accepts; the generator also tries one it does not. */
    static final Set<Integer> CURRENCIES = Set.of(Commands.USD, Commands.EUR, Commands.JPY);
    private static final long HOLD_TIMEOUT_MAX_MS = 366L * 24 * 60 * 60 * 1000;

    /** A 128-bit id or digest. */
    record Id(long hi, long lo)
    {
    }

    static final class Account
    {
        final long tenant;
        final int currency;
        final boolean constrained;
        final long overdraftMinor;
        long posted;
        long held;
        /** Posted per sub-balance of an unconstrained account with several; null for every other account. */
        final long[] subPosted;
        boolean debitsFrozen;
        boolean creditsFrozen;
        boolean closed;

        Account(final long tenant, final int currency, final boolean constrained, final long overdraftMinor, final int subBalances)
        {
            this.tenant = tenant;
            this.currency = currency;
            this.constrained = constrained;
            this.overdraftMinor = overdraftMinor;
            this.subPosted = constrained || subBalances == 1 ? null : new long[subBalances];
        }

        private Account(final Account other)
        {
            tenant = other.tenant;
            currency = other.currency;
            constrained = other.constrained;
            overdraftMinor = other.overdraftMinor;
            posted = other.posted;
            held = other.held;
            subPosted = other.subPosted == null ? null : other.subPosted.clone();
            debitsFrozen = other.debitsFrozen;
            creditsFrozen = other.creditsFrozen;
            closed = other.closed;
        }

        Account copy()
        {
            return new Account(this);
        }

        boolean canDraw(final long amount)
        {
            return !constrained || posted - held - amount >= -overdraftMinor;
        }

        /** Posts a debit of {@code amount} made by the command at {@code journalIndex}. */
        void debit(final long amount, final long journalIndex)
        {
            posted -= amount;
            if (subPosted != null)
            {
                subPosted[(int)Long.remainderUnsigned(StateDigest.mix(~journalIndex), subPosted.length)] -= amount;
            }
        }

        /** Posts a credit of {@code amount} made by the command at {@code journalIndex}. */
        void credit(final long amount, final long journalIndex)
        {
            posted += amount;
            if (subPosted != null)
            {
                subPosted[(int)Long.remainderUnsigned(StateDigest.mix(journalIndex), subPosted.length)] += amount;
            }
        }

        /** @return true when every sub-balance has zero posted and zero held: the account may close. */
        boolean isEmpty()
        {
            if (posted != 0 || held != 0)
            {
                return false;
            }
            if (subPosted != null)
            {
                for (final long sub : subPosted)
                {
                    if (sub != 0)
                    {
                        return false;
                    }
                }
            }
            return true;
        }

        /** @return the status bits the ledger keeps ({@code Accounts.Status}): 0 while active. */
        int status()
        {
            return closed ? Accounts.Status.CLOSED :
                (debitsFrozen ? Accounts.Status.DEBITS_FROZEN : 0) | (creditsFrozen ? Accounts.Status.CREDITS_FROZEN : 0);
        }
    }

    static final class Transfer
    {
        final long tenant;
        final long debit;
        final long credit;
        final long amount;
        final int currency;
        final boolean reversal;
        final long timeNs;
        long reversed;

        Transfer(
            final long tenant, final long debit, final long credit, final long amount, final int currency, final boolean reversal,
            final long timeNs)
        {
            this.tenant = tenant;
            this.debit = debit;
            this.credit = credit;
            this.amount = amount;
            this.currency = currency;
            this.reversal = reversal;
            this.timeNs = timeNs;
        }

        Transfer copy()
        {
            final Transfer t = new Transfer(tenant, debit, credit, amount, currency, reversal, timeNs);
            t.reversed = reversed;
            return t;
        }
    }

    static final class Hold
    {
        final long tenant;
        final long account;
        final long amount;
        final int currency;
        final long deadlineNs;
        boolean unknown;

        Hold(final long tenant, final long account, final long amount, final int currency, final long deadlineNs)
        {
            this.tenant = tenant;
            this.account = account;
            this.amount = amount;
            this.currency = currency;
            this.deadlineNs = deadlineNs;
        }

        Hold copy()
        {
            final Hold h = new Hold(tenant, account, amount, currency, deadlineNs);
            h.unknown = unknown;
            return h;
        }
    }

    record Reference(long transferIndex, long timeNs)
    {
    }

    /** A stored idempotency key; {@link #first} is the ledger's first result, filled when its unit ends. */
    static final class StoredKey
    {
        final long fingerprintHi;
        final long fingerprintLo;
        final long timeNs;
        final boolean applied;
        ResultCode code;
        Result first;

        StoredKey(final Command c, final ResultCode code, final boolean applied)
        {
            this.fingerprintHi = c.fingerprintHi;
            this.fingerprintLo = c.fingerprintLo;
            this.timeNs = c.timestampNs;
            this.code = code;
            this.applied = applied;
        }
    }

    /**
     * What one command did in the model. {@code key} is the stored key the command created or replayed:
     * its code is final only once the unit ends (a failed atomic batch rewrites it).
     */
    static final class Outcome
    {
        final ResultCode code;
        final boolean replayed;
        final StoredKey key;
        final int events;
        final int postings;
        final long extra;

        Outcome(final ResultCode code, final boolean replayed, final StoredKey key, final int events, final int postings, final long extra)
        {
            this.code = code;
            this.replayed = replayed;
            this.key = key;
            this.events = events;
            this.postings = postings;
            this.extra = extra;
        }

        /** @return the code the ledger must report once the unit is complete. */
        ResultCode finalCode()
        {
            return key != null ? key.code : code;
        }

        /** @return true when the command moved money or changed state and the unit kept it. */
        boolean appliedFinally()
        {
            return !replayed && finalCode() == ResultCode.OK;
        }
    }

    private final LedgerConfig config;
    private LinkedHashMap<Long, Account> accounts = new LinkedHashMap<>();
    private LinkedHashMap<Id, Transfer> transfers = new LinkedHashMap<>();
    private LinkedHashMap<Id, Hold> holds = new LinkedHashMap<>();
    /** References as the ledger's memory holds them: past their window once the cold index has them. */
    private LinkedHashMap<Id, Reference> references = new LinkedHashMap<>();
    /** Every reference ever taken: unique for good (memory, then the cold index). */
    private LinkedHashMap<Id, Reference> allReferences = new LinkedHashMap<>();
    private LinkedHashMap<Id, StoredKey> keys = new LinkedHashMap<>();

    // the unit (single command or batch) in progress
    private boolean unitAtomic;
    private boolean unitFailed;
    private boolean unitFailureStored;
    private final List<StoredKey> unitKeys = new ArrayList<>();
    private ReferenceModel before;
    private int lastExpiredKeys;

    ReferenceModel(final LedgerConfig config)
    {
        this.config = config;
    }

    // ---- reads for the generator and the checks ----

    Map<Long, Account> accounts()
    {
        return accounts;
    }

    Transfer transfer(final Id id)
    {
        return transfers.get(id);
    }

    Hold hold(final Id id)
    {
        return holds.get(id);
    }

    int holdCount()
    {
        return holds.size();
    }

    int unknownHoldCount()
    {
        int count = 0;
        for (final Hold h : holds.values())
        {
            count += h.unknown ? 1 : 0;
        }
        return count;
    }

    /** @return keys the last unit start or tick forgot. */
    int lastExpiredKeys()
    {
        return lastExpiredKeys;
    }

    int keyCount()
    {
        return keys.size();
    }

    int referenceCount()
    {
        return references.size();
    }

    int transferCount()
    {
        return transfers.size();
    }

    StoredKey storedKey(final Command c)
    {
        return keys.get(new Id(c.keyHi, c.keyLo));
    }

    static Id transferId(final Command c)
    {
        return new Id(Uuid7.hi(c.timestampNs, Uuid7.KIND_TRANSFER), Uuid7.lo(c.journalIndex, 0));
    }

    static Id holdId(final Command c)
    {
        return new Id(Uuid7.hi(c.timestampNs, Uuid7.KIND_HOLD), Uuid7.lo(c.journalIndex, 0));
    }

    // ---- units ----

    /**
     * Starts a unit: a single command or a batch of {@code size} operations, {@code first} being its first.
     * Before anything else (and before an atomic batch's copy, so a rollback never brings them back), a
     * unit that is not a tick forgets up to {@link LedgerLimits#EXPIRIES_PER_OPERATION} per operation of the
     * oldest keys, references and transfers that left their windows by the first command's time.
     */
    void beginUnit(final Command first, final int size, final boolean atomic)
    {
        lastExpiredKeys = 0;
        if (first.type != CommandType.TICK)
        {
            expireWindows(first.timestampNs, LedgerLimits.EXPIRIES_PER_OPERATION * size, first.coldWatermark);
        }
        unitAtomic = atomic && size > 1;
        unitFailed = false;
        unitFailureStored = true;
        unitKeys.clear();
        before = unitAtomic ? copy() : null;
    }

    /**
     * Ends the unit. A failed atomic batch is put back as it was, except that its keys keep their
     * results (now LINKED_OPERATION_FAILED where the operation had been applied) when every failure in it
     * is a stored outcome.
     *
     * @return true when the unit was rolled back.
     */
    boolean endUnit()
    {
        if (!unitAtomic || !unitFailed)
        {
            return false;
        }
        accounts = before.accounts;
        transfers = before.transfers;
        holds = before.holds;
        references = before.references;
        allReferences = before.allReferences;
        if (!unitFailureStored)
        {
            keys = before.keys;
        }
        for (final StoredKey key : unitKeys)
        {
            if (key.applied)
            {
                key.code = ResultCode.LINKED_OPERATION_FAILED;
            }
        }
        return true;
    }

    private ReferenceModel copy()
    {
        final ReferenceModel m = new ReferenceModel(config);
        accounts.forEach((id, a) -> m.accounts.put(id, a.copy()));
        transfers.forEach((id, t) -> m.transfers.put(id, t.copy()));
        holds.forEach((id, h) -> m.holds.put(id, h.copy()));
        m.references.putAll(references);
        m.allReferences.putAll(allReferences);
        m.keys.putAll(keys);
        return m;
    }

    // ---- commands ----

    /** Journaled time passes: holds past their deadline expire, then keys, references and transfers. */
    Outcome tick(final Command c)
    {
        final long now = c.timestampNs;
        int expired = 0;
        final var holdIterator = holds.values().iterator();
        while (holdIterator.hasNext())
        {
            final Hold h = holdIterator.next();
            if (!h.unknown && h.deadlineNs <= now)
            {
                accounts.get(h.account).held -= h.amount;
                holdIterator.remove();
                expired++;
            }
        }
        expireWindows(now, config.expiriesPerTickMax(), c.coldWatermark);
        return new Outcome(ResultCode.OK, false, null, expired, 0, expired);
    }

    /**
     * Forgets, oldest first, up to {@code max} keys, references and transfers each that left their windows; a reference
     * only once the cold index holds it (its transfer at or below {@code coldWatermark}).
     */
    private void expireWindows(final long nowNs, final int max, final long coldWatermark)
    {
        lastExpiredKeys = expireOldest(keys, k -> k.timeNs, nowNs - config.keyRetentionMs() * 1_000_000L, max);
        final long referenceCutoff = nowNs - config.referenceRetentionMs() * 1_000_000L;
        expireOldest(references, r -> r.transferIndex() <= coldWatermark ? r.timeNs() : Long.MAX_VALUE, referenceCutoff, max);
        expireOldest(transfers, t -> t.timeNs, nowNs - config.reversalWindowMs() * 1_000_000L, max);
    }

    /**
     * Removes up to {@code max} entries from the front of an insertion-ordered map while they are at or
     * before {@code cutoffNs}. Entries are inserted in time order, so these are the oldest ones.
     *
     * @return entries removed.
     */
    private static <V> int expireOldest(
        final LinkedHashMap<Id, V> map, final ToLongFunction<V> timeNs, final long cutoffNs, final int max)
    {
        int removed = 0;
        final var iterator = map.values().iterator();
        while (removed < max && iterator.hasNext())
        {
            if (timeNs.applyAsLong(iterator.next()) > cutoffNs)
            {
                break;
            }
            iterator.remove();
            removed++;
        }
        return removed;
    }

    /** Applies a keyed command (alone or as an operation of the current unit). */
    Outcome apply(final Command c)
    {
        final Id keyId = new Id(c.keyHi, c.keyLo);
        StoredKey stored = keys.get(keyId);
        if (stored != null && c.timestampNs - stored.timeNs >= config.keyRetentionMs() * 1_000_000L)
        {
            // past its retention, whether a tick expired it yet or not: a new intent (the rule wherever the key is)
            keys.remove(keyId);
            stored = null;
        }
        if (stored != null)
        {
            if (stored.fingerprintHi == c.fingerprintHi && stored.fingerprintLo == c.fingerprintLo)
            {
                note(stored.code);
                return new Outcome(stored.code, true, stored, 0, 0, -1);
            }
            note(ResultCode.KEY_REUSED);
            return new Outcome(ResultCode.KEY_REUSED, false, null, 0, 0, -1);
        }
        final Evaluation e = unitAtomic && unitFailed ? new Evaluation(ResultCode.LINKED_OPERATION_FAILED) : evaluate(c);
        note(e.code);
        StoredKey key = null;
        if (e.code.isStored())
        {
            key = new StoredKey(c, e.code, e.code == ResultCode.OK);
            keys.put(keyId, key);
            unitKeys.add(key);
        }
        return new Outcome(e.code, false, key, e.events, e.postings, e.extra);
    }

    private void note(final ResultCode code)
    {
        if (unitAtomic && code != ResultCode.OK)
        {
            unitFailed = true;
            unitFailureStored &= code.isStored();
        }
    }

    /** A transfer's rejection about one of its accounts: it names it, under the rule the command was journaled with. */
    private static Evaluation naming(final ResultCode code, final Command c, final long accountId)
    {
        final Evaluation e = new Evaluation(code);
        e.extra = c.rejectionNamesAccount ? accountId : 0;
        return e;
    }

    private static final class Evaluation
    {
        final ResultCode code;
        int events;
        int postings;
        long extra = -1;

        Evaluation(final ResultCode code)
        {
            this.code = code;
        }

        static Evaluation ok(final int events, final int postings)
        {
            final Evaluation e = new Evaluation(ResultCode.OK);
            e.events = events;
            e.postings = postings;
            return e;
        }
    }

    private Evaluation evaluate(final Command c)
    {
        switch (c.type)
        {
            case CREATE_ACCOUNT: return createAccount(c);
            case TRANSFER: return transfer(c);
            case REVERSE_TRANSFER: return reverse(c);
            case CREATE_HOLD: return createHold(c);
            case CAPTURE_HOLD: return capture(c);
            case VOID_HOLD: return voidHold(c);
            case MARK_HOLD_UNKNOWN: return markUnknown(c);
            case FREEZE_ACCOUNT: return lifecycle(c);
            case FREEZE_ACCOUNT_ALL: return lifecycle(c);
            case UNFREEZE_ACCOUNT: return lifecycle(c);
            case CLOSE_ACCOUNT: return lifecycle(c);
            default: throw new IllegalArgumentException("not a keyed command: " + c.type);
        }
    }

    private Account account(final long accountId, final long tenantId)
    {
        final Account a = accounts.get(accountId);
        return a != null && a.tenant == tenantId ? a : null;
    }

    private Evaluation createAccount(final Command c)
    {
        if (c.accountId <= 0 || c.subBalances < 1 || c.subBalances > LedgerLimits.SUB_BALANCES_MAX ||
            !CURRENCIES.contains(c.currency) || c.overdraftLimitMinor < 0 ||
            (c.overdraftLimitMinor > 0 && (!c.debitsMustNotExceedCredits || c.subBalances != 1)))
        {
            return new Evaluation(ResultCode.INVALID_COMMAND);
        }
        if (accounts.containsKey(c.accountId))
        {
            return new Evaluation(ResultCode.ACCOUNT_EXISTS);
        }
        accounts.put(c.accountId, new Account(c.tenantId, c.currency, c.debitsMustNotExceedCredits, c.overdraftLimitMinor, c.subBalances));
        return Evaluation.ok(1, 0);
    }

    private Evaluation transfer(final Command c)
    {
        if (c.amountMinor <= 0)
        {
            return new Evaluation(ResultCode.INVALID_COMMAND);
        }
        if (c.debitAccountId == c.creditAccountId)
        {
            return new Evaluation(ResultCode.SAME_ACCOUNT);
        }
        final Account debit = account(c.debitAccountId, c.tenantId);
        final Account credit = account(c.creditAccountId, c.tenantId);
        if (debit == null || credit == null)
        {
            return naming(ResultCode.ACCOUNT_NOT_FOUND, c, debit == null ? c.debitAccountId : c.creditAccountId);
        }
        final Evaluation refused = refusesMove(c.debitAccountId, debit, c.creditAccountId, credit);
        if (refused != null)
        {
            return refused;
        }
        if (debit.currency != c.currency || credit.currency != c.currency)
        {
            return naming(ResultCode.CURRENCY_MISMATCH, c, debit.currency != c.currency ? c.debitAccountId : c.creditAccountId);
        }
        final Id referenceId = new Id(c.referenceHi, c.referenceLo);
        final boolean hasReference = c.referenceHi != 0 || c.referenceLo != 0;
        if (hasReference && allReferences.containsKey(referenceId))
        {
            final Evaluation e = new Evaluation(ResultCode.DUPLICATE_REFERENCE);
            e.extra = allReferences.get(referenceId).transferIndex();
            return e;
        }
        if (hasReference && c.referenceTaken)
        {
            final Evaluation e = new Evaluation(ResultCode.DUPLICATE_REFERENCE);
            e.extra = Math.max(0, dev.tally.ledger.id.Uuid7.journalIndex(c.targetIdHi, c.targetIdLo));
            return e;
        }
        if (hasReference && c.referenceUnchecked)
        {
            return new Evaluation(ResultCode.REFERENCE_CHECK_UNAVAILABLE);
        }
        if (!debit.canDraw(c.amountMinor))
        {
            return new Evaluation(ResultCode.INSUFFICIENT_FUNDS);
        }
        debit.debit(c.amountMinor, c.journalIndex);
        credit.credit(c.amountMinor, c.journalIndex);
        transfers.put(transferId(c),
            new Transfer(c.tenantId, c.debitAccountId, c.creditAccountId, c.amountMinor, c.currency, false, c.timestampNs));
        if (hasReference)
        {
            references.put(referenceId, new Reference(c.journalIndex, c.timestampNs));
            allReferences.put(referenceId, new Reference(c.journalIndex, c.timestampNs));
        }
        return Evaluation.ok(1, 1);
    }

    private Evaluation reverse(final Command c)
    {
        final Transfer original = transfers.get(new Id(c.targetIdHi, c.targetIdLo));
        if (original == null || original.tenant != c.tenantId || original.reversal ||
            c.timestampNs - original.timeNs >= config.reversalWindowMs() * 1_000_000L)
        {
            return new Evaluation(ResultCode.TRANSFER_NOT_FOUND);
        }
        final long remaining = original.amount - original.reversed;
        final long requested = requestedMinor(c, original.currency);
        final long amount = c.amountMinor == 0 ? remaining : requested;
        if (c.amountMinor < 0)
        {
            return new Evaluation(ResultCode.INVALID_COMMAND);
        }
        if (requested < 0)
        {
            return new Evaluation(ResultCode.INVALID_AMOUNT);
        }
        if (c.currency != 0 && c.currency != original.currency)
        {
            return new Evaluation(ResultCode.CURRENCY_MISMATCH);
        }
        if (amount <= 0 || amount > remaining)
        {
            return new Evaluation(ResultCode.REVERSAL_EXCEEDS_REMAINING);
        }
        final Account debit = accounts.get(original.credit);
        final Account credit = accounts.get(original.debit);
        // money goes back: the original credit account is debited, so its freeze or closure refuses the reversal
        final Evaluation refused = refusesMove(original.credit, debit, original.debit, credit);
        if (refused != null)
        {
            return refused;
        }
        if (!debit.canDraw(amount))
        {
            return new Evaluation(ResultCode.INSUFFICIENT_FUNDS);
        }
        debit.debit(amount, c.journalIndex);
        credit.credit(amount, c.journalIndex);
        original.reversed += amount;
        transfers.put(transferId(c),
            new Transfer(c.tenantId, original.credit, original.debit, amount, original.currency, true, c.timestampNs));
        return Evaluation.ok(1, 1);
    }

    /**
     * A capture or reversal amount: in minor units when the command states a currency, otherwise in
     * thousandths of a major unit (what the gateway sends when the request names no currency); -1 when
     * the thousandths do not convert exactly.
     */
    private static long requestedMinor(final Command c, final int currency)
    {
        if (c.currency != 0 || c.amountMinor <= 0)
        {
            return c.amountMinor;
        }
        final java.math.BigDecimal major = java.math.BigDecimal.valueOf(c.amountMinor, Command.AMOUNT_THOUSANDTHS_DIGITS);
        final java.math.BigDecimal minor = major.movePointRight(dev.tally.ledger.currency.CurrencyCode.minorDigits(currency));
        return minor.stripTrailingZeros().scale() > 0 ? -1 : minor.longValueExact();
    }

    private Evaluation createHold(final Command c)
    {
        if (c.amountMinor <= 0 || c.holdTimeoutMs <= 0 || c.holdTimeoutMs > HOLD_TIMEOUT_MAX_MS)
        {
            return new Evaluation(ResultCode.INVALID_COMMAND);
        }
        final Account a = account(c.accountId, c.tenantId);
        if (a == null)
        {
            return new Evaluation(ResultCode.ACCOUNT_NOT_FOUND);
        }
        final Evaluation refused = refusesDebit(c.accountId, a);   // a hold reserves: a debit to come
        if (refused != null)
        {
            return refused;
        }
        if (a.currency != c.currency)
        {
            return new Evaluation(ResultCode.CURRENCY_MISMATCH);
        }
        if (!a.canDraw(c.amountMinor))
        {
            return new Evaluation(ResultCode.INSUFFICIENT_FUNDS);
        }
        a.held += c.amountMinor;
        holds.put(holdId(c), new Hold(c.tenantId, c.accountId, c.amountMinor, c.currency,
            c.timestampNs + c.holdTimeoutMs * 1_000_000L));
        return Evaluation.ok(1, 0);
    }

    /** A hold is live until captured, voided or past its deadline (unknown holds have none). */
    private Hold liveHold(final Command c)
    {
        final Hold h = holds.get(new Id(c.targetIdHi, c.targetIdLo));
        if (h == null || h.tenant != c.tenantId || (!h.unknown && h.deadlineNs <= c.timestampNs))
        {
            return null;
        }
        return h;
    }

    private Evaluation capture(final Command c)
    {
        final Hold h = liveHold(c);
        if (h == null)
        {
            return new Evaluation(ResultCode.HOLD_NOT_ACTIVE);
        }
        final long requested = requestedMinor(c, h.currency);
        final long amount = c.amountMinor == 0 ? h.amount : requested;
        if (c.amountMinor < 0)
        {
            return new Evaluation(ResultCode.INVALID_COMMAND);
        }
        if (requested < 0)
        {
            return new Evaluation(ResultCode.INVALID_AMOUNT);
        }
        if (c.currency != 0 && c.currency != h.currency)
        {
            return new Evaluation(ResultCode.CURRENCY_MISMATCH);
        }
        if (amount > h.amount)
        {
            return new Evaluation(ResultCode.CAPTURE_EXCEEDS_HOLD);
        }
        final Account credit = account(c.creditAccountId, c.tenantId);
        if (credit == null)
        {
            return new Evaluation(ResultCode.ACCOUNT_NOT_FOUND);
        }
        if (c.creditAccountId == h.account)
        {
            return new Evaluation(ResultCode.SAME_ACCOUNT);
        }
        if (credit.currency != h.currency)
        {
            return new Evaluation(ResultCode.CURRENCY_MISMATCH);
        }
        final Account debit = accounts.get(h.account);
        final Evaluation refused = refusesMove(h.account, debit, c.creditAccountId, credit);
        if (refused != null)
        {
            return refused;
        }
        debit.held -= h.amount;
        debit.debit(amount, c.journalIndex);
        credit.credit(amount, c.journalIndex);
        holds.remove(new Id(c.targetIdHi, c.targetIdLo));
        transfers.put(transferId(c), new Transfer(c.tenantId, h.account, c.creditAccountId, amount, h.currency, false, c.timestampNs));
        return Evaluation.ok(1, 1);
    }

    private Evaluation voidHold(final Command c)
    {
        final Hold h = liveHold(c);
        if (h == null)
        {
            return new Evaluation(ResultCode.HOLD_NOT_ACTIVE);
        }
        accounts.get(h.account).held -= h.amount;
        holds.remove(new Id(c.targetIdHi, c.targetIdLo));
        return Evaluation.ok(1, 0);
    }

    private Evaluation markUnknown(final Command c)
    {
        final Hold h = liveHold(c);
        if (h == null)
        {
            return new Evaluation(ResultCode.HOLD_NOT_ACTIVE);
        }
        // Marking an unknown hold again changes nothing and emits nothing, but is still a success.
        final int events = h.unknown ? 0 : 1;
        h.unknown = true;
        return Evaluation.ok(events, 0);
    }

    /**
     * Freeze (debits, or all), unfreeze or close: of the tenant's account, not closed. A freeze sets exactly the scope
     * it names and unfreeze lifts either, each with an event only when the status changes; close needs the account
     * empty, frozen or not, and is for good.
     */
    private Evaluation lifecycle(final Command c)
    {
        if (c.accountId <= 0)
        {
            return new Evaluation(ResultCode.INVALID_COMMAND);
        }
        final Account a = account(c.accountId, c.tenantId);
        if (a == null)
        {
            return new Evaluation(ResultCode.ACCOUNT_NOT_FOUND);
        }
        if (a.closed)
        {
            return refusal(ResultCode.ACCOUNT_CLOSED, c.accountId);
        }
        switch (c.type)
        {
            case FREEZE_ACCOUNT: return setFrozen(a, true, false);
            case FREEZE_ACCOUNT_ALL: return setFrozen(a, true, true);
            case UNFREEZE_ACCOUNT: return setFrozen(a, false, false);
            default:
                if (!a.isEmpty())
                {
                    return refusal(ResultCode.ACCOUNT_NOT_EMPTY, c.accountId);
                }
                a.closed = true;
                a.debitsFrozen = false;
                a.creditsFrozen = false;
                return Evaluation.ok(1, 0);
        }
    }

    private static Evaluation setFrozen(final Account a, final boolean debits, final boolean credits)
    {
        final boolean changed = a.debitsFrozen != debits || a.creditsFrozen != credits;
        a.debitsFrozen = debits;
        a.creditsFrozen = credits;
        return Evaluation.ok(changed ? 1 : 0, 0);
    }

    /** @return the rejection when the debited account refuses a debit or the credited one a credit (debit first), or null. */
    private static Evaluation refusesMove(final long debitId, final Account debit, final long creditId, final Account credit)
    {
        final Evaluation refused = refusesDebit(debitId, debit);
        if (refused != null)
        {
            return refused;
        }
        if (credit.closed)
        {
            return refusal(ResultCode.ACCOUNT_CLOSED, creditId);
        }
        return credit.creditsFrozen ? refusal(ResultCode.ACCOUNT_FROZEN, creditId) : null;
    }

    /** @return the rejection when the account refuses a debit or a hold, or null. */
    private static Evaluation refusesDebit(final long id, final Account a)
    {
        if (a.closed)
        {
            return refusal(ResultCode.ACCOUNT_CLOSED, id);
        }
        return a.debitsFrozen ? refusal(ResultCode.ACCOUNT_FROZEN, id) : null;
    }

    /** A lifecycle rejection names the account ({@code extra}). */
    private static Evaluation refusal(final ResultCode code, final long accountId)
    {
        final Evaluation e = new Evaluation(code);
        e.extra = accountId;
        return e;
    }
}
