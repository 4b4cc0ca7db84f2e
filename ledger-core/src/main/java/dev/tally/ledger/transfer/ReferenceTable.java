package dev.tally.ledger.transfer;

import dev.tally.ledger.StateDigest;
import dev.tally.ledger.idempotency.Digest128Index;
import dev.tally.ledger.image.LongSection;
import dev.tally.ledger.image.RingCopy;

/**
 * The second line of defence: a transfer reference is unique per tenant. A ring of (reference digest,
 * transfer journal index, time) in insertion order, expiring after its own retention window; the
 * reference digest covers the tenant. PostgreSQL's UNIQUE (tenant, reference) is the backstop for
 * references older than the window.
 *
 * <p>One reference costs 32 bytes of ring plus 16 bytes of index: 48 bytes.
 */
public final class ReferenceTable
{
    private static final int STRIDE = 4;

    private final long[] ring;
    private final int capacity;
    private final Digest128Index index;
    /** Items ever added and ever removed from the head: their difference is the size. */
    private long head;
    private long tail;
    /** Ring positions of {@link #head} and {@link #tail}, kept alongside so that no step divides. */
    private int headPosition;
    private int tailPosition;

    public ReferenceTable(final int capacity)
    {
        this.capacity = capacity;
        ring = new long[capacity * STRIDE];
        index = new Digest128Index(capacity, ring, 0, STRIDE, 0, 1);
    }

    /** @return the journal index of the transfer holding the reference, or -1. */
    public long find(final long referenceHi, final long referenceLo)
    {
        final int position = index.get(referenceHi, referenceLo);
        return position < 0 ? -1 : ring[position * STRIDE + 2];
    }

    /** @return the journaled time of the transfer holding the reference, or -1. */
    public long findTimestampNs(final long referenceHi, final long referenceLo)
    {
        final int position = index.get(referenceHi, referenceLo);
        return position < 0 ? -1 : ring[position * STRIDE + 3];
    }

    public boolean hasRoom()
    {
        return tail - head < capacity;
    }

    /** Records a reference; the caller checked it is absent and that there is room. */
    public void add(final long referenceHi, final long referenceLo, final long transferIndex, final long timestampNs)
    {
        final int position = tailPosition;
        final int offset = position * STRIDE;
        ring[offset] = referenceHi;
        ring[offset + 1] = referenceLo;
        ring[offset + 2] = transferIndex;
        ring[offset + 3] = timestampNs;
        index.put(referenceHi, referenceLo, position);
        tail++;
        tailPosition = next(position);
    }

    /** Removes the newest reference (atomic batch rollback only). */
    public void removeNewest()
    {
        tail--;
        tailPosition = previous(tailPosition);
        final int position = tailPosition;
        final int offset = position * STRIDE;
        index.remove(ring[offset], ring[offset + 1], position);
    }

    /** Forgets references recorded at or before {@code cutoffNs}, oldest first, at most {@code max}. */
    public int expire(final long cutoffNs, final int max)
    {
        int expired = 0;
        while (expired < max && head < tail)
        {
            final int position = headPosition;
            final int offset = position * STRIDE;
            if (ring[offset + 3] > cutoffNs)
            {
                break;
            }
            index.remove(ring[offset], ring[offset + 1], position);
            head++;
            headPosition = next(position);
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

    public int size()
    {
        return (int)(tail - head);
    }

    public void digest(final StateDigest digest)
    {
        digest.addRing(ring, STRIDE, headPosition, size(), capacity);
    }

    /** Folds an image's references exactly as {@link #digest} folds the table they were copied from. */
    public static void digestImage(final LongSection image, final StateDigest digest)
    {
        RingCopy.digest(image, STRIDE, digest);
    }

    /** @return the longs {@link #copyTo} fills: what {@link dev.tally.ledger.Ledger#reserveImage} sizes the image for. */
    public int imageLength()
    {
        return size() * STRIDE;
    }

    /** Copies every reference, oldest first, into {@code image}: at most two array copies. */
    public void copyTo(final LongSection image)
    {
        RingCopy.copyOut(ring, STRIDE, headPosition, size(), capacity, image.resize(imageLength()));
    }

    /** Fills this fresh (empty) table from an image and rebuilds the index. */
    public void restoreFrom(final LongSection image)
    {
        if (tail != head)
        {
            throw new IllegalStateException("restore needs an empty reference table");
        }
        final int size = RingCopy.copyIn("reference", image, ring, STRIDE, capacity);
        index.rebuild(size);
        head = 0;
        tail = size;
        headPosition = 0;
        tailPosition = size == capacity ? 0 : size;
    }
}
