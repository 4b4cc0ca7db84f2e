package dev.tally.ledger.table;

/**
 * An open-addressing hash index from a 128-bit digest to an {@code int} value (a slot or ring position
 * of its owner), allocated once, that keeps <em>one {@code long} per bucket</em> and no copy of the digest.
 *
 * <p>Agrona's maps key on one {@code long}; idempotency keys and references are 128-bit digests, and
 * truncating them to 64 bits would make a collision silently merge two different keys. The owner of
 * the values already stores every full digest in a {@code long[]} (a ring entry, an account record), so
 * the index stores only a tag and the value, and confirms a tag match against the owner's array:
 *
 * <pre>
 *   bucket (one long)                          the owner's long[] (given at construction)
 *   63                    30 29           0    digests[base + value * stride + hiOffset] = hi
 *   +-----------------------+--------------+   digests[base + value * stride + loOffset] = lo
 *   | hash bits 0..33 (tag) |  value + 1   |
 *   +-----------------------+--------------+   0 = an empty bucket
 * </pre>
 *
 * <p>Why: a probe reads one cache line (8 buckets), not the three of parallel {@code his}, {@code los},
 * {@code values} arrays. A miss (a fresh key, the common case) never leaves the index: a different tag
 * is a different digest. A hit reads the owner's entry once to confirm, which every caller reads next
 * anyway (the stored result, the account record). Removal names the value too ({@link #remove}), so it
 * matches on the bucket alone, and backward-shift deletion finds each entry's home bucket in its tag
 * (the home bucket is the hash's low bits), so neither ever reads the owner's array.
 *
 * <p>Linear probing with backward-shift deletion keeps lookups short without tombstones; the table is
 * sized to a load factor of at most 0.5.
 *
 * <p>Memory: 8 bytes per bucket, two buckets per entry: 16 bytes per indexed digest (plus the digest
 * itself, which the owner keeps anyway).
 */
public final class Digest128Index
{
    /** Returned by {@link #get} when the digest is absent. */
    public static final int MISSING = -1;
    /** Values are below this (they take 30 bits, as value + 1); capacities are at most this. */
    public static final int CAPACITY_MAX = 1 << 29;

    private static final int VALUE_BITS = 30;
    private static final long VALUE_MASK = (1L << VALUE_BITS) - 1;
    private static final long TAG_MASK = ~VALUE_MASK;
    private static final long EMPTY = 0;

    private final long[] buckets;
    private final long[] digests;
    private final int digestBase;
    private final int digestStride;
    private final int hiOffset;
    private final int loOffset;
    private final int mask;
    private final int capacity;
    private int size;

    /**
     * @param capacity     the most digests this index will ever hold, at most {@link #CAPACITY_MAX}.
     * @param digests      the owner's array holding the digest of every value put here.
     * @param digestBase   where value 0's entry starts in {@code digests}.
     * @param digestStride longs per entry in {@code digests}.
     * @param hiOffset     offset of the digest's high half inside an entry.
     * @param loOffset     offset of the digest's low half inside an entry.
     */
    public Digest128Index(
        final int capacity, final long[] digests, final int digestBase, final int digestStride, final int hiOffset,
        final int loOffset)
    {
        if (capacity < 1 || capacity > CAPACITY_MAX)
        {
            throw new IllegalArgumentException("capacity must be in [1, " + CAPACITY_MAX + "], was " + capacity);
        }
        if (digestStride < 1 || hiOffset < 0 || hiOffset >= digestStride || loOffset < 0 || loOffset >= digestStride ||
            hiOffset == loOffset || digestBase < 0 || (long)digestBase + (long)capacity * digestStride > digests.length)
        {
            throw new IllegalArgumentException("digest layout does not fit the owner's array");
        }
        this.capacity = capacity;
        this.digests = digests;
        this.digestBase = digestBase;
        this.digestStride = digestStride;
        this.hiOffset = hiOffset;
        this.loOffset = loOffset;
        final int bucketCount = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1;
        buckets = new long[bucketCount];
        mask = bucketCount - 1;
    }

    /** @return the value stored for the digest, or {@link #MISSING}. */
    public int get(final long hi, final long lo)
    {
        final long hash = hash(hi, lo);
        final long tag = hash << VALUE_BITS;
        int bucket = (int)hash & mask;
        while (true)
        {
            final long entry = buckets[bucket];
            if (entry == EMPTY)
            {
                return MISSING;
            }
            if ((entry & TAG_MASK) == tag)
            {
                final int value = valueOf(entry);
                if (holds(value, hi, lo))
                {
                    return value;
                }
            }
            bucket = (bucket + 1) & mask;
        }
    }

