package dev.tally.ledger.account;

import dev.tally.ledger.StateDigest;
import dev.tally.ledger.batch.UndoLog;
import dev.tally.ledger.idempotency.Digest128Index;

/**
 * Every account and its sub-balances, in flat pre-allocated arrays indexed by account slot (creation
 * order) and by global sub-balance slot.
 *
 * <p>A hot account spreads credits over N sub-balances by a deterministic hash of the journal index;
 * a debit or a hold draws from as many sub-balances as it needs, starting at a hashed one. A
 * constrained account ({@code debitsMustNotExceedCredits}) never lets any sub-balance's available
 * ({@code posted - held}) go below zero, except a single-sub-balance account with an overdraft limit,
 * which may go down to {@code -overdraftLimit}. In memory the sub-balances cost nothing in contention;
 * they exist so that the PostgreSQL read model updates many rows, not one hot row.
 *
 * <p>An account's balance is the sum of its sub-balances, so every credit and debit keeps that sum, not
 * only the sub-balance it changes, inside the 64-bit range.
 *
 * <p>Memory: 52 bytes per account plus 21 bytes per sub-balance plus 40–80 bytes of
 * (tenant, id) index.
 */
public final class Accounts
{
    private final int accountsMax;
    private final int subBalancesMax;
    /** Account ids are chosen by clients, so they are unique per tenant: the index key is (tenant, id). */
    private final Digest128Index slotByTenantAndId;
    private final long[] ids;
    private final long[] tenants;
    private final long[] overdraftLimits;
    private final int[] currencies;
    private final int[] subBases;
    private final byte[] subCounts;
    private final boolean[] constrained;
    private final long[] posted;
    private final long[] held;
    private final int[] subOwners;
    /** Sized for every sub-balance: a tick that expires many holds touches many accounts. */
    private final int[] touched;
    private final boolean[] isTouched;
    private final UndoLog undo;
    private int touchedCount;
    private int accountCount;
    private int subBalanceCount;

    public Accounts(final int accountsMax, final int subBalancesMax, final UndoLog undo)
    {
        this.accountsMax = accountsMax;
        this.subBalancesMax = subBalancesMax;
        this.undo = undo;
        slotByTenantAndId = new Digest128Index(accountsMax);
        ids = new long[accountsMax];
        tenants = new long[accountsMax];
        overdraftLimits = new long[accountsMax];
        currencies = new int[accountsMax];
        subBases = new int[accountsMax];
        subCounts = new byte[accountsMax];
        constrained = new boolean[accountsMax];
        posted = new long[subBalancesMax];
        held = new long[subBalancesMax];
        subOwners = new int[subBalancesMax];
        touched = new int[subBalancesMax];
        isTouched = new boolean[subBalancesMax];
    }

    /**
     * @return the slot of the tenant's account with that id, otherwise -1. Another tenant's account with
     * the same id is a different account and is never found.
     */
    public int slotOf(final long accountId, final long tenantId)
    {
        return slotByTenantAndId.get(tenantId, accountId);
    }

    /** @return true when an account with {@code subBalances} more sub-balances fits. */
    public boolean hasRoomFor(final int subBalances)
    {
        return accountCount < accountsMax && subBalanceCount + subBalances <= subBalancesMax;
    }

    /** Appends an account; the caller checked {@link #hasRoomFor} and that the id is free. */
    public int add(
        final long accountId, final long tenantId, final int currency, final int subBalances,
        final boolean debitsMustNotExceedCredits, final long overdraftLimitMinor)
    {
        final int slot = accountCount++;
        ids[slot] = accountId;
        tenants[slot] = tenantId;
        currencies[slot] = currency;
        subBases[slot] = subBalanceCount;
        subCounts[slot] = (byte)subBalances;
        constrained[slot] = debitsMustNotExceedCredits;
        overdraftLimits[slot] = overdraftLimitMinor;
        for (int i = 0; i < subBalances; i++)
        {
            posted[subBalanceCount + i] = 0;
            held[subBalanceCount + i] = 0;
            subOwners[subBalanceCount + i] = slot;
        }
        subBalanceCount += subBalances;
        slotByTenantAndId.put(tenantId, accountId, slot);
        undo.record(UndoLog.ACCOUNT_ADDED, slot, 0, 0);
        return slot;
    }

    /** Removes the newest account (atomic batch rollback only). */
    public void removeNewest()
    {
        final int slot = --accountCount;
        slotByTenantAndId.remove(tenants[slot], ids[slot]);
        subBalanceCount -= subCounts[slot];
    }

    // ---------------------------------------------------------------------------------------------
    // Money movement. Every method checks before it mutates: a false return changed nothing.
    // ---------------------------------------------------------------------------------------------

