package dev.tally.ledger.transfer;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.image.RingCopy;
import dev.tally.ledger.image.StateImage;

/**
 * Recent transfers, kept in memory for reversal and reads for a window of journaled time; older ones
 * are served from PostgreSQL. A ring in creation order (creation order is time order), keyed by the
 * journal index of the command that created the transfer, which is also what its UUIDv7 id encodes.
 *
 * <p><b>No index.</b> A command creates at most one transfer and journal indexes rise, so the live part
 * of the ring is sorted by journal index and {@link #find} binary-searches it. The trade: every transfer
 * (millions a second) saves an index insert and, at expiry, an index removal, each a cache miss at a
 * random address of a table far bigger than any cache; a lookup (a reversal or a read: rare) costs
 * {@code log2(live transfers)} dependent loads instead of one or two, about 22 for 4,000,000 live
 * transfers, a few microseconds when they all miss, which only the rare command pays.
 *
 * <p>One transfer costs 88 bytes of fields, 8 bytes of reference digest and 64 bytes of reference text:
 * 160 bytes.
 */
public final class TransferTable
{
    private static final int STRIDE = LedgerLimits.TRANSFER_LONGS;
    private static final int INDEX = 0;
    private static final int TIME = 1;
    private static final int TENANT = 2;
    private static final int DEBIT = 3;
    private static final int CREDIT = 4;
    private static final int AMOUNT = 5;
    private static final int REVERSED = 6;
    private static final int REVERSES = 7;
    private static final int REF_HI = 8;
    private static final int PACKED = 9;
    private static final int REVERSES_TIME = 10;
    /** In {@link #PACKED}: currency in bits 0–31, kind 32–39, reference length 40–47, has-metadata bit 48. */
    private static final int REFERENCE_LENGTH_SHIFT = 40;
    private static final long HAS_METADATA_BIT = 1L << 48;

    private final long[] ring;
    private final byte[] references;
    private final long[] referenceLos;
    private final int capacity;
    /** Items ever added and ever removed from the head: their difference is the size. */
    private long head;
    private long tail;
    /** Ring positions of {@link #head} and {@link #tail}, kept alongside so that no step divides. */
    private int headPosition;
    private int tailPosition;

    /** @param capacity the most transfers kept at once, at most {@link LedgerLimits#TRANSFERS_CAPACITY_MAX}. */
    public TransferTable(final int capacity)
    {
        if (capacity < 1 || capacity > LedgerLimits.TRANSFERS_CAPACITY_MAX)
        {
            throw new IllegalArgumentException(
                "capacity must be in [1, " + LedgerLimits.TRANSFERS_CAPACITY_MAX + "], was " + capacity);
        }
        this.capacity = capacity;
        ring = new long[capacity * STRIDE];
        references = new byte[capacity * LedgerLimits.REFERENCE_LENGTH_MAX];
        referenceLos = new long[capacity];
    }

    /**
     * @return the position of the transfer created by the command at {@code journalIndex}, or -1. A binary
     * search of the live ring, which is in journal-index order: at most {@code log2(size) + 1} probes.
     */
    public int find(final long journalIndex)
    {
        long low = head;
        long high = tail - 1;
        while (low <= high)
        {
            final long middle = (low + high) >>> 1;
            final int ahead = headPosition + (int)(middle - head);
            final int position = ahead >= capacity ? ahead - capacity : ahead;
            final long index = ring[position * STRIDE + INDEX];
            if (index < journalIndex)
            {
                low = middle + 1;
            }
            else if (index > journalIndex)
            {
                high = middle - 1;
            }
            else
            {
                return position;
            }
        }
        return -1;
    }

    /** @return true when one more transfer fits. */
    public boolean hasRoom()
    {
        return tail - head < capacity;
    }

