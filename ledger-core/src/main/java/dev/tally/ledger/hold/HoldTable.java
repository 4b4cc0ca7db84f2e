package dev.tally.ledger.hold;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.batch.UndoLog;
import dev.tally.ledger.image.LongSection;
import org.agrona.collections.Long2LongHashMap;

/**
 * Live holds (reservations): active ones, which expire at their journaled deadline, and unknown ones,
 * which only an explicit capture or void resolves.
 *
 * <p>Slots come from a free stack, so that undoing an atomic batch in reverse order gives every slot
 * back exactly. A slot freed inside an atomic batch is held back from the free stack until the batch
 * ends ({@link #endBatch()}): a rollback rebuilds the removed hold from the slot's fields, so no later
 * operation of the batch may reuse them. Active holds also sit in an indexed binary min-heap ordered by
 * (deadline, journal index) so that a tick finds the expired ones in O(log n) each and a capture removes
 * one in O(log n). Unknown holds sit in one of their own, ordered by journal index (creation order), so
 * that the oldest is at hand for the ledger's statistics ({@link #oldestUnknownTimestampNs}); a hold is in
 * one heap at a time, so both share the positions array.
 *
 * <p>One hold costs 60 bytes of fields, 16 bytes of heaps, free stack and released list, and about 32
 * bytes of index: 108 bytes.
 */
public final class HoldTable
{
    public static final byte FREE = 0;
    public static final byte ACTIVE = 1;
    public static final byte UNKNOWN = 2;
    /**
     * Longs per live hold in a snapshot image: journal index, time, tenant, account, amount, currency,
     * deadline, status.
     */
    public static final int IMAGE_STRIDE = 8;

    private final int capacity;
    private final long[] indexes;
    private final long[] times;
    private final long[] tenants;
    private final long[] accounts;
    private final long[] amounts;
    private final long[] deadlinesNs;
    private final int[] currencies;
    private final byte[] statuses;
    private final int[] heapPositions;
    private final int[] heap;
    private final int[] unknownHeap;
    private final int[] freeSlots;
    private final int[] releasedSlots;
    private final Long2LongHashMap slotByIndex;
    private final UndoLog undo;
    private int heapSize;
    private int freeCount;
    private int releasedCount;
    private int liveCount;
    private int unknownCount;

    /** @param capacity the most live holds, at most {@link LedgerLimits#HOLDS_CAPACITY_MAX}. */
    public HoldTable(final int capacity, final UndoLog undo)
    {
        if (capacity < 1 || capacity > LedgerLimits.HOLDS_CAPACITY_MAX)
        {
            throw new IllegalArgumentException(
                "capacity must be in [1, " + LedgerLimits.HOLDS_CAPACITY_MAX + "], was " + capacity);
        }
        this.capacity = capacity;
        this.undo = undo;
        indexes = new long[capacity];
        times = new long[capacity];
        tenants = new long[capacity];
        accounts = new long[capacity];
        amounts = new long[capacity];
        deadlinesNs = new long[capacity];
        currencies = new int[capacity];
        statuses = new byte[capacity];
        heapPositions = new int[capacity];
        heap = new int[capacity];
        unknownHeap = new int[capacity];
        freeSlots = new int[capacity];
        releasedSlots = new int[capacity];
        for (int i = 0; i < capacity; i++)
        {
            freeSlots[i] = capacity - 1 - i;
        }
        freeCount = capacity;
        slotByIndex = new Long2LongHashMap(Math.max(16, capacity * 2), 0.65f, -1);
    }

    /** @return the slot of the live hold created at {@code journalIndex}, or -1. */
    public int find(final long journalIndex)
    {
        return (int)slotByIndex.get(journalIndex);
    }

    public boolean hasRoom()
    {
        return freeCount > 0;
    }

