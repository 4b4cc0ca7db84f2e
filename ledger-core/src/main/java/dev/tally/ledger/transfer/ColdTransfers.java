package dev.tally.ledger.transfer;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.image.LongSection;
import org.agrona.collections.Hashing;
import org.agrona.collections.Long2LongHashMap;

/**
 * Transfers as the reversals of the last moments left them, kept in memory until the cold index holds that new state:
 * memory lets a transfer go once the cold index holds its creation, and a reversal of it whose journal stage read the
 * cold index before the last reversal was filed finds the transfer here, not the cold index's older state. Every
 * reversal touches this table, one record a command, so the records still needed (touched above the cold watermark) are
 * never more than the commands the cold index is behind.
 *
 * <p>A ring of records in the order they were touched ({@value #STRIDE} longs: the cold record of
 * {@link LedgerLimits#COLD_TRANSFER_LONGS} longs, then the journal index of the command that touched it), and a map
 * from a transfer's journal index to its newest record; a record touched again is superseded, not moved, and leaves
 * with its turn. A record leaves once the cold index's watermark has passed the command that wrote it.
 *
 * <p>Business thread only; allocation-free after construction (the map is sized so that it never grows).
 */
public final class ColdTransfers
{
    /** Longs per record: a transfer's cold record, then the journal index of the command that touched it. */
    public static final int STRIDE = LedgerLimits.COLD_TRANSFER_LONGS + 1;
    private static final int TOUCHED_AT = LedgerLimits.COLD_TRANSFER_LONGS;
    private static final long NONE = -1;

    private final int capacity;
    private final long[] ring;
    private final Long2LongHashMap newest;
    private long head;
    private long tail;

    public ColdTransfers(final int capacity)
    {
        this.capacity = capacity;
        ring = new long[capacity * STRIDE];
        newest = new Long2LongHashMap(2 * capacity, Hashing.DEFAULT_LOAD_FACTOR, NONE);
    }

    /** @return the slot of the newest record of the transfer created at {@code journalIndex}, or -1. */
    public int find(final long journalIndex)
    {
        return (int)newest.get(journalIndex);
    }

    /** Copies the cold record of the transfer in {@code slot} into {@code into}. */
    public void copy(final int slot, final long[] into)
    {
        System.arraycopy(ring, slot * STRIDE, into, 0, LedgerLimits.COLD_TRANSFER_LONGS);
    }

    /**
     * Makes room for one more record by letting the oldest go when full: a superseded one at once, the newest of its
     * transfer once the cold index holds what it wrote ({@code coldWatermark} at or past the command that touched it).
     *
     * @return true when one more record fits.
     */
    public boolean makeRoom(final long coldWatermark)
    {
        while (tail - head >= capacity)
        {
            final int slot = slotOf(head);
            final int offset = slot * STRIDE;
            final long journalIndex = TransferTable.recordIndex(ring, offset);
            final boolean live = newest.get(journalIndex) == slot;
            if (live && ring[offset + TOUCHED_AT] > coldWatermark)
            {
                return false;
            }
            if (live)
            {
                newest.remove(journalIndex);
            }
            head++;
        }
        return true;
    }

    /**
     * Keeps {@code record} as the transfer's newest state, written by the command at {@code atIndex}; the caller made room.
     *
     * @return the slot of the record it supersedes, or -1: what {@link #undoTouch} puts back.
     */
    public int touch(final long[] record, final long atIndex)
    {
        final int slot = slotOf(tail);
        final int offset = slot * STRIDE;
        System.arraycopy(record, 0, ring, offset, LedgerLimits.COLD_TRANSFER_LONGS);
        ring[offset + TOUCHED_AT] = atIndex;
        tail++;
        return (int)newest.put(TransferTable.recordIndex(record), slot);
    }

    /** Takes back the newest {@link #touch} (atomic batch rollback only). */
    public void undoTouch(final long journalIndex, final int superseded)
    {
        tail--;
        if (superseded < 0)
        {
            newest.remove(journalIndex);
        }
        else
        {
            newest.put(journalIndex, superseded);
        }
    }

    /** @return records kept, superseded ones included. */
    public int size()
    {
        return (int)(tail - head);
    }

    /** @return longs an image of the records kept needs. */
    public int imageLength()
    {
        return size() * STRIDE;
    }

    private int slotOf(final long sequence)
    {
        return (int)(sequence % capacity);
    }

    /**
     * Folds every record, oldest first, into the digest; nothing at all when there is none, so that a ledger that never
     * reversed a transfer hashes as it did before this table existed (the state hash in a version-2 snapshot's header).
     */
    public void digest(final StateDigest digest)
    {
        if (size() == 0)
        {
            return;
        }
        digest.add(size());
        for (long s = head; s < tail; s++)
        {
            final int offset = slotOf(s) * STRIDE;
            for (int i = 0; i < STRIDE; i++)
            {
                digest.add(ring[offset + i]);
            }
        }
    }

    /** Folds an image's records exactly as {@link #digest} folds the table they were copied from. */
    public static void digestImage(final LongSection image, final StateDigest digest)
    {
        final int size = image.length() / STRIDE;
        if (size == 0)
        {
            return;
        }
        digest.add(size);
        for (int i = 0; i < size * STRIDE; i++)
        {
            digest.add(image.values()[i]);
        }
    }

    /** Copies every record, oldest first, into {@code image}. */
    public void copyTo(final LongSection image)
    {
        final long[] into = image.resize(size() * STRIDE);
        int at = 0;
        for (long s = head; s < tail; s++)
        {
            System.arraycopy(ring, slotOf(s) * STRIDE, into, at, STRIDE);
            at += STRIDE;
        }
    }

    /**
     * Fills this fresh table from an image, oldest record first, and rebuilds the map (a later record of a transfer
     * supersedes an earlier one, as when it was written).
     *
     * @throws IllegalArgumentException when the image holds more records than fit.
     */
    public void restoreFrom(final LongSection image)
    {
        final int size = image.length() / STRIDE;
        if (image.length() % STRIDE != 0 || size > capacity)
        {
            throw new IllegalArgumentException("cold transfer image of " + image.length() + " longs does not fit " + capacity +
                " records of " + STRIDE);
        }
        head = 0;
        tail = 0;
        newest.clear();
        for (int i = 0; i < size; i++)
        {
            final int slot = slotOf(tail);
            System.arraycopy(image.values(), i * STRIDE, ring, slot * STRIDE, STRIDE);
            newest.put(TransferTable.recordIndex(ring, slot * STRIDE), slot);
            tail++;
        }
    }
}