    /** Appends a transfer; the caller checked {@link #hasRoom}. @return its position. */
    public int add(
        final long journalIndex, final long timestampNs, final long tenantId, final long debitAccountId,
        final long creditAccountId, final long amountMinor, final int currency, final int kind, final long reversesIndex,
        final long reversesTimestampNs, final long referenceHi, final long referenceLo, final byte[] reference, final int referenceLength,
        final boolean hasMetadata)
    {
        if (tail > head && journalIndex <= ring[previous(tailPosition) * STRIDE + INDEX])
        {
            throw new IllegalStateException("transfers must be added in rising journal-index order: " + journalIndex);
        }
        final int position = tailPosition;
        final int offset = position * STRIDE;
        ring[offset + INDEX] = journalIndex;
        ring[offset + TIME] = timestampNs;
        ring[offset + TENANT] = tenantId;
        ring[offset + DEBIT] = debitAccountId;
        ring[offset + CREDIT] = creditAccountId;
        ring[offset + AMOUNT] = amountMinor;
        ring[offset + REVERSED] = 0;
        ring[offset + REVERSES] = reversesIndex;
        ring[offset + REVERSES_TIME] = reversesTimestampNs;
        ring[offset + REF_HI] = referenceHi;
        ring[offset + PACKED] = (hasMetadata ? HAS_METADATA_BIT : 0) | ((long)referenceLength << REFERENCE_LENGTH_SHIFT) |
            ((long)(kind & 0xFF) << 32) | (currency & 0xFFFF_FFFFL);
        referenceLos[position] = referenceLo;
        if (referenceLength > 0)
        {
            System.arraycopy(reference, 0, references, position * LedgerLimits.REFERENCE_LENGTH_MAX, referenceLength);
        }
        tail++;
        tailPosition = next(position);
        return position;
    }

    /** Removes the newest transfer (atomic batch rollback only). */
    public void removeNewest()
    {
        tail--;
        tailPosition = previous(tailPosition);
    }

    /** Forgets transfers created at or before {@code cutoffNs}, oldest first, at most {@code max}. */
    public int expire(final long cutoffNs, final int max)
    {
        int expired = 0;
        while (expired < max && head < tail)
        {
            final int offset = headPosition * STRIDE;
            if (ring[offset + TIME] > cutoffNs)
            {
                break;
            }
            head++;
            headPosition = next(headPosition);
            expired++;
        }
        return expired;
    }

    /** @return the ring position after {@code position}. */
    private int next(final int position)
    {
        return position + 1 == capacity ? 0 : position + 1;
    }

    /** @return the ring position before {@code position}. */
    private int previous(final int position)
    {
        return position == 0 ? capacity - 1 : position - 1;
    }

    public void setReversed(final int position, final long reversedMinor)
    {
        ring[position * STRIDE + REVERSED] = reversedMinor;
    }

    public long journalIndex(final int position)
    {
        return ring[position * STRIDE + INDEX];
    }

    public long timestampNs(final int position)
    {
        return ring[position * STRIDE + TIME];
    }

    public long tenant(final int position)
    {
        return ring[position * STRIDE + TENANT];
    }

    public long debitAccountId(final int position)
    {
        return ring[position * STRIDE + DEBIT];
    }

    public long creditAccountId(final int position)
    {
        return ring[position * STRIDE + CREDIT];
    }

    public long amount(final int position)
    {
        return ring[position * STRIDE + AMOUNT];
    }

    public long reversed(final int position)
    {
        return ring[position * STRIDE + REVERSED];
    }

    public long reversesIndex(final int position)
    {
        return ring[position * STRIDE + REVERSES];
    }

    /** @return for a reversal, the journaled time of the transfer it reversed (its id derives from it), else 0. */
    public long reversesTimestampNs(final int position)
    {
        return ring[position * STRIDE + REVERSES_TIME];
    }

    public int currency(final int position)
    {
        return (int)ring[position * STRIDE + PACKED];
    }

    public int kind(final int position)
    {
        return (int)(ring[position * STRIDE + PACKED] >>> 32) & 0xFF;
    }

    public int referenceLength(final int position)
    {
        return (int)(ring[position * STRIDE + PACKED] >>> REFERENCE_LENGTH_SHIFT) & 0xFF;
    }

    /**
     * @return whether the transfer was created with metadata. The ledger keeps only this bit: the metadata itself
     * lives in the journal and in PostgreSQL, which a read of the transfer then asks (docs/ARCHITECTURE.md).
     */
    public boolean hasMetadata(final int position)
    {
        return (ring[position * STRIDE + PACKED] & HAS_METADATA_BIT) != 0;
    }