    /** @return true when crediting {@code amount} overflows neither the sub-balance credited nor the account. */
    public boolean canCredit(final int slot, final long amount, final long journalIndex)
    {
        final int sub = subBases[slot] + creditSub(slot, journalIndex);
        return posted[sub] <= Long.MAX_VALUE - amount && postedTotal(slot) <= Long.MAX_VALUE - amount;
    }

    /** Credits the sub-balance chosen by the journal index; the caller checked {@link #canCredit}. */
    public void credit(final int slot, final long amount, final long journalIndex)
    {
        final int sub = subBases[slot] + creditSub(slot, journalIndex);
        saveSub(sub);
        posted[sub] += amount;
    }

    /**
     * @return {@link Funds#OK}, {@link Funds#INSUFFICIENT} or {@link Funds#OVERFLOW} for taking
     * {@code amount} out of available (a debit, or a hold when {@code intoHeld}).
     */
    public int checkDraw(final int slot, final long amount, final boolean intoHeld, final long journalIndex)
    {
        final int base = subBases[slot];
        final int count = subCounts[slot];
        if (!constrained[slot])
        {
            final int sub = base + debitSub(slot, journalIndex);
            if (intoHeld)
            {
                return held[sub] <= Long.MAX_VALUE - amount && heldTotal(slot) <= Long.MAX_VALUE - amount ?
                    Funds.OK : Funds.OVERFLOW;
            }
            return posted[sub] >= Long.MIN_VALUE + amount && postedTotal(slot) >= Long.MIN_VALUE + amount ?
                Funds.OK : Funds.OVERFLOW;
        }
        if (count == 1)
        {
            final long floor = -overdraftLimits[slot];
            final long available = posted[base] - held[base];
            // floor + amount cannot overflow (floor is in [-2^62, 0]); available - amount can, and would wrap.
            if (available < floor + amount)
            {
                return Funds.INSUFFICIENT;
            }
            // With an overdraft, held may pass posted: it must still fit in a long.
            return !intoHeld || held[base] <= Long.MAX_VALUE - amount ? Funds.OK : Funds.OVERFLOW;
        }
        return availableTotal(slot) >= amount ? Funds.OK : Funds.INSUFFICIENT;
    }

    /**
     * Takes {@code amount} out of available: lowers posted (a debit) or raises held (a hold). A
     * constrained account draws from sub-balances in turn, starting at a hashed one, taking from each
     * only what it has available; the caller checked {@link #checkDraw}.
     */
    public void draw(final int slot, final long amount, final boolean intoHeld, final long journalIndex)
    {
        final int base = subBases[slot];
        final int count = subCounts[slot];
        final int start = debitSub(slot, journalIndex);
        if (!constrained[slot] || count == 1)
        {
            final int sub = base + start;
            saveSub(sub);
            if (intoHeld)
            {
                held[sub] += amount;
            }
            else
            {
                posted[sub] -= amount;
            }
            return;
        }
        long remaining = amount;
        for (int i = 0; i < count && remaining > 0; i++)
        {
            final int sub = base + (start + i) % count;
            final long available = posted[sub] - held[sub];
            if (available > 0)
            {
                final long take = Math.min(available, remaining);
                saveSub(sub);
                if (intoHeld)
                {
                    held[sub] += take;
                }
                else
                {
                    posted[sub] -= take;
                }
                remaining -= take;
            }
        }
        if (remaining != 0)
        {
            throw new IllegalStateException("draw exceeded available: checkDraw must pass first");
        }
    }

    /**
     * Releases {@code amount} of held, from the sub-balances holding it, in order. Which sub-balance a
     * release comes from does not matter: every release only raises available, and the account's total
     * held always equals the sum of its live holds.
     */
    public void release(final int slot, final long amount)
    {
        final int base = subBases[slot];
        final int count = subCounts[slot];
        long remaining = amount;
        for (int i = 0; i < count && remaining > 0; i++)
        {
            final int sub = base + i;
            if (held[sub] > 0)
            {
                final long take = Math.min(held[sub], remaining);
                saveSub(sub);
                held[sub] -= take;
                remaining -= take;
            }
        }
        if (remaining != 0)
        {
            throw new IllegalStateException("released more than held on account " + ids[slot]);
        }
    }

    /** Sum of available over sub-balances, saturating at {@code Long.MAX_VALUE}. */
    public long availableTotal(final int slot)
    {
        final int base = subBases[slot];
        final int count = subCounts[slot];
        long total = 0;
        for (int i = 0; i < count; i++)
        {
            final long available = posted[base + i] - held[base + i];
            total = total > 0 && available > Long.MAX_VALUE - total ? Long.MAX_VALUE : total + available;
        }
        return total;
    }

