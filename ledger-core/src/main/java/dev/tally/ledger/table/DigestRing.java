package dev.tally.ledger.table;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.image.LongSection;
import dev.tally.ledger.image.RingCopy;

/**
 * A ring of fixed-size records in insertion (= journaled time) order, found by a 128-bit digest and
 * expired from the head once older than a cut-off: the shape of both the idempotency keys and the
 * transfer references. A record is {@code stride} longs of {@link #ring()}: the digest in its first two,
 * its time at {@code timeField}, the owner's fields in the rest.
 *
 * <p>Single-threaded (the business thread), allocation-free after construction.
 */
public final class DigestRing
{
    private static final int DIGEST_HI = 0;
    private static final int DIGEST_LO = 1;

    private final long[] ring;
    private final int stride;
    private final int timeField;
    private final int capacity;
    private final Digest128Index index;
    /** Records ever added and ever removed from the head: their difference is the size. */
    private long head;
    private long tail;
    /** Ring positions of {@link #head} and {@link #tail}, kept alongside so that no step divides. */
    private int headPosition;
    private int tailPosition;

    /**
     * @param capacity  the most records kept at once, at most {@link #capacityMax capacityMax(stride)}.
     * @param stride    longs per record, the digest's two included.
     * @param timeField the record's field holding the time {@link #expire} compares.
     */
    public DigestRing(final int capacity, final int stride, final int timeField)
    {
        if (capacity < 1 || capacity > capacityMax(stride))
        {
            throw new IllegalArgumentException("capacity must be in [1, " + capacityMax(stride) + "] for records of " + stride +
                " longs, was " + capacity);
        }
        this.capacity = capacity;
        this.stride = stride;
        this.timeField = timeField;
        ring = new long[capacity * stride];
        index = new Digest128Index(capacity, ring, 0, stride, DIGEST_HI, DIGEST_LO);
    }

    /**
     * @return the most records of {@code stride} longs a ring holds: its records fill one {@code long[]} (so that
     * every offset {@code position * stride} is an {@code int}), and its index addresses at most
     * {@link Digest128Index#CAPACITY_MAX} of them.
     */
    public static int capacityMax(final int stride)
    {
        return Math.min(LedgerLimits.ARRAY_LENGTH_MAX / stride, Digest128Index.CAPACITY_MAX);
    }

    /** @return the records: position {@code p}'s fields start at {@code p * stride}. */
    public long[] ring()
    {
        return ring;
    }

    /** @return the position of the record with this digest, or -1. */
    public int find(final long digestHi, final long digestLo)
    {
        return index.get(digestHi, digestLo);
    }

    /** Starts the cache misses of {@link #find} without waiting for them: see {@link Digest128Index#hint}. */
    public int hint(final long digestHi, final long digestLo)
    {
        return index.hint(digestHi, digestLo);
    }

    /** @return true when one more record fits. */
    public boolean hasRoom()
    {
        return tail - head < capacity;
    }

    /**
     * Adds a record with this digest at the tail; the caller checked {@link #find} (absent) and
     * {@link #hasRoom}, and writes the record's other fields at the position returned.
     */
    public int append(final long digestHi, final long digestLo)
    {
        final int position = tailPosition;
        final int offset = position * stride;
        ring[offset + DIGEST_HI] = digestHi;   // before the index: it keeps no copy of the digest
        ring[offset + DIGEST_LO] = digestLo;
        if (!index.put(digestHi, digestLo, position))
        {
            throw new IllegalStateException("digest index full while the ring had room");
        }
        tail++;
        tailPosition = next(position);
        return position;
    }

    /** Removes the newest record (atomic batch rollback only). */
    public void removeNewest()
    {
        tail--;
        tailPosition = previous(tailPosition);
        final int offset = tailPosition * stride;
        index.remove(ring[offset + DIGEST_HI], ring[offset + DIGEST_LO], tailPosition);
    }

    /**
     * Forgets records whose time is at or before {@code cutoffNs}, oldest first, at most {@code max}.
     *
     * @return records forgotten.
     */
    public int expire(final long cutoffNs, final int max)
    {
        int expired = 0;
        while (expired < max && head < tail)
        {
            final int position = headPosition;
            final int offset = position * stride;
            if (ring[offset + timeField] > cutoffNs)
            {
                break;
            }
            index.remove(ring[offset + DIGEST_HI], ring[offset + DIGEST_LO], position);
            head++;
            headPosition = next(position);
            expired++;
        }
        return expired;
    }

    /** @return records kept now. */
    public int size()
    {
        return (int)(tail - head);
    }

    /** @return the most records kept at once. */
    public int capacity()
    {
        return capacity;
    }

    /** Folds every record, oldest first, into the digest. */
    public void digest(final StateDigest digest)
    {
        digest.addRing(ring, stride, headPosition, size(), capacity);
    }

    /** @return the longs {@link #copyTo} fills: what {@link dev.tally.ledger.Ledger#reserveImage} sizes the image for. */
    public int imageLength()
    {
        return size() * stride;
    }

    /** Copies every record, oldest first, into {@code image}: at most two array copies. */
    public void copyTo(final LongSection image)
    {
        RingCopy.copyOut(ring, stride, headPosition, size(), capacity, image.resize(imageLength()));
    }

    /**
     * Fills this fresh (empty) ring from an image, oldest record at position 0, and rebuilds the index.
     *
     * @param what names the table in the errors.
     * @throws IllegalArgumentException when the image does not fit this ring.
     */
    public void restoreFrom(final String what, final LongSection image)
    {
        if (tail != head)
        {
            throw new IllegalStateException("restore needs an empty " + what + " table");
        }
        final int size = RingCopy.copyIn(what, image, ring, stride, capacity);
        index.rebuild(size);
        head = 0;
        tail = size;
        headPosition = 0;
        tailPosition = size == capacity ? 0 : size;
    }

    private int next(final int position)
    {
        return position + 1 == capacity ? 0 : position + 1;
    }

    private int previous(final int position)
    {
        return position == 0 ? capacity - 1 : position - 1;
    }
}
