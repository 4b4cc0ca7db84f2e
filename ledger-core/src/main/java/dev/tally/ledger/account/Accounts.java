package dev.tally.ledger.account;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.batch.UndoLog;
import dev.tally.ledger.image.LongSection;
import dev.tally.ledger.image.StateImage;
import dev.tally.ledger.table.Digest128Index;

/**
 * Every account and its sub-balances, in one pre-allocated {@code long[]}: a fixed 64-byte record per
 * account slot (creation order), then the (posted, held) pairs of the sub-balances after an account's first.
 *
 * <p>A hot account spreads credits over N sub-balances by a deterministic hash of the journal index;
 * a debit or a hold draws from as many sub-balances as it needs, starting at a hashed one. A
 * constrained account ({@code debitsMustNotExceedCredits}) never lets any sub-balance's available
 * ({@code posted - held}) go below zero, except a single-sub-balance account with an overdraft limit,
 * which may go down to {@code -overdraftLimit}. In memory the sub-balances cost nothing in contention;
 * they exist so that the PostgreSQL read model updates many rows, not one hot row.
 *
 * <p>An account's balance is the sum of its sub-balances, so every credit and debit keeps that sum, not
 * only the sub-balance it changes, inside the 64-bit range; on an unconstrained account, which has no floor,
 * every debit and hold keeps available ({@code posted - held}) inside it too, per sub-balance and in total.
 *
 * <h2>Layout: one cache line per account</h2>
 * A transfer between two ordinary accounts reads and writes everything it needs about each account in
 * one 64-byte line (the record), after one line of the (tenant, id) index: 2 lines per account, where
 * one array per field cost 11.
 * <pre>
 *   cells: | pad (6) | record 0 | record 1 | ... | record accountsMax-1 | pairs: (posted, held) x subBalancesMax |
 *
 *   record (8 longs = 64 bytes, starting on a line boundary, see {@link #RECORD_BASE}):
 *   0 ID         account id (chosen by the client)
 *   1 TENANT     tenant id; (TENANT, ID) is the index key, confirmed here
 *   2 POSTED     posted of sub-balance 0
 *   3 HELD       held of sub-balance 0
 *   4 OVERDRAFT  overdraft limit, minor units
 *   5 SHAPE      currency (bits 0-31) | sub-balance count (bits 32-39) | constrained (bit 40)
 *                | lifecycle status (bits 41-43: debits frozen, credits frozen, closed; 0 = active)
 *                | low-balance alert (bits 44-45: 0 none, else {@link LowBalanceAlert}'s state; threshold beside the cells)
 *                | has metadata (bit 46: the metadata itself is not kept, see {@link #hasMetadata})
 *   6 SUB_BASE   global slot of sub-balance 0; sub-balance i is global slot SUB_BASE + i
 *   7 TOUCHED    bit i: sub-balance i changed in the current command (cleared at the next one)
 * </pre>
 * Sub-balance 0 lives in the record; sub-balance {@code i >= 1} lives in the pair of its global slot,
 * {@code PAIRS_BASE + 2 * (SUB_BASE + i)}, so a hot account's pairs are adjacent (16 of them: 4 lines). The
 * pair of each global slot that is some account's sub-balance 0 holds no balance (16 bytes per account):
 * the price of keeping global sub-balance slots dense and in creation order, as the snapshot and the
 * read methods see them. Its first long keeps the account's creation time (journaled nanoseconds, 0 for an
 * account restored from a snapshot written before it was kept), so the time travels in snapshots with no
 * format change and costs no memory.
 *
 * <p>Memory: 64 bytes per account record + 16 bytes per sub-balance pair + 4 bytes per sub-balance owner
 * + 4-5 bytes per sub-balance of touched list + 16 bytes of (tenant, id) index per account + 8 bytes of low-balance
 * threshold per account (read only for an account whose alert bits say it has one).
 */
public final class Accounts
{
    /** Longs per account record: one 64-byte cache line. */
    static final int RECORD_LONGS = LedgerLimits.ACCOUNT_RECORD_LONGS;
    /**
     * Longs before record 0. A {@code long[]} this large is a humongous object, which G1 places at the
     * start of a region; its elements start 16 bytes (the array header) after that, so 6 longs of padding
     * put every record on a 64-byte line boundary. Were the array placed otherwise, a record would span two
     * lines: slower, never wrong.
     */
    static final int RECORD_BASE = 6;