    /** Creates an active hold; the caller checked {@link #hasRoom}. @return its slot. */
    public int add(
        final long journalIndex, final long timestampNs, final long tenantId, final long accountId, final long amountMinor,
        final int currency, final long deadlineNs)
    {
        final int slot = freeSlots[--freeCount];
        indexes[slot] = journalIndex;
        times[slot] = timestampNs;
        tenants[slot] = tenantId;
        accounts[slot] = accountId;
        amounts[slot] = amountMinor;
        currencies[slot] = currency;
        deadlinesNs[slot] = deadlineNs;
        statuses[slot] = ACTIVE;
        slotByIndex.put(journalIndex, slot);
        heapSize = heapInsert(heap, heapSize, deadlinesNs, slot);
        liveCount++;
        undo.record(UndoLog.HOLD_ADDED, slot, 0, 0);
        return slot;
    }

    /** Ends a hold (captured, voided or expired): it leaves the table. */
    public void remove(final int slot)
    {
        final byte status = statuses[slot];
        undo.record(UndoLog.HOLD_REMOVED, slot, status, 0);
        unlink(slot);
        if (undo.isRecording())
        {
            // A rollback puts this hold back from the slot's fields: keep them until the batch ends.
            releasedSlots[releasedCount++] = slot;
        }
        else
        {
            freeSlots[freeCount++] = slot;
        }
    }

    /** Marks an active hold unknown: it leaves the expiry heap. */
    public void markUnknown(final int slot)
    {
        undo.record(UndoLog.HOLD_STATUS, slot, statuses[slot], 0);
        if (statuses[slot] == ACTIVE)
        {
            heapSize = heapRemove(heap, heapSize, deadlinesNs, slot);
            statuses[slot] = UNKNOWN;
            unknownCount = heapInsert(unknownHeap, unknownCount, indexes, slot);
        }
    }

    /** Undo of {@link #add}: the slot goes back on top of the free stack, where {@code add} took it. */
    public void undoAdd(final int slot)
    {
        unlink(slot);
        freeSlots[freeCount++] = slot;
    }

    /** Undo of {@link #remove}: the slot is the last one released and its fields are intact. */
    public void undoRemove(final int slot, final byte status)
    {
        if (releasedCount == 0 || releasedSlots[releasedCount - 1] != slot)
        {
            throw new IllegalStateException("hold undo out of order");
        }
        releasedCount--;
        link(slot, status);
    }

    /** Makes a filled slot live again with {@code status}: indexed, counted, and on the expiry heap if active. */
    private void link(final int slot, final byte status)
    {
        statuses[slot] = status;
        slotByIndex.put(indexes[slot], slot);
        liveCount++;
        if (status == ACTIVE)
        {
            heapSize = heapInsert(heap, heapSize, deadlinesNs, slot);
        }
        else
        {
            unknownCount = heapInsert(unknownHeap, unknownCount, indexes, slot);
        }
    }

    /** Undo of {@link #markUnknown}. */
    public void undoStatus(final int slot, final byte status)
    {
        if (statuses[slot] == UNKNOWN && status == ACTIVE)
        {
            unknownCount = heapRemove(unknownHeap, unknownCount, indexes, slot);
            statuses[slot] = ACTIVE;
            heapSize = heapInsert(heap, heapSize, deadlinesNs, slot);
        }
    }

    /** End of an atomic batch, kept or rolled back: the slots it freed can be reused. */
    public void endBatch()
    {
        for (int i = 0; i < releasedCount; i++)
        {
            freeSlots[freeCount++] = releasedSlots[i];
        }
        releasedCount = 0;
    }

    /** @return the slot of the active hold with the earliest deadline, or -1 when none is active. */
    public int earliest()
    {
        return heapSize == 0 ? -1 : heap[0];
    }

    /** @return the journaled time the oldest unknown hold was created at, or 0 when no hold is unknown. */
    public long oldestUnknownTimestampNs()
    {
        return unknownCount == 0 ? 0 : times[unknownHeap[0]];
    }

