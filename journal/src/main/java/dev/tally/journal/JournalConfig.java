package dev.tally.journal;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How to open a {@link Journal}; every limit is checked here, once, at startup.
 *
 * @param directory               folder of the queue files (created when absent).
 * @param durability              what an append promises, see {@link Durability}.
 * @param tailScanRecordCount     records read back from the end on open to find a torn tail. It must
 *                                cover every record that may not have reached the disk at a crash:
 *                                at least the largest batch between two flushes.
 * @param blockSizeBytes          size of each memory-mapped chunk of a queue file (power of two).
 * @param truncateAfterCorruption when the unreadable tail is followed by records with a good checksum
 *                                (which a plain crash cannot produce), cut them too instead of
 *                                refusing to open. Off by default: an operator's decision.
 * @param zeroFillAheadBytes      how far past the append position the queue file is kept zero-filled, after
 *                                each force, so that appends never fault into a hole (see
 *                                {@code AheadZeroFill}); a multiple of 256 KiB, 0 for off.
 * @param asyncForceIntervalMs    under {@link Durability#ASYNC}, how often the journaler forces what it appended
 *                                (at the end of a batch, once this long has passed since the last force): the
 *                                most a power loss can take back, like PostgreSQL's {@code wal_writer_delay}
 *                                under {@code synchronous_commit = off}; 0 leaves it to the kernel (≈ 30 s).
 * @param unmapWrittenPages       before each force, drop this process's mappings of the pages appended since the
 *                                last one, so that the force write-protects no mapped page (one TLB shoot-down per
 *                                page otherwise; see {@code WrittenPageUnmapper}). Linux only; on by default, and
 *                                off with {@code -D}{@value #UNMAP_WRITTEN_PAGES_PROPERTY}{@code =false}.
 * @param dropForcedPages         after each force, drop from the page cache the pages it wrote back that were unmapped
 *                                before it, so that the journal recycles memory instead of taking new pages (see
 *                                {@code ForcedPageDropper}). Only with {@code unmapWrittenPages}; Linux only; on by
 *                                default, and off with {@code -D}{@value #DROP_FORCED_PAGES_PROPERTY}{@code =false}.
 */
public record JournalConfig(
    Path directory,
    Durability durability,
    int tailScanRecordCount,
    long blockSizeBytes,
    boolean truncateAfterCorruption,
    long zeroFillAheadBytes,
    long asyncForceIntervalMs,
    boolean unmapWrittenPages,
    boolean dropForcedPages)
{
    /** Default tail window: larger than any Disruptor ring Tally configures. */
    public static final int TAIL_SCAN_RECORD_COUNT_DEFAULT = 1 << 16;
    public static final int TAIL_SCAN_RECORD_COUNT_MAX = 1 << 26;
    /** Chronicle's own default chunk: 64 MiB, about 0.35 s of appends at 1 M commands/s. */
    public static final long BLOCK_SIZE_BYTES_DEFAULT = 64L << 20;
    public static final long BLOCK_SIZE_BYTES_MIN = 1L << 20;
    public static final long BLOCK_SIZE_BYTES_MAX = 1L << 30;
    /** 4 MiB: ~0.1 s of appends at the 300,000 transfers/s of the batch benchmark, 16 chunks of 256 KiB. */
    public static final long ZERO_FILL_AHEAD_BYTES_DEFAULT = 4L << 20;
    public static final long ZERO_FILL_AHEAD_BYTES_MAX = 1L << 30;
    /** 200 ms: PostgreSQL's default {@code wal_writer_delay}, the peer's window under {@code synchronous_commit = off}. */
    public static final long ASYNC_FORCE_INTERVAL_MS_DEFAULT = 200;
    public static final long ASYNC_FORCE_INTERVAL_MS_MAX = 60_000;
    /** The JVM property that turns {@link #unmapWrittenPages()} off for {@link #of}'s configurations (A/B runs, operators). */
    public static final String UNMAP_WRITTEN_PAGES_PROPERTY = "tally.journal.unmapWrittenPages";
    /** The JVM property that turns {@link #dropForcedPages()} off for {@link #of}'s configurations (A/B runs, operators). */
    public static final String DROP_FORCED_PAGES_PROPERTY = "tally.journal.dropForcedPages";

    public JournalConfig
    {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(durability, "durability");
        if (tailScanRecordCount < 1 || tailScanRecordCount > TAIL_SCAN_RECORD_COUNT_MAX)
        {
            throw new IllegalArgumentException("tailScanRecordCount must be in 1.." + TAIL_SCAN_RECORD_COUNT_MAX +
                ": " + tailScanRecordCount);
        }
        if (blockSizeBytes < BLOCK_SIZE_BYTES_MIN || blockSizeBytes > BLOCK_SIZE_BYTES_MAX ||
            Long.bitCount(blockSizeBytes) != 1)
        {
            throw new IllegalArgumentException("blockSizeBytes must be a power of two in " + BLOCK_SIZE_BYTES_MIN +
                ".." + BLOCK_SIZE_BYTES_MAX + ": " + blockSizeBytes);
        }
        if (zeroFillAheadBytes < 0 || zeroFillAheadBytes > ZERO_FILL_AHEAD_BYTES_MAX ||
            zeroFillAheadBytes % AheadZeroFill.CHUNK_BYTES != 0)
        {
            throw new IllegalArgumentException("zeroFillAheadBytes must be a multiple of " + AheadZeroFill.CHUNK_BYTES +
                " in 0.." + ZERO_FILL_AHEAD_BYTES_MAX + ": " + zeroFillAheadBytes);
        }
        if (asyncForceIntervalMs < 0 || asyncForceIntervalMs > ASYNC_FORCE_INTERVAL_MS_MAX)
        {
            throw new IllegalArgumentException("asyncForceIntervalMs must be in 0.." + ASYNC_FORCE_INTERVAL_MS_MAX + ": " +
                asyncForceIntervalMs);
        }
    }

    /** @return a configuration with every default. */
    public static JournalConfig of(final Path directory, final Durability durability)
    {
        return new JournalConfig(directory, durability, TAIL_SCAN_RECORD_COUNT_DEFAULT, BLOCK_SIZE_BYTES_DEFAULT, false,
            ZERO_FILL_AHEAD_BYTES_DEFAULT, ASYNC_FORCE_INTERVAL_MS_DEFAULT,
            Boolean.parseBoolean(System.getProperty(UNMAP_WRITTEN_PAGES_PROPERTY, "true")),
            Boolean.parseBoolean(System.getProperty(DROP_FORCED_PAGES_PROPERTY, "true")));
    }

    /** @return a copy that cuts intact records after a corrupt one instead of refusing to open. */
    public JournalConfig withTruncateAfterCorruption(final boolean truncate)
    {
        return new JournalConfig(directory, durability, tailScanRecordCount, blockSizeBytes, truncate, zeroFillAheadBytes,
            asyncForceIntervalMs, unmapWrittenPages, dropForcedPages);
    }

    /** @return a copy with another tail window. */
    public JournalConfig withTailScanRecordCount(final int count)
    {
        return new JournalConfig(directory, durability, count, blockSizeBytes, truncateAfterCorruption, zeroFillAheadBytes,
            asyncForceIntervalMs, unmapWrittenPages, dropForcedPages);
    }

    /** @return a copy that zero-fills {@code bytes} ahead of the appends (0: never). */
    public JournalConfig withZeroFillAheadBytes(final long bytes)
    {
        return new JournalConfig(directory, durability, tailScanRecordCount, blockSizeBytes, truncateAfterCorruption, bytes,
            asyncForceIntervalMs, unmapWrittenPages, dropForcedPages);
    }

    /** @return a copy that, under {@link Durability#ASYNC}, forces at most every {@code ms} (0: never). */
    public JournalConfig withAsyncForceIntervalMs(final long ms)
    {
        return new JournalConfig(directory, durability, tailScanRecordCount, blockSizeBytes, truncateAfterCorruption,
            zeroFillAheadBytes, ms, unmapWrittenPages, dropForcedPages);
    }

    /** @return a copy that does (or does not) unmap the pages appended since the last force before each force. */
    public JournalConfig withUnmapWrittenPages(final boolean unmap)
    {
        return new JournalConfig(directory, durability, tailScanRecordCount, blockSizeBytes, truncateAfterCorruption,
            zeroFillAheadBytes, asyncForceIntervalMs, unmap, dropForcedPages);
    }

    /** @return a copy that does (or does not) drop the pages a force wrote back from the page cache after it. */
    public JournalConfig withDropForcedPages(final boolean drop)
    {
        return new JournalConfig(directory, durability, tailScanRecordCount, blockSizeBytes, truncateAfterCorruption,
            zeroFillAheadBytes, asyncForceIntervalMs, unmapWrittenPages, drop);
    }
}