    private static final int ID = 0;
    private static final int TENANT = 1;
    private static final int POSTED = 2;
    private static final int HELD = 3;
    private static final int OVERDRAFT = 4;
    private static final int SHAPE = 5;
    private static final int SUB_BASE = 6;
    private static final int TOUCHED = 7;

    private static final int COUNT_SHIFT = 32;
    private static final long CONSTRAINED_BIT = 1L << 40;
    private static final int STATUS_SHIFT = 41;
    private static final long STATUS_MASK = (long)Status.ALL << STATUS_SHIFT;
    private static final int ALERT_SHIFT = 44;
    private static final long ALERT_MASK = (long)LowBalanceAlert.STATE_MASK << ALERT_SHIFT;
    private static final int METADATA_SHIFT = 46;
    private static final long METADATA_BIT = 1L << METADATA_SHIFT;

    private final int accountsMax;
    private final int subBalancesMax;
    /** Records, then sub-balance pairs: see the class comment. */
    private final long[] cells;
    private final int pairsBase;
    /** Account ids are chosen by clients, so they are unique per tenant: the index key is (tenant, id). */
    private final Digest128Index slotByTenantAndId;
    /** Account slot of every global sub-balance slot: only {@link #posted(int)} and {@link #held(int)} read it. */
    private final int[] subOwners;
    /** Changed sub-balances, each once, as (account slot, sub-balance index); sized for every sub-balance. */
    private final int[] touchedSlots;
    private final byte[] touchedSubs;
    /** Low-balance threshold of every account slot, minor units; meaningful only while the slot's alert bits are not 0. */
    private final long[] alertThresholds;
    private final UndoLog undo;
    private int touchedCount;
    private int accountCount;
    private int subBalanceCount;

    public Accounts(final int accountsMax, final int subBalancesMax, final UndoLog undo)
    {
        if (accountsMax < 1 || accountsMax > LedgerLimits.ACCOUNTS_CAPACITY_MAX || subBalancesMax < accountsMax ||
            (long)RECORD_BASE + (long)RECORD_LONGS * accountsMax + 2L * subBalancesMax > Integer.MAX_VALUE - 8)
        {
            throw new IllegalArgumentException("accounts (" + accountsMax + ") and sub-balances (" + subBalancesMax +
                ") do not fit one array of records and pairs");
        }
        this.accountsMax = accountsMax;
        this.subBalancesMax = subBalancesMax;
        this.undo = undo;
        pairsBase = RECORD_BASE + RECORD_LONGS * accountsMax;
        cells = new long[pairsBase + 2 * subBalancesMax];
        slotByTenantAndId = new Digest128Index(accountsMax, cells, RECORD_BASE, RECORD_LONGS, TENANT, ID);
        subOwners = new int[subBalancesMax];
        touchedSlots = new int[subBalancesMax];
        touchedSubs = new byte[subBalancesMax];
        alertThresholds = new long[accountsMax];
    }

    /**
     * @return the slot of the tenant's account with that id, otherwise -1. Another tenant's account with
     * the same id is a different account and is never found.
     */
    public int slotOf(final long accountId, final long tenantId)
    {
        return slotByTenantAndId.get(tenantId, accountId);
    }