    private void unlink(final int slot)
    {
        if (statuses[slot] == ACTIVE)
        {
            heapSize = heapRemove(heap, heapSize, deadlinesNs, slot);
        }
        else if (statuses[slot] == UNKNOWN)
        {
            unknownCount = heapRemove(unknownHeap, unknownCount, indexes, slot);
        }
        statuses[slot] = FREE;
        slotByIndex.remove(indexes[slot]);
        liveCount--;
    }

    // ---- indexed binary heaps: the active holds on (deadline, journal index), the unknown ones on journal index ----

    /** @return true when {@code a} comes before {@code b} in a heap ordered on {@code key}, then journal index. */
    private boolean before(final long[] key, final int a, final int b)
    {
        return key[a] < key[b] || (key[a] == key[b] && indexes[a] < indexes[b]);
    }

    /** Adds {@code slot} to heap {@code h} of {@code size} entries. @return the new size. */
    private int heapInsert(final int[] h, final int size, final long[] key, final int slot)
    {
        h[size] = slot;
        heapPositions[slot] = size;
        siftUp(h, key, size);
        return size + 1;
    }

    /** Removes {@code slot} from heap {@code h} of {@code size} entries. @return the new size. */
    private int heapRemove(final int[] h, final int size, final long[] key, final int slot)
    {
        final int position = heapPositions[slot];
        final int lastPosition = size - 1;
        final int last = h[lastPosition];
        if (position != lastPosition)
        {
            h[position] = last;
            heapPositions[last] = position;
            siftDown(h, lastPosition, key, position);
            siftUp(h, key, heapPositions[last]);
        }
        return lastPosition;
    }

    private void siftUp(final int[] h, final long[] key, final int start)
    {
        int position = start;
        final int slot = h[position];
        while (position > 0)
        {
            final int parent = (position - 1) >>> 1;
            if (!before(key, slot, h[parent]))
            {
                break;
            }
            h[position] = h[parent];
            heapPositions[h[position]] = position;
            position = parent;
        }
        h[position] = slot;
        heapPositions[slot] = position;
    }

    private void siftDown(final int[] h, final int size, final long[] key, final int start)
    {
        int position = start;
        final int slot = h[position];
        while (true)
        {
            final int left = 2 * position + 1;
            if (left >= size)
            {
                break;
            }
            final int right = left + 1;
            final int child = right < size && before(key, h[right], h[left]) ? right : left;
            if (!before(key, h[child], slot))
            {
                break;
            }
            h[position] = h[child];
            heapPositions[h[position]] = position;
            position = child;
        }
        h[position] = slot;
        heapPositions[slot] = position;
    }

    // ---- reads ----

    public long journalIndex(final int slot)
    {
        return indexes[slot];
    }

    public long timestampNs(final int slot)
    {
        return times[slot];
    }

    public long tenant(final int slot)
    {
        return tenants[slot];
    }

    public long accountId(final int slot)
    {
        return accounts[slot];
    }

    public long amount(final int slot)
    {
        return amounts[slot];
    }

    public int currency(final int slot)
    {
        return currencies[slot];
    }

    public long deadlineNs(final int slot)
    {
        return deadlinesNs[slot];
    }

    public byte status(final int slot)
    {
        return statuses[slot];
    }

    /** @return live holds (active and unknown). */
    public int size()
    {
        return liveCount;
    }

    /** @return holds whose outcome is unknown. */
    public int unknownCount()
    {
        return unknownCount;
    }

    public int capacity()
    {
        return capacity;
    }

    /** Folds live holds into the digest as a sum of per-hold digests: independent of slot layout. */
    public void digest(final StateDigest digest)
    {
        long sum = 0;
        for (int slot = 0; slot < capacity; slot++)
        {
            if (statuses[slot] != FREE)
            {
                sum += holdDigest(indexes[slot], times[slot], tenants[slot], accounts[slot], amounts[slot], currencies[slot],
                    deadlinesNs[slot], statuses[slot]);
            }
        }
        digest.add(liveCount).add(unknownCount).add(sum);
    }