    /**
     * @return a hint, not an answer: the value in the digest's home bucket when that bucket's tag matches,
     * else {@link #MISSING}; the owner's entry is not read. It lets a caller start the cache misses of a
     * lookup (the bucket, and the owner's entry at the hinted value) well before it needs the answer, so
     * that independent misses overlap; {@link #get} gives the answer.
     */
    public int hint(final long hi, final long lo)
    {
        final long hash = hash(hi, lo);
        final long entry = buckets[(int)hash & mask];
        return (entry & TAG_MASK) == hash << VALUE_BITS ? valueOf(entry) : MISSING;
    }

    /**
     * Stores a value for a digest that must not be present yet. The owner's array must already hold the
     * digest at {@code value}, and no other live entry may have the same value.
     *
     * @return false when the index is at capacity (nothing stored).
     */
    public boolean put(final long hi, final long lo, final int value)
    {
        if (value < 0 || value >= capacity)
        {
            throw new IllegalArgumentException("value must be in [0, " + capacity + "), was " + value);
        }
        if (size >= capacity)
        {
            return false;
        }
        final long hash = hash(hi, lo);
        final long tag = hash << VALUE_BITS;
        int bucket = (int)hash & mask;
        long entry;
        while ((entry = buckets[bucket]) != EMPTY)
        {
            if ((entry & TAG_MASK) == tag && holds(valueOf(entry), hi, lo))
            {
                throw new IllegalStateException("digest already indexed");
            }
            bucket = (bucket + 1) & mask;
        }
        buckets[bucket] = tag | (value + 1L);
        size++;
        return true;
    }

    /**
     * Indexes values {@code [0, count)} of an empty index, reading each digest from the owner's array:
     * how a table restored from a snapshot image rebuilds its index.
     */
    public void rebuild(final int count)
    {
        if (size != 0 || count > capacity)
        {
            throw new IllegalStateException("rebuild needs an empty index and at most " + capacity + " values, got " + count);
        }
        for (int value = 0; value < count; value++)
        {
            final int at = digestBase + value * digestStride;
            put(digests[at + hiOffset], digests[at + loOffset], value);
        }
    }

    /**
     * Removes the digest stored with {@code value}: a match on the bucket alone, so the owner's array is
     * not read (it may already be reused).
     *
     * @return false when that digest is not indexed with that value.
     */
    public boolean remove(final long hi, final long lo, final int value)
    {
        final long hash = hash(hi, lo);
        final long wanted = (hash << VALUE_BITS) | (value + 1L);
        int bucket = (int)hash & mask;
        while (true)
        {
            final long entry = buckets[bucket];
            if (entry == EMPTY)
            {
                return false;
            }
            if (entry == wanted)
            {
                shiftBack(bucket);
                size--;
                return true;
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
        java.util.Arrays.fill(buckets, EMPTY);
        size = 0;
    }

    /** Backward-shift deletion: pull later members of the probe run into the hole so lookups stay correct. */
    private void shiftBack(final int removed)
    {
        int hole = removed;
        int bucket = (removed + 1) & mask;
        long entry;
        while ((entry = buckets[bucket]) != EMPTY)
        {
            final int home = (int)(entry >>> VALUE_BITS) & mask;
            final boolean movable = hole <= bucket ? (home <= hole || home > bucket) : (home <= hole && home > bucket);
            if (movable)
            {
                buckets[hole] = entry;
                hole = bucket;
            }
            bucket = (bucket + 1) & mask;
        }
        buckets[hole] = EMPTY;
    }

    private boolean holds(final int value, final long hi, final long lo)
    {
        final int at = digestBase + value * digestStride;
        return digests[at + hiOffset] == hi && digests[at + loOffset] == lo;
    }

    private static int valueOf(final long entry)
    {
        return (int)(entry & VALUE_MASK) - 1;
    }

    /** @return a 64-bit hash; its low bits pick the home bucket and its low 34 bits are the tag. */
    static long hash(final long hi, final long lo)
    {
        long h = hi * 0x9E3779B97F4A7C15L ^ lo;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return h;
    }
}
