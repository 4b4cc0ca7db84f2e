package dev.tally.ledger;

/**
 * A streaming 64-bit digest for {@code stateHash()}: each value is folded in with a strong mixer, so
 * the result depends on every value and on their order. Unordered collections (live holds) are folded
 * as the sum of per-item digests so that their hash does not depend on table layout.
 */
public final class StateDigest
{
    private long state = 0x243F6A8885A308D3L;
    private long count;

    /** Folds one value in. */
    public StateDigest add(final long value)
    {
        state = mix(state ^ mix(value + 0x9E3779B97F4A7C15L * ++count));
        return this;
    }

    /**
     * Folds a ring table: its size, then each entry's {@code stride} longs, oldest first, starting at ring
     * position {@code headPosition} and wrapping at {@code capacity}. A table and its compacted image
     * (head at 0) fold the same values.
     */
    public StateDigest addRing(final long[] ring, final int stride, final int headPosition, final int size, final int capacity)
    {
        add(size);
        for (int n = 0; n < size; n++)
        {
            final int ahead = headPosition + n;
            final int offset = (ahead >= capacity ? ahead - capacity : ahead) * stride;
            for (int i = 0; i < stride; i++)
            {
                add(ring[offset + i]);
            }
        }
        return this;
    }

    /** @return the digest of everything folded in so far. */
    public long value()
    {
        return mix(state ^ count);
    }

    /**
     * The text of a state hash wherever one is printed (the server's log, {@code tally replay}, {@code snapshot},
     * {@code demo}): 16 lower-case hex digits, zero-padded, so that two hashes compare as strings.
     */
    public static String hex(final long stateHash)
    {
        return String.format(java.util.Locale.ROOT, "%016x", stateHash);
    }

    /** A 64-bit finaliser (the SplitMix64 / MurmurHash3 fmix64 family): a bijection with full avalanche. */
    public static long mix(final long value)
    {
        long z = value;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