    /** Folds an image's holds exactly as {@link #digest} folds the table they were copied from. */
    public static void digestImage(final LongSection image, final StateDigest digest)
    {
        final long[] v = image.values();
        long sum = 0;
        int unknown = 0;
        for (int offset = 0; offset < image.length(); offset += IMAGE_STRIDE)
        {
            sum += holdDigest(v[offset], v[offset + 1], v[offset + 2], v[offset + 3], v[offset + 4], (int)v[offset + 5],
                v[offset + 6], (byte)v[offset + 7]);
            unknown += v[offset + 7] == UNKNOWN ? 1 : 0;
        }
        digest.add(image.length() / IMAGE_STRIDE).add(unknown).add(sum);
    }

    private static long holdDigest(
        final long index, final long time, final long tenant, final long account, final long amount, final int currency,
        final long deadlineNs, final byte status)
    {
        return new StateDigest().add(index).add(time).add(tenant).add(account).add(amount).add(currency).add(deadlineNs)
            .add(status).value();
    }

    /** @return the longs {@link #copyTo} fills: what {@link dev.tally.ledger.Ledger#reserveImage} sizes the image for. */
    public int imageLength()
    {
        return liveCount * IMAGE_STRIDE;
    }

    /**
     * Copies every live hold, in slot order, into {@code image}: one pass over the slot statuses (a byte
     * per slot) and {@link #IMAGE_STRIDE} longs per live hold.
     */
    public void copyTo(final LongSection image)
    {
        final int length = imageLength();
        final long[] v = image.resize(length);
        int offset = 0;
        for (int slot = 0; slot < capacity && offset < length; slot++)
        {
            if (statuses[slot] != FREE)
            {
                v[offset] = indexes[slot];
                v[offset + 1] = times[slot];
                v[offset + 2] = tenants[slot];
                v[offset + 3] = accounts[slot];
                v[offset + 4] = amounts[slot];
                v[offset + 5] = currencies[slot];
                v[offset + 6] = deadlinesNs[slot];
                v[offset + 7] = statuses[slot];
                offset += IMAGE_STRIDE;
            }
        }
    }

    /**
     * Fills this fresh (empty) table from an image: each hold takes the next free slot, active ones enter
     * the expiry heap. Slots differ from the imaged table's; nothing observable depends on them.
     */
    public void restoreFrom(final LongSection image)
    {
        if (liveCount != 0)
        {
            throw new IllegalStateException("restore needs an empty hold table");
        }
        if (image.length() % IMAGE_STRIDE != 0 || image.length() / IMAGE_STRIDE > capacity)
        {
            throw new IllegalArgumentException("hold image of " + image.length() + " longs does not fit " + capacity + " holds");
        }
        final long[] v = image.values();
        for (int offset = 0; offset < image.length(); offset += IMAGE_STRIDE)
        {
            final byte status = (byte)v[offset + 7];
            if (status != ACTIVE && status != UNKNOWN)
            {
                throw new IllegalArgumentException("hold image: status " + status + " is not live");
            }
            final int slot = freeSlots[--freeCount];
            indexes[slot] = v[offset];
            times[slot] = v[offset + 1];
            tenants[slot] = v[offset + 2];
            accounts[slot] = v[offset + 3];
            amounts[slot] = v[offset + 4];
            currencies[slot] = (int)v[offset + 5];
            deadlinesNs[slot] = v[offset + 6];
            link(slot, status);
        }
    }

    /** Visits live holds in slot order (snapshots). */
    public void forEachLive(final java.util.function.IntConsumer visitor)
    {
        for (int slot = 0; slot < capacity; slot++)
        {
            if (statuses[slot] != FREE)
            {
                visitor.accept(slot);
            }
        }
    }
}
