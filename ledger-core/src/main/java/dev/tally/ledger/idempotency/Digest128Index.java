package dev.tally.ledger.idempotency;

/**
 * An open-addressing hash index from a 128-bit digest to an {@code int} slot, allocated once.
 *
 * <p>Agrona's maps key on one {@code long}; idempotency keys and references are 128-bit digests, and
 * truncating them to 64 bits would make a collision silently merge two different keys. Linear probing
 * with backward-shift deletion keeps lookups short without tombstones; the table is sized to a load
 * factor of at most 0.5.
 *
 * <p>Memory: 20 bytes per bucket, two buckets per entry: 40 bytes per indexed digest.
 */
public final class Digest128Index
{
    /** Returned by {@link #get} when the digest is absent. */
    public static final int MISSING = -1;

    private final long[] his;
    private final long[] los;
    private final int[] values;
    private final int mask;
    private final int capacity;
    private int size;

    /** @param capacity the most digests this index will ever hold. */
    public Digest128Index(final int capacity)
    {
        this.capacity = capacity;
        final int buckets = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1;
        his = new long[buckets];
        los = new long[buckets];
        values = new int[buckets];
        java.util.Arrays.fill(values, MISSING);
        mask = buckets - 1;
    }

    /** @return the slot stored for the digest, or {@link #MISSING}. */
    public int get(final long hi, final long lo)
    {
        int bucket = bucketOf(hi, lo);
        while (true)
        {
            final int value = values[bucket];
            if (value == MISSING)
            {
                return MISSING;
            }
            if (his[bucket] == hi && los[bucket] == lo)
            {
                return value;
            }
            bucket = (bucket + 1) & mask;
        }
    }

    /**
     * Stores a slot for a digest that must not be present yet.
     *
     * @return false when the index is at capacity (nothing stored).
     */
    public boolean put(final long hi, final long lo, final int value)
    {
        if (value < 0)
        {
            throw new IllegalArgumentException("value must be >= 0");
        }
        if (size >= capacity)
        {
            return false;
        }
        int bucket = bucketOf(hi, lo);
        while (values[bucket] != MISSING)
        {
            if (his[bucket] == hi && los[bucket] == lo)
            {
                throw new IllegalStateException("digest already indexed");
            }
            bucket = (bucket + 1) & mask;
        }
        his[bucket] = hi;
        los[bucket] = lo;
        values[bucket] = value;
        size++;
        return true;
    }

    /** Removes a digest; @return the slot it held, or {@link #MISSING}. */
    public int remove(final long hi, final long lo)
    {
        int bucket = bucketOf(hi, lo);
        while (true)
        {
            final int value = values[bucket];
            if (value == MISSING)
            {
                return MISSING;
            }
            if (his[bucket] == hi && los[bucket] == lo)
            {
                shiftBack(bucket);
                size--;
                return value;
            }
            bucket = (bucket + 1) & mask;
        }
    }

    /** @return digests indexed now. */
    public int size()
    {
        return size;
    }

    /** @return the most digests this index holds. */
    public int capacity()
    {
        return capacity;
    }

    /** Forgets every digest. */
    public void clear()
    {
        java.util.Arrays.fill(values, MISSING);
        size = 0;
    }

    /** Backward-shift deletion: pull later members of the probe run into the hole so lookups stay correct. */
    private void shiftBack(final int removed)
    {
        int hole = removed;
        int bucket = (removed + 1) & mask;
        while (values[bucket] != MISSING)
        {
            final int home = bucketOf(his[bucket], los[bucket]);
            final boolean movable = hole <= bucket ? (home <= hole || home > bucket) : (home <= hole && home > bucket);
            if (movable)
            {
                his[hole] = his[bucket];
                los[hole] = los[bucket];
                values[hole] = values[bucket];
                hole = bucket;
            }
            bucket = (bucket + 1) & mask;
        }
        values[hole] = MISSING;
    }

    private int bucketOf(final long hi, final long lo)
    {
        long h = hi * 0x9E3779B97F4A7C15L ^ lo;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return (int)h & mask;
    }
}
