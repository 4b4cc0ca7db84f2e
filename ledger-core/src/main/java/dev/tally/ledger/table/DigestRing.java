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
    /** Records let go for room ({@link #makeRoom}): a figure, not part of the state. */
    private long evicted;

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

    /**
     * Makes room for one more record by letting the oldest go when the ring is full, if the cold index already holds it:
     * its {@code indexField} (a journal index) at or below {@code coldWatermark}. What leaves is found there from then on.
     *
     * @return true when one more record fits.
     */
    public boolean makeRoom(final int indexField, final long coldWatermark)
    {
        if (tail - head < capacity)
        {
            return true;
        }
        final int position = headPosition;
        final int offset = position * stride;
        if (ring[offset + indexField] > coldWatermark)
        {
            return false;
        }
        index.remove(ring[offset + DIGEST_HI], ring[offset + DIGEST_LO], position);
        head++;
        headPosition = next(position);
        evicted++;
        return true;
    }

    /**
     * Stops finding the record at {@code position} while it stays in the ring until it expires from the head: for a record
     * its owner counts as gone (a key past its retention) before the head reaches it. A record with the same digest may
     * then be appended; the newer one is what {@link #find} and a {@link #restoreFrom restored} ring find.
     */
    public void unindex(final int position)
    {
        final int offset = position * stride;
        index.remove(ring[offset + DIGEST_HI], ring[offset + DIGEST_LO], position);
    }

    /**
     * Undoes {@link #unindex} (a rolled-back batch): the record at {@code position} is found again, unless it has left the
     * ring since (let go for room), or another record of its digest is found now.
     */
    public void reindex(final int position)
    {
        final int fromHead = position - headPosition + (position < headPosition ? capacity : 0);
        final int offset = position * stride;
        if (fromHead < size() && index.get(ring[offset + DIGEST_HI], ring[offset + DIGEST_LO]) < 0)
        {
            index.put(ring[offset + DIGEST_HI], ring[offset + DIGEST_LO], position);
        }
    }

    /** @return records let go for room since the ring was built (a figure for metrics, not state). */
    public long evicted()
    {
        return evicted;
    }

    /** @return how many records were ever added: a mark to find those added after it ({@link #positionOf}). */
    public long addedCount()
    {
        return tail;
    }

    /** @return the ring position of the record added {@code added}-th ({@code addedCount()} before it was added). */
    public int positionOf(final long added)
    {
        final long ahead = headPosition + (added - head);
        return (int)(ahead % capacity);
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
        return expire(cutoffNs, max, timeField, Long.MAX_VALUE);
    }

    /**
     * Forgets records whose time is at or before {@code cutoffNs}, oldest first, at most {@code max} found ones (an
     * {@link #unindex unindexed} record leaves on the way, uncounted), and only those the cold index already holds
     * ({@code indexField} at or below {@code coldWatermark}): for records that must stay found.
     *
     * @return records forgotten.
     */
    public int expire(final long cutoffNs, final int max, final int indexField, final long coldWatermark)
    {
        int expired = 0;
        while (expired < max && head < tail)
        {
            final int position = headPosition;
            final int offset = position * stride;
            if (ring[offset + timeField] > cutoffNs || ring[offset + indexField] > coldWatermark)
            {
                break;
            }
            // an unindexed record (its owner forgot it already) leaves with the head without counting
            expired += index.remove(ring[offset + DIGEST_HI], ring[offset + DIGEST_LO], position) ? 1 : 0;
            head++;
            headPosition = next(position);
        }
        return expired;
    }

    /** @return records kept now, those {@link #unindex unindexed} included until they leave with the head. */
    public int size()
    {
        return (int)(tail - head);
    }

    /** @return records {@link #find} finds now. */
    public int indexed()
    {
        return index.size();
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
     * Fills this fresh (empty) ring from an image, oldest record at position 0, and rebuilds the index. A ring smaller
     * than the image keeps its newest records: the older ones are in the cold index ({@link dev.tally.ledger.LedgerConfig#decidesLike}).
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
        final int size = RingCopy.copyInNewest(what, image, ring, stride, capacity);
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