    /**
     * Starts the two cache misses of {@link #slotOf} (the index bucket, then the record it names) without
     * waiting for them: see {@link Digest128Index#hint}.
     *
     * @return a value read from the record, for the caller to keep so that the loads are not dropped.
     */
    public long preload(final long accountId, final long tenantId)
    {
        final int slot = slotByTenantAndId.hint(tenantId, accountId);
        return slot < 0 ? 0 : cells[record(slot) + ID];
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
        final int record = record(slot);
        final int base = subBalanceCount;
        cells[record + ID] = accountId;
        cells[record + TENANT] = tenantId;
        cells[record + POSTED] = 0;
        cells[record + HELD] = 0;
        cells[record + OVERDRAFT] = overdraftLimitMinor;
        cells[record + SHAPE] = (currency & 0xFFFF_FFFFL) | ((long)subBalances << COUNT_SHIFT) |
            (debitsMustNotExceedCredits ? CONSTRAINED_BIT : 0);
        cells[record + SUB_BASE] = base;
        cells[record + TOUCHED] = 0;
        alertThresholds[slot] = 0;
        for (int i = 0; i < subBalances; i++)
        {
            cells[pairsBase + 2 * (base + i)] = 0;
            cells[pairsBase + 2 * (base + i) + 1] = 0;
            subOwners[base + i] = slot;
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
        final int record = record(slot);
        slotByTenantAndId.remove(cells[record + TENANT], cells[record + ID], slot);
        subBalanceCount -= subCount(slot);
    }

    // ---------------------------------------------------------------------------------------------
    // Money movement. Every method checks before it mutates: a false return changed nothing.
    // ---------------------------------------------------------------------------------------------

    /** @return true when crediting {@code amount} overflows neither the sub-balance credited nor the account. */
    public boolean canCredit(final int slot, final long amount, final long journalIndex)
    {
        final int record = record(slot);
        final int count = countOf(cells[record + SHAPE]);
        final int sub = subOffset(record, creditSub(count, journalIndex));
        return cells[sub] <= Long.MAX_VALUE - amount && (count == 1 || postedTotal(slot) <= Long.MAX_VALUE - amount);
    }

    /** Credits the sub-balance chosen by the journal index; the caller checked {@link #canCredit}. */
    public void credit(final int slot, final long amount, final long journalIndex)
    {
        final int record = record(slot);
        final int i = creditSub(countOf(cells[record + SHAPE]), journalIndex);
        final int sub = subOffset(record, i);
        saveSub(slot, record, i, sub);
        cells[sub] += amount;
    }

    /**
     * @return {@link Funds#OK}, {@link Funds#INSUFFICIENT} or {@link Funds#OVERFLOW} for taking
     * {@code amount} out of available (a debit, or a hold when {@code intoHeld}).
     */
    public int checkDraw(final int slot, final long amount, final boolean intoHeld, final long journalIndex)
    {
        final int record = record(slot);
        final long shape = cells[record + SHAPE];
        final int count = countOf(shape);
        if ((shape & CONSTRAINED_BIT) == 0)
        {
            // No floor, but available (posted - held) must stay a long, of the sub-balance drawn from and of the
            // account, or it wraps (a read shows it as a huge positive): both fall by the amount. That bounds a
            // debit's posted too (held >= 0). Every draw keeps this, and credits and releases only raise
            // available, so the differences below are exact.
            final int sub = subOffset(record, debitSub(count, journalIndex));
            final long floor = Long.MIN_VALUE + amount;
            if (cells[sub] - cells[sub + 1] < floor || (count > 1 && postedTotal(slot) - heldTotal(slot) < floor))
            {
                return Funds.OVERFLOW;
            }
            return !intoHeld || (cells[sub + 1] <= Long.MAX_VALUE - amount && heldTotal(slot) <= Long.MAX_VALUE - amount) ?
                Funds.OK : Funds.OVERFLOW;
        }
        if (count == 1)
        {
            final long floor = -cells[record + OVERDRAFT];
            final long held = cells[record + HELD];
            final long available = cells[record + POSTED] - held;
            // floor + amount cannot overflow (floor is in [-2^62, 0]); available - amount can, and would wrap.
            if (available < floor + amount)
            {
                return Funds.INSUFFICIENT;
            }
            // With an overdraft, held may pass posted: it must still fit in a long.
            return !intoHeld || held <= Long.MAX_VALUE - amount ? Funds.OK : Funds.OVERFLOW;
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
        final int record = record(slot);
        final long shape = cells[record + SHAPE];
        final int count = countOf(shape);
        final int start = debitSub(count, journalIndex);
        final int field = intoHeld ? 1 : 0;
        final long sign = intoHeld ? 1 : -1;
        if ((shape & CONSTRAINED_BIT) == 0 || count == 1)
        {
            final int sub = subOffset(record, start);
            saveSub(slot, record, start, sub);
            cells[sub + field] += sign * amount;
            return;
        }
        long remaining = amount;
        for (int n = 0; n < count && remaining > 0; n++)
        {
            final int i = (start + n) % count;
            final int sub = subOffset(record, i);
            final long available = cells[sub] - cells[sub + 1];
            if (available > 0)
            {
                final long take = Math.min(available, remaining);
                saveSub(slot, record, i, sub);
                cells[sub + field] += sign * take;
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
        final int record = record(slot);
        final int count = countOf(cells[record + SHAPE]);
        long remaining = amount;
        for (int i = 0; i < count && remaining > 0; i++)
        {
            final int sub = subOffset(record, i);
            final long held = cells[sub + 1];
            if (held > 0)
            {
                final long take = Math.min(held, remaining);
                saveSub(slot, record, i, sub);
                cells[sub + 1] = held - take;
                remaining -= take;
            }
        }
        if (remaining != 0)
        {
            throw new IllegalStateException("released more than held on account " + cells[record + ID]);
        }
    }

    /** Sum of available over sub-balances, saturating at {@code Long.MAX_VALUE}. */
    public long availableTotal(final int slot)
    {
        final int record = record(slot);
        final int count = countOf(cells[record + SHAPE]);
        long total = 0;
        for (int i = 0; i < count; i++)
        {
            final int sub = subOffset(record, i);
            final long available = cells[sub] - cells[sub + 1];
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
        return total(slot, 0);
    }

    /** @return total held of the account; exact for the same reason as {@link #postedTotal}. */
    public long heldTotal(final int slot)
    {
        return total(slot, 1);
    }

    private long total(final int slot, final int field)
    {
        final int record = record(slot);
        final int count = countOf(cells[record + SHAPE]);
        long total = cells[record + POSTED + field];
        for (int i = 1; i < count; i++)
        {
            total += cells[subOffset(record, i) + field];
        }
        return total;
    }

    /** Checks the constraint on every sub-balance of the account: @return true when it holds. */
    public boolean constraintHolds(final int slot)
    {
        for (int i = 0; i < subCount(slot); i++)
        {
            if (!subHolds(slot, i))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @return true when sub-balance {@code i} respects its floor: held never negative, and for a
     * constrained account available at least 0 (or {@code -overdraftLimit} on a single-sub-balance account).
     */
    public boolean subHolds(final int slot, final int i)
    {
        final int record = record(slot);
        final long shape = cells[record + SHAPE];
        final int sub = subOffset(record, i);
        final long held = cells[sub + 1];
        if (held < 0)
        {
            return false;
        }
        if ((shape & CONSTRAINED_BIT) == 0)
        {
            return true;
        }
        final long floor = countOf(shape) == 1 ? -cells[record + OVERDRAFT] : 0;
        return cells[sub] - held >= floor;
    }

    /** Restores a sub-balance (atomic batch rollback only); {@code offset} is the undo record's operand. */
    public void restoreSub(final int offset, final long postedValue, final long heldValue)
    {
        cells[offset] = postedValue;
        cells[offset + 1] = heldValue;
    }

    /**
     * Before a sub-balance changes: at its first change in the command, its place in the touched list and its
     * values for the undo log. Once per command is enough (a rollback restores the values from before the
     * command, and each operation of a batch is a command): a capture, which releases and then debits the same
     * sub-balances, needs one record per sub-balance, not two, so an operation needs at most 65 of them.
     */
    private void saveSub(final int slot, final int record, final int i, final int sub)
    {
        final long touched = cells[record + TOUCHED];
        final long bit = 1L << i;
        if ((touched & bit) == 0)
        {
            undo.record(UndoLog.SUB_BALANCE, sub, cells[sub], cells[sub + 1]);
            cells[record + TOUCHED] = touched | bit;
            touchedSlots[touchedCount] = slot;
            touchedSubs[touchedCount++] = (byte)i;
        }
    }

    /** @return sub-balances changed since {@link #clearTouched()}, each once. */
    public int touchedCount()
    {
        return touchedCount;
    }

    /** @return the account slot of the {@code n}-th changed sub-balance. */
    public int touchedSlot(final int n)
    {
        return touchedSlots[n];
    }

    /** @return the index, within its account, of the {@code n}-th changed sub-balance. */
    public int touchedSubIndex(final int n)
    {
        return touchedSubs[n];
    }

    /** Forgets which sub-balances changed (start of a command): only the records already in cache. */
    public void clearTouched()
    {
        for (int n = 0; n < touchedCount; n++)
        {
            cells[record(touchedSlots[n]) + TOUCHED] = 0;
        }
        touchedCount = 0;
    }

    private static int creditSub(final int count, final long journalIndex)
    {
        return count == 1 ? 0 : (int)Long.remainderUnsigned(StateDigest.mix(journalIndex), count);
    }

    private static int debitSub(final int count, final long journalIndex)
    {
        return count == 1 ? 0 : (int)Long.remainderUnsigned(StateDigest.mix(~journalIndex), count);
    }

    private static int record(final int slot)
    {
        return RECORD_BASE + slot * RECORD_LONGS;
    }

    private static int countOf(final long shape)
    {
        return (int)(shape >>> COUNT_SHIFT) & 0xFF;
    }

    /** @return where sub-balance {@code i}'s posted is in {@link #cells}; its held is the next long. */
    private int subOffset(final int record, final int i)
    {
        return i == 0 ? record + POSTED : pairsBase + 2 * ((int)cells[record + SUB_BASE] + i);
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
        return cells[record(slot) + ID];
    }

    public long tenant(final int slot)
    {
        return cells[record(slot) + TENANT];
    }

    public int currency(final int slot)
    {
        return (int)cells[record(slot) + SHAPE];
    }

    public int subCount(final int slot)
    {
        return countOf(cells[record(slot) + SHAPE]);
    }

    public boolean isConstrained(final int slot)
    {
        return (cells[record(slot) + SHAPE] & CONSTRAINED_BIT) != 0;
    }

    public long overdraftLimit(final int slot)
    {
        return cells[record(slot) + OVERDRAFT];
    }

    /** @return the global slot of sub-balance {@code i} of the account. */
    public int subSlot(final int slot, final int i)
    {
        return (int)cells[record(slot) + SUB_BASE] + i;
    }

    /** Keeps the account's creation time (journaled), in the unused pair of its sub-balance 0 (see the class comment). */
    public void created(final int slot, final long timestampNs)
    {
        cells[pairsBase + 2 * subSlot(slot, 0)] = timestampNs;
    }

    /** @return the account's creation time in journaled nanoseconds, or 0 when a snapshot from before it was kept restored it. */
    public long createdNs(final int slot)
    {
        return cells[pairsBase + 2 * subSlot(slot, 0)];
    }

    /** @return posted of a global sub-balance slot. */
    public long posted(final int subSlot)
    {
        final int slot = subOwners[subSlot];
        return subPosted(slot, subSlot - subSlot(slot, 0));
    }

    /** @return held of a global sub-balance slot. */
    public long held(final int subSlot)
    {
        final int slot = subOwners[subSlot];
        return subHeld(slot, subSlot - subSlot(slot, 0));
    }

    /** @return posted of sub-balance {@code i} of the account. */
    public long subPosted(final int slot, final int i)
    {
        return cells[subOffset(record(slot), i)];
    }

    /** @return held of sub-balance {@code i} of the account. */
    public long subHeld(final int slot, final int i)
    {
        return cells[subOffset(record(slot), i) + 1];
    }

    /** Folds every account and sub-balance, in creation order, into the digest. */
    public void digest(final StateDigest digest)
    {
        digest(cells, RECORD_BASE, cells, pairsBase, alertThresholds, accountCount, subBalanceCount, digest);
    }

    /** Folds an image's accounts exactly as {@link #digest} folds the table they were copied from. */
    public static void digestImage(final StateImage image, final StateDigest digest)
    {
        final LongSection records = image.accountRecords();
        final LongSection pairs = image.subBalancePairs();
        digest(records.values(), 0, pairs.values(), 0, image.lowBalanceThresholds().values(), records.length() / RECORD_LONGS,
            pairs.length() / 2, digest);
    }

    /**
     * Records start at {@code records[recordBase]}, pairs at {@code pairs[pairsBase]}: the table's layout or the image's;
     * {@code thresholds[slot]} is read only for an account with a low-balance alert.
     */
    private static void digest(
        final long[] cells, final int recordBase, final long[] pairs, final int pairsBase, final long[] thresholds,
        final int accountCount, final int subBalanceCount, final StateDigest digest)
    {
        digest.add(accountCount).add(subBalanceCount);
        for (int slot = 0; slot < accountCount; slot++)
        {
            final int record = recordBase + slot * RECORD_LONGS;
            final long shape = cells[record + SHAPE];
            final int count = countOf(shape);
            // The status shares the constrained flag's word: 0 while active, so a ledger that never froze or closed an
            // account hashes as it did before accounts had a status.
            // The has-metadata bit and the low-balance alert state join them, each 0 for an account without one, for the same
            // reason; the alert's threshold is folded only while the account has one.
            final int status = (int)((shape & STATUS_MASK) >>> STATUS_SHIFT);
            final int alert = (int)((shape & ALERT_MASK) >>> ALERT_SHIFT);
            final int metadata = (int)((shape & METADATA_BIT) >>> METADATA_SHIFT);
            digest.add(cells[record + ID]).add(cells[record + TENANT]).add((int)shape).add(count)
                .add(((shape & CONSTRAINED_BIT) != 0 ? 1 : 0) | status << 1 | alert << 4 | metadata << 6).add(cells[record + OVERDRAFT]);
            if (alert != 0)
            {
                digest.add(thresholds[slot]);
            }
            digest.add(cells[record + POSTED]).add(cells[record + HELD]);
            final long createdNs = pairs[pairsBase + 2 * (int)cells[record + SUB_BASE]];
            if (createdNs != 0)
            {
                // 0 in a state restored from an image written before the time was kept: it hashes as it did then
                digest.add(createdNs);
            }
            for (int i = 1; i < count; i++)
            {
                final int pair = pairsBase + 2 * ((int)cells[record + SUB_BASE] + i);
                digest.add(pairs[pair]).add(pairs[pair + 1]);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Snapshots: copy the live records and pairs out, and back into a fresh table.
    // ---------------------------------------------------------------------------------------------

    /** Grows the image's sections for the accounts there are now (see {@link dev.tally.ledger.Ledger#reserveImage}). */
    public void reserveImage(final StateImage image)
    {
        image.accountRecords().reserve(accountCount * RECORD_LONGS);
        image.subBalancePairs().reserve(2 * subBalanceCount);
        image.lowBalanceThresholds().reserve(accountCount);
    }

    /** Copies every account record and sub-balance pair into the image: two array copies. */
    public void copyTo(final StateImage image)
    {
        final int recordLongs = accountCount * RECORD_LONGS;
        System.arraycopy(cells, RECORD_BASE, image.accountRecords().resize(recordLongs), 0, recordLongs);
        final int pairLongs = 2 * subBalanceCount;
        System.arraycopy(cells, pairsBase, image.subBalancePairs().resize(pairLongs), 0, pairLongs);
        System.arraycopy(alertThresholds, 0, image.lowBalanceThresholds().resize(accountCount), 0, accountCount);
    }

    /**
     * Fills this fresh (empty) table from an image and rebuilds the (tenant, id) index and the owners of
     * the sub-balance slots.
     *
     * @throws IllegalArgumentException when the image does not fit this table or is inconsistent.
     */
    public void restoreFrom(final StateImage image)
    {
        if (accountCount != 0)
        {
            throw new IllegalStateException("restore needs an empty account table");
        }
        final LongSection records = image.accountRecords();
        final LongSection pairs = image.subBalancePairs();
        final int accounts = records.length() / RECORD_LONGS;
        final int subs = pairs.length() / 2;
        if (records.length() % RECORD_LONGS != 0 || pairs.length() % 2 != 0 || accounts > accountsMax || subs > subBalancesMax)
        {
            throw new IllegalArgumentException("account image (" + records.length() + " record longs, " + pairs.length() +
                " pair longs) does not fit " + accountsMax + " accounts and " + subBalancesMax + " sub-balances");
        }
        final LongSection thresholds = image.lowBalanceThresholds();
        if (thresholds.length() != 0 && thresholds.length() != accounts)
        {
            throw new IllegalArgumentException("account image: " + thresholds.length() + " low-balance thresholds for " + accounts +
                " accounts");
        }
        System.arraycopy(records.values(), 0, cells, RECORD_BASE, records.length());
        System.arraycopy(pairs.values(), 0, cells, pairsBase, pairs.length());
        // An image from before low-balance alerts has no thresholds, and no alert bits in its records.
        System.arraycopy(thresholds.values(), 0, alertThresholds, 0, thresholds.length());
        int nextBase = 0;
        for (int slot = 0; slot < accounts; slot++)
        {
            final int record = record(slot);
            final int count = countOf(cells[record + SHAPE]);
            if (cells[record + SUB_BASE] != nextBase || count < 1 || nextBase + count > subs)
            {
                throw new IllegalArgumentException("account image: slot " + slot + " has sub-balances out of sequence");
            }
            cells[record + TOUCHED] = 0;
            if (thresholds.length() == 0 && (cells[record + SHAPE] & ALERT_MASK) != 0)
            {
                throw new IllegalArgumentException("account image: slot " + slot + " has a low-balance alert but no threshold");
            }
            for (int i = 0; i < count; i++)
            {
                subOwners[nextBase + i] = slot;
            }
            nextBase += count;
        }
        if (nextBase != subs)
        {
            throw new IllegalArgumentException("account image: " + subs + " sub-balances but accounts use " + nextBase);
        }
        slotByTenantAndId.rebuild(accounts);
        accountCount = accounts;
        subBalanceCount = subs;
    }

    // ---------------------------------------------------------------------------------------------
    // Lifecycle status: bits of SHAPE, so a status travels in snapshots and the state hash with no format change.
    // ---------------------------------------------------------------------------------------------

    /** @return the account's {@link Status} bits: 0 while active. */
    public int status(final int slot)
    {
        return (int)((cells[record(slot) + SHAPE] & STATUS_MASK) >>> STATUS_SHIFT);
    }

    /**
     * @return {@link Status#CLOSED} or {@link Status#DEBITS_FROZEN} when the account refuses a debit or a hold (closed
     * wins), otherwise 0. One load of the record the transfer reads anyway.
     */
    public int refusesDebit(final int slot)
    {
        final int status = (int)(cells[record(slot) + SHAPE] >>> STATUS_SHIFT) & Status.ALL;
        return (status & Status.CLOSED) != 0 ? Status.CLOSED : status & Status.DEBITS_FROZEN;
    }

    /** @return {@link Status#CLOSED} or {@link Status#CREDITS_FROZEN} when the account refuses a credit, otherwise 0. */
    public int refusesCredit(final int slot)
    {
        final int status = (int)(cells[record(slot) + SHAPE] >>> STATUS_SHIFT) & Status.ALL;
        return (status & Status.CLOSED) != 0 ? Status.CLOSED : status & Status.CREDITS_FROZEN;
    }

    /** Sets the account's {@link Status} bits, keeping the old ones in the undo log (an atomic batch may roll back). */
    public void setStatus(final int slot, final int status)
    {
        undo.record(UndoLog.ACCOUNT_STATUS, slot, status(slot), 0);
        restoreStatus(slot, status);
    }

    /** Sets the status bits without an undo record: rollback of {@link #setStatus}. */
    public void restoreStatus(final int slot, final int status)
    {
        final int record = record(slot);
        cells[record + SHAPE] = (cells[record + SHAPE] & ~STATUS_MASK) | ((long)(status & Status.ALL) << STATUS_SHIFT);
    }

    /** @return true when every sub-balance has zero posted and zero held (so the account has no live hold either). */
    public boolean isEmpty(final int slot)
    {
        final int record = record(slot);
        final int count = countOf(cells[record + SHAPE]);
        for (int i = 0; i < count; i++)
        {
            final int sub = subOffset(record, i);
            if (cells[sub] != 0 || cells[sub + 1] != 0)
            {
                return false;
            }
        }
        return true;
    }

    // ---------------------------------------------------------------------------------------------
    // Metadata: one bit of SHAPE. The metadata (up to 1 KiB of canonical JSON) is not kept: the journal and PostgreSQL
    // hold it, and a read of an account with the bit set takes it from the read model.
    // ---------------------------------------------------------------------------------------------

    /** @return true when the account has metadata (set at creation or by its last metadata update). */
    public boolean hasMetadata(final int slot)
    {
        return (cells[record(slot) + SHAPE] & METADATA_BIT) != 0;
    }

    /** Sets the has-metadata bit, keeping the old one in the undo log (an atomic batch may roll back). */
    public void setHasMetadata(final int slot, final boolean hasMetadata)
    {
        undo.record(UndoLog.ACCOUNT_METADATA, slot, hasMetadata(slot) ? 1 : 0, 0);
        restoreHasMetadata(slot, hasMetadata);
    }

    /** Sets the has-metadata bit without an undo record: at creation (undone with the account), or rollback of {@link #setHasMetadata}. */
    public void restoreHasMetadata(final int slot, final boolean hasMetadata)
    {
        final int record = record(slot);
        cells[record + SHAPE] = (cells[record + SHAPE] & ~METADATA_BIT) | (hasMetadata ? METADATA_BIT : 0);
    }

    // ---------------------------------------------------------------------------------------------
    // Low-balance alert: its state in bits of SHAPE (a test of a word the transfer path reads anyway), its threshold in
    // a side array read only when those bits are not 0.
    // ---------------------------------------------------------------------------------------------

    /** @return true when the account has a low-balance threshold: one test of the record's SHAPE word. */
    public boolean hasLowBalanceAlert(final int slot)
    {
        return (cells[record(slot) + SHAPE] & ALERT_MASK) != 0;
    }

    /** @return the account's {@link LowBalanceAlert} state: {@link LowBalanceAlert#NONE} without a threshold. */
    public int lowBalanceAlertState(final int slot)
    {
        return (int)((cells[record(slot) + SHAPE] & ALERT_MASK) >>> ALERT_SHIFT);
    }

    /** @return the account's low-balance threshold, minor units; 0 without one. */
    public long lowBalanceThreshold(final int slot)
    {
        return alertThresholds[slot];
    }

    /**
     * @return true when this is the first sub-balance of the account that the current command changed, in sub-balance
     * order: so that a walk over the touched list visits each account once.
     */
    public boolean isFirstTouched(final int slot, final int subIndex)
    {
        return Long.numberOfTrailingZeros(cells[record(slot) + TOUCHED]) == subIndex;
    }

    /**
     * Sets the account's alert state and threshold ({@link LowBalanceAlert#NONE} and 0 remove it), keeping the old ones
     * in the undo log (an atomic batch may roll back).
     */
    public void setLowBalanceAlert(final int slot, final int state, final long thresholdMinor)
    {
        undo.record(UndoLog.LOW_BALANCE_ALERT, slot, lowBalanceAlertState(slot), alertThresholds[slot]);
        restoreLowBalanceAlert(slot, state, thresholdMinor);
    }

    /** Sets the alert state and threshold without an undo record: rollback of {@link #setLowBalanceAlert}. */
    public void restoreLowBalanceAlert(final int slot, final int state, final long thresholdMinor)
    {
        final int record = record(slot);
        cells[record + SHAPE] = (cells[record + SHAPE] & ~ALERT_MASK) | ((long)(state & LowBalanceAlert.STATE_MASK) << ALERT_SHIFT);
        alertThresholds[slot] = thresholdMinor;
    }

    /** The lifecycle status bits of an account; 0 is active. */
    public static final class Status
    {
        /** Debits, holds and captures from the account are refused. */
        public static final int DEBITS_FROZEN = 1;
        /** Credits to the account are refused (set only with {@link #DEBITS_FROZEN}). */
        public static final int CREDITS_FROZEN = 2;
        /** Nothing moves or reserves money on the account, for good; set alone. */
        public static final int CLOSED = 4;
        /** Every status bit. */
        public static final int ALL = 7;

        private Status()
        {
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
