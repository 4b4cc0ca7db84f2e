package dev.tally.journal;

import java.nio.file.Path;

import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.core.time.SystemTimeProvider;
import net.openhft.chronicle.core.time.TimeProvider;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.rollcycles.SparseRollCycles;

/**
 * The one place that builds Chronicle queues, so that the analytics switch is set before any Chronicle
 * class initialises and every queue has the same roll cycle.
 *
 * <p><b>Roll cycle: {@code LARGE_HOURLY_SPARSE}</b> (file name {@code yyyyMMdd-HH'LS'.cq4}, one file per
 * UTC hour). Napkin math at the target of 1,000,000 commands/s sustained: 3.6 G records an hour, 86.4 G
 * a day. Chronicle's default ({@code FAST_DAILY}) holds 4.29 G records a day, i.e. 49,710/s sustained:
 * it would overflow within 72 minutes. {@code LARGE_HOURLY_SPARSE} holds 17.18 G records an hour
 * (4.77 M/s sustained, 4.8x the target and above the ~3.5 M/s one appender can write), indexes every
 * 1,024th record (cheaper appends than the dense cycles; a seek scans at most 1,023 records) and rolls
 * hourly, which gives the snapshotter hour-sized files to delete. The daily alternatives with enough
 * room ({@code XLARGE_DAILY}, {@code HUGE_DAILY}) make retention coarse: at the target rate one daily
 * file would be ~17 TB.
 */
final class JournalQueues
{
    static final String ANALYTICS_DISABLE_PROPERTY = "chronicle.analytics.disable";

    static
    {
        System.setProperty(ANALYTICS_DISABLE_PROPERTY, "true");
    }

    /** See the class comment. */
    static final RollCycle ROLL_CYCLE = SparseRollCycles.LARGE_HOURLY_SPARSE;

    private JournalQueues()
    {
    }

    /** Runs the static initialiser (the analytics switch) and nothing else. */
    static void disableAnalytics()
    {
    }

    /**
     * Opens the queue for the single appender. Chronicle's own msync is off ({@link SyncMode#NONE}):
     * {@link Journal#flush()} forces the whole file itself, see {@link FileForcer}.
     */
    static SingleChronicleQueue openForAppend(final JournalConfig config)
    {
        return openForAppend(config, SystemTimeProvider.INSTANCE);
    }

    /** As {@link #openForAppend(JournalConfig)}, with the clock that decides when a cycle rolls (tests). */
    static SingleChronicleQueue openForAppend(final JournalConfig config, final TimeProvider rollClock)
    {
        return SingleChronicleQueueBuilder.binary(config.directory())
            .rollCycle(ROLL_CYCLE)
            .blockSize(config.blockSizeBytes())
            .syncMode(SyncMode.NONE)
            .timeProvider(rollClock)
            .build();
    }

    /**
     * Makes Chronicle's directory listing (the lowest and highest cycle it remembers in the queue's
     * metadata file) match the cycle files present, after files were deleted. A read-only open trusts the
     * listing and fails on a lowest cycle that is gone; only a writable queue may rewrite it.
     */
    static void refreshDirectoryListing(final Path directory)
    {
        try (SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(directory).rollCycle(ROLL_CYCLE).syncMode(SyncMode.NONE).build())
        {
            queue.refreshDirectoryListing();
        }
    }

    /** Opens an existing queue for reading only (tools, verification). */
    static SingleChronicleQueue openReadOnly(final Path directory)
    {
        return SingleChronicleQueueBuilder.binary(directory)
            .rollCycle(ROLL_CYCLE)
            .readOnly(true)
            .build();
    }
}