    /** @return the reference text of a transfer (allocates: reads only, off the business thread). */
    public String reference(final int position)
    {
        final int length = referenceLength(position);
        return length == 0 ? null :
            new String(references, position * LedgerLimits.REFERENCE_LENGTH_MAX, length, java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** Copies a transfer's reference bytes into {@code out}; @return their length. Allocation-free. */
    public int copyReference(final int position, final byte[] out)
    {
        final int length = referenceLength(position);
        System.arraycopy(references, position * LedgerLimits.REFERENCE_LENGTH_MAX, out, 0, length);
        return length;
    }

    public int size()
    {
        return (int)(tail - head);
    }

    /** Folds every transfer, oldest first, into the digest. */
    public void digest(final StateDigest digest)
    {
        digest(ring, referenceLos, references, headPosition, size(), capacity, digest);
    }

    /** Folds an image's transfers exactly as {@link #digest} folds the table they were copied from. */
    public static void digestImage(final StateImage image, final StateDigest digest)
    {
        final int size = image.transfers().length() / STRIDE;
        digest(image.transfers().values(), image.transferReferenceLos().values(), image.transferReferenceText().values(), 0, size,
            Math.max(1, size), digest);
    }

    private static void digest(
        final long[] ring, final long[] referenceLos, final byte[] references, final int headPosition, final int size,
        final int capacity, final StateDigest digest)
    {
        digest.add(size);
        for (int n = 0; n < size; n++)
        {
            final int ahead = headPosition + n;
            final int position = ahead >= capacity ? ahead - capacity : ahead;
            final int offset = position * STRIDE;
            for (int i = 0; i < STRIDE; i++)
            {
                digest.add(ring[offset + i]);
            }
            digest.add(referenceLos[position]);
            final int base = position * LedgerLimits.REFERENCE_LENGTH_MAX;
            final int referenceLength = (int)(ring[offset + PACKED] >>> REFERENCE_LENGTH_SHIFT) & 0xFF;
            for (int i = 0; i < referenceLength; i++)
            {
                digest.add(references[base + i]);
            }
        }
    }

    /** Grows the image's sections for the transfers kept now (see {@link dev.tally.ledger.Ledger#reserveImage}). */
    public void reserveImage(final StateImage image)
    {
        final int size = size();
        image.transfers().reserve(size * STRIDE);
        image.transferReferenceLos().reserve(size);
        image.transferReferenceText().reserve(size * LedgerLimits.REFERENCE_LENGTH_MAX);
    }

    /** Copies every transfer kept, oldest first, into the image: its fields, reference digests and texts. */
    public void copyTo(final StateImage image)
    {
        final int size = size();
        RingCopy.copyOut(ring, STRIDE, headPosition, size, capacity, image.transfers().resize(size * STRIDE));
        RingCopy.copyOut(referenceLos, 1, headPosition, size, capacity, image.transferReferenceLos().resize(size));
        RingCopy.copyOut(references, LedgerLimits.REFERENCE_LENGTH_MAX, headPosition, size, capacity,
            image.transferReferenceText().resize(size * LedgerLimits.REFERENCE_LENGTH_MAX));
    }

    /** Fills this fresh (empty) table from an image, oldest transfer at ring position 0. */
    public void restoreFrom(final StateImage image)
    {
        if (tail != head)
        {
            throw new IllegalStateException("restore needs an empty transfer table");
        }
        final int size = RingCopy.entries("transfer", image.transfers().length(), STRIDE, capacity);
        if (image.transferReferenceLos().length() != size ||
            image.transferReferenceText().length() != size * LedgerLimits.REFERENCE_LENGTH_MAX)
        {
            throw new IllegalArgumentException("transfer image: reference sections do not match " + size + " transfers");
        }
        System.arraycopy(image.transfers().values(), 0, ring, 0, size * STRIDE);
        System.arraycopy(image.transferReferenceLos().values(), 0, referenceLos, 0, size);
        System.arraycopy(image.transferReferenceText().values(), 0, references, 0, size * LedgerLimits.REFERENCE_LENGTH_MAX);
        head = 0;
        tail = size;
        headPosition = 0;
        tailPosition = size == capacity ? 0 : size;
    }
}