    /**
     * @return total posted of the account. Exact: the checks keep the total inside a long, so the wrapping
     * sum is the true one even when a partial sum (an unconstrained account's mixed signs) would overflow.
     */
    public long postedTotal(final int slot)
    {
        long total = 0;
        for (int i = 0; i < subCounts[slot]; i++)
        {
            total += posted[subBases[slot] + i];
        }
        return total;
    }

    /** @return total held of the account; exact for the same reason as {@link #postedTotal}. */
    public long heldTotal(final int slot)
    {
        long total = 0;
        for (int i = 0; i < subCounts[slot]; i++)
        {
            total += held[subBases[slot] + i];
        }
        return total;
    }

    /** Checks the constraint on every sub-balance of the account: @return true when it holds. */
    public boolean constraintHolds(final int slot)
    {
        final int base = subBases[slot];
        final int count = subCounts[slot];
        for (int i = 0; i < count; i++)
        {
            if (held[base + i] < 0)
            {
                return false;
            }
            if (constrained[slot])
            {
                final long floor = count == 1 ? -overdraftLimits[slot] : 0;
                if (posted[base + i] - held[base + i] < floor)
                {
                    return false;
                }
            }
        }
        return true;
    }

    /** Restores a sub-balance (atomic batch rollback only). */
    public void restoreSub(final int sub, final long postedValue, final long heldValue)
    {
        posted[sub] = postedValue;
        held[sub] = heldValue;
    }

    private void saveSub(final int sub)
    {
        undo.record(UndoLog.SUB_BALANCE, sub, posted[sub], held[sub]);
        if (!isTouched[sub])
        {
            isTouched[sub] = true;
            touched[touchedCount++] = sub;
        }
    }

    /** @return sub-balances changed since {@link #clearTouched()}, each once. */
    public int touchedCount()
    {
        return touchedCount;
    }

    /** @return the global slot of the {@code i}-th changed sub-balance. */
    public int touched(final int i)
    {
        return touched[i];
    }

    /** Forgets which sub-balances changed (start of a command). */
    public void clearTouched()
    {
        for (int i = 0; i < touchedCount; i++)
        {
            isTouched[touched[i]] = false;
        }
        touchedCount = 0;
    }

    /** @return the account slot owning a global sub-balance slot. */
    public int ownerOf(final int subSlot)
    {
        return subOwners[subSlot];
    }

    /** @return the index of a global sub-balance slot within its account. */
    public int subIndexOf(final int subSlot)
    {
        return subSlot - subBases[subOwners[subSlot]];
    }

    private int creditSub(final int slot, final long journalIndex)
    {
        final int count = subCounts[slot];
        return count == 1 ? 0 : (int)Long.remainderUnsigned(StateDigest.mix(journalIndex), count);
    }

    private int debitSub(final int slot, final long journalIndex)
    {
        final int count = subCounts[slot];
        return count == 1 ? 0 : (int)Long.remainderUnsigned(StateDigest.mix(~journalIndex), count);
    }

    // ---------------------------------------------------------------------------------------------
    // Reads (off the hot path they are also used by the gateway through the ledger's query methods).
    // ---------------------------------------------------------------------------------------------

    public int count()
    {
        return accountCount;
    }

    public int subBalanceCount()
    {
        return subBalanceCount;
    }

    public long id(final int slot)
    {
        return ids[slot];
    }

    public long tenant(final int slot)
    {
        return tenants[slot];
    }

    public int currency(final int slot)
    {
        return currencies[slot];
    }

    public int subCount(final int slot)
    {
        return subCounts[slot];
    }

    public boolean isConstrained(final int slot)
    {
        return constrained[slot];
    }

    public long overdraftLimit(final int slot)
    {
        return overdraftLimits[slot];
    }

    /** @return the global slot of sub-balance {@code i} of the account. */
    public int subSlot(final int slot, final int i)
    {
        return subBases[slot] + i;
    }

    public long posted(final int subSlot)
    {
        return posted[subSlot];
    }

    public long held(final int subSlot)
    {
        return held[subSlot];
    }

    /** Folds every account and sub-balance, in creation order, into the digest. */
    public void digest(final StateDigest digest)
    {
        digest.add(accountCount).add(subBalanceCount);
        for (int slot = 0; slot < accountCount; slot++)
        {
            digest.add(ids[slot]).add(tenants[slot]).add(currencies[slot]).add(subCounts[slot])
                .add(constrained[slot] ? 1 : 0).add(overdraftLimits[slot]);
            for (int i = 0; i < subCounts[slot]; i++)
            {
                digest.add(posted[subBases[slot] + i]).add(held[subBases[slot] + i]);
            }
        }
    }

    /** Outcomes of {@link #checkDraw}. */
    public static final class Funds
    {
        public static final int OK = 0;
        public static final int INSUFFICIENT = 1;
        public static final int OVERFLOW = 2;

        private Funds()
        {
        }
    }
}
