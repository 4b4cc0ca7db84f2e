package dev.tally.persistence.writer;

import org.agrona.BitUtil;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * Limits of the hand-off from the business thread to the PostgreSQL writer, validated once at startup.
 *
 * <p>How they relate (napkin math, checked by {@code WriterConfigTest}): a plain transfer puts about
 * 430 bytes into the ring (two 64-byte entries, two 56-byte balances, a ~160-byte event with its
 * reference, 32 bytes of unit framing). The gateway refuses writes once the writer lags by
 * {@link #lagBoundCommands} commands OR once the ring is half full, whichever comes first; the other
 * half is the margin for what is already past admission (the input ring's slots, a batch of 8,190
 * operations, a hot account's 64 sub-balances per command). With the defaults, 100,000 commands ×
 * 430 B = 43 MB of ordinary transfers sits under the 64 MB half of a 128 MiB ring, so the command bound
 * trips first for them; commands touching many sub-balances are bigger, and for them the byte bound trips
 * first: both bounds are needed. The byte bound also trips first for transfers with metadata (up to
 * 1,024 bytes more, ~1.5 KB each), at ~45,000 of them; the largest atomic batch the HTTP body limit (4 MiB by default)
 * lets through carries about 3,000 such transfers (~4.5 MB of records), well inside the margin.
 *
 * @param ringCapacityBytes   bytes of the single-producer/single-consumer ring (a power of two).
 * @param lagBoundCommands    journal commands the writer may lag behind before the gateway answers 503.
 * @param batchRowsMax        rows (entries, balances, events…) after which a batch is written, at a unit end.
 * @param batchIntervalMs     age of the oldest record in a batch after which it is written.
 * @param ringFullWaitMaxMs   how long the business thread waits for room without the writer making
 *                            progress before it halts (only reached if the gateway ignored the lag bound).
 * @param retryBackoffMinMs   first wait before retrying a batch PostgreSQL refused for a transient reason.
 * @param retryBackoffMaxMs   longest wait between retries (the wait doubles up to it).
 */
public record WriterConfig(
    int ringCapacityBytes,
    long lagBoundCommands,
    int batchRowsMax,
    long batchIntervalMs,
    long ringFullWaitMaxMs,
    long retryBackoffMinMs,
    long retryBackoffMaxMs)
{
    /** Largest ring record: an event with a full reference and the largest metadata. */
    public static final int RECORD_LENGTH_MAX = EffectRecords.EVENT_LENGTH_MAX;
    /** Smallest ring accepted: room for a worst-case unit (a full batch of hot-account captures) twice over. */
    public static final int RING_CAPACITY_MIN_BYTES = 1 << 16;
    /** Largest ring accepted (direct memory). */
    public static final int RING_CAPACITY_MAX_BYTES = 1 << 30;

    public WriterConfig
    {
        if (!BitUtil.isPowerOfTwo(ringCapacityBytes) || ringCapacityBytes < RING_CAPACITY_MIN_BYTES ||
            ringCapacityBytes > RING_CAPACITY_MAX_BYTES)
        {
            throw new IllegalArgumentException("ringCapacityBytes must be a power of two in [" + RING_CAPACITY_MIN_BYTES +
                ", " + RING_CAPACITY_MAX_BYTES + "], was " + ringCapacityBytes);
        }
        // Agrona refuses records longer than an eighth of the ring.
        if (RECORD_LENGTH_MAX > ringCapacityBytes / 8)
        {
            throw new IllegalArgumentException("ringCapacityBytes too small for a " + RECORD_LENGTH_MAX + "-byte record");
        }
        requirePositive("lagBoundCommands", lagBoundCommands);
        requirePositive("batchRowsMax", batchRowsMax);
        requirePositive("batchIntervalMs", batchIntervalMs);
        requirePositive("ringFullWaitMaxMs", ringFullWaitMaxMs);
        requirePositive("retryBackoffMinMs", retryBackoffMinMs);
        if (retryBackoffMaxMs < retryBackoffMinMs)
        {
            throw new IllegalArgumentException("retryBackoffMaxMs (" + retryBackoffMaxMs + ") < retryBackoffMinMs (" +
                retryBackoffMinMs + ")");
        }
    }

    /**
     * Production defaults: a 128 MiB ring, 503 beyond 100,000 commands of lag (1 s at 100 k/s, 10 s at 10 k/s), batches
     * of up to 50,000 rows or 10 ms, retries from 50 ms to 2 s, halt after 10 s without room or progress.
     *
     * <p>50,000 rows (≈ 11,000 plain transfers, ≈ 5 MB of ring): a batch only fills that far while the writer is behind
     * (below that the 10 ms interval closes it), and then a larger batch is cheaper per transfer: more balances
     * coalesce, and the staged balances, in key order, share more index and heap pages. In the writer harness, side by
     * side, 23.4–23.8 µs of PostgreSQL CPU per transfer against 27.0–29.2 µs with 20,000-row batches.
     */
    public static WriterConfig defaults()
    {
        return new WriterConfig(1 << 27, 100_000, 50_000, 10, 10_000, 50, 2_000);
    }

    /** @return a copy with another ring size and lag bound. */
    public WriterConfig withRing(final int ringCapacityBytes, final long lagBoundCommands)
    {
        return new WriterConfig(ringCapacityBytes, lagBoundCommands, batchRowsMax, batchIntervalMs, ringFullWaitMaxMs,
            retryBackoffMinMs, retryBackoffMaxMs);
    }

    /** @return a copy with other batch limits. */
    public WriterConfig withBatch(final int batchRowsMax, final long batchIntervalMs)
    {
        return new WriterConfig(ringCapacityBytes, lagBoundCommands, batchRowsMax, batchIntervalMs, ringFullWaitMaxMs,
            retryBackoffMinMs, retryBackoffMaxMs);
    }

    /** @return a copy with other waits. */
    public WriterConfig withWaits(final long ringFullWaitMaxMs, final long retryBackoffMinMs, final long retryBackoffMaxMs)
    {
        return new WriterConfig(ringCapacityBytes, lagBoundCommands, batchRowsMax, batchIntervalMs, ringFullWaitMaxMs,
            retryBackoffMinMs, retryBackoffMaxMs);
    }

    /** @return bytes of direct memory the ring takes (capacity plus Agrona's trailer). */
    public int ringAllocationBytes()
    {
        return ringCapacityBytes + RingBufferDescriptor.TRAILER_LENGTH;
    }

    /** @return bytes of ring in use above which the gateway should refuse writes: half the ring. */
    public int ringBytesBound()
    {
        return ringCapacityBytes / 2;
    }

    private static void requirePositive(final String name, final long value)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
    }
}
