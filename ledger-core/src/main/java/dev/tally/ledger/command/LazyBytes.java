package dev.tally.ledger.command;

/**
 * A byte array of a fixed capacity that exists only once something is put in it: a holder that never carries the
 * bytes never pays for them.
 *
 * <p>Why: {@link Command}s are pre-allocated by the ten thousand (the ring's 16,384 slots, each I/O thread's
 * 8,190-command batch scratch) and walked one after another by every stage. A 1 KiB metadata array allocated with
 * each would cost ~25 MiB of heap that most deployments never use, and would sit between consecutive commands,
 * spreading them over five times the memory the stages walk. Allocated on first use instead, the array lives
 * elsewhere and only holders that carry metadata ever get one; once they have it they keep it, so steady state
 * allocates nothing. (The interleaved A/B runs of docs/benchmarks/history/2026-11-30-transfer-metadata-cost.md did not
 * separate the two layouts' throughput from the machine's noise: this is about memory, and locality in principle.)
 */
public final class LazyBytes
{
    private static final byte[] NONE = new byte[0];

    private final int capacity;
    private byte[] bytes = NONE;

    public LazyBytes(final int capacity)
    {
        this.capacity = capacity;
    }

    /** @return the array, allocated at full capacity the first time more than 0 bytes are asked for. */
    public byte[] reserve(final int length)
    {
        if (length > bytes.length)
        {
            if (length > capacity)
            {
                throw new IllegalArgumentException(length + " bytes exceed the capacity of " + capacity);
            }
            bytes = new byte[capacity];
        }
        return bytes;
    }

    /** @return the array as it is: empty until the first {@link #reserve}. */
    public byte[] array()
    {
        return bytes;
    }
}
