package dev.tally.journal;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.tally.ledger.command.Command;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Before each force the journal drops this process's mappings of the pages appended since the previous force
 * ({@link WrittenPageUnmapper}), so that the force write-protects no mapped page; and the records in those pages read
 * back intact, in the same process and after a reopen.
 *
 * <p>Measured with the kernel's own count of the queue file's pages mapped in this process: the {@code Rss} of its
 * mappings in {@code /proc/self/smaps}. The same appends without the unmapping leave every appended page mapped, which
 * the test checks too, so that it cannot pass by measuring nothing. {@code Rss} also counts pages mapped read-only,
 * which a force need not write-protect, so the test asks for a fraction, not for nothing. Skipped where {@code smaps}
 * does not exist (not Linux).
 */
class WrittenPageUnmapperTest
{
    private static final Path SMAPS = Path.of("/proc/self/smaps");
    /** Well past Chronicle's first chunk's header and index pages, well inside its 64 MiB chunk. */
    private static final long APPENDED_BYTES = 4L << 20;

    @TempDir
    Path unmapping;
    @TempDir
    Path mapped;

    @Test
    void shouldLeaveOnlyAFewPagesOfTheQueueFileMappedAfterEachForce() throws IOException
    {
        assumeTrue(Files.isReadable(SMAPS), "needs Linux's /proc/self/smaps");
        final long unmappedRss;
        try (Journal journal = Journal.open(JournalConfig.of(unmapping, Durability.SYNC).withUnmapWrittenPages(true)))
        {
            assertTrue(journal.unmapsWrittenPages(), "the unmapper is on, on Linux");
            ForcedAppends.appendAndForceUntil(journal, APPENDED_BYTES, new ArrayList<>());
            unmappedRss = mappedBytes(unmapping);
        }
        final long mappedRss;
        try (Journal journal = Journal.open(JournalConfig.of(mapped, Durability.SYNC).withUnmapWrittenPages(false)))
        {
            ForcedAppends.appendAndForceUntil(journal, APPENDED_BYTES, new ArrayList<>());
            mappedRss = mappedBytes(mapped);
        }
        System.out.printf("queue file mapped after %,d bytes of appends: %,d bytes with unmapping, %,d without%n",
            APPENDED_BYTES, unmappedRss, mappedRss);
        // without it: every page appended (4 MiB and more). With it (11 % measured): the header and index pages Chronicle
        // keeps writing, the page being filled, and the pages a read fault maps read-only around the append position
        // (the kernel's fault-around, 64 KiB), which no force has to write-protect
        // (at least half of them: clean pages may be reclaimed, and so unmapped, under memory pressure)
        assertTrue(mappedRss >= APPENDED_BYTES / 2, "without unmapping, the appended pages stay mapped: " + mappedRss);
        assertTrue(unmappedRss <= mappedRss / 4, "with unmapping, " + unmappedRss + " bytes of the queue file are still " +
            "mapped after appending " + APPENDED_BYTES + " (" + mappedRss + " without it)");
    }

    @Test
    void shouldReadBackEveryRecordWrittenToPagesItUnmappedAcrossChunks()
    {
        final List<Command> appended = new ArrayList<>();
        // 1 MiB chunks, so that the appends cross from one mapped chunk to the next four times
        final JournalConfig smallChunks = ForcedAppends.smallChunks(unmapping, true, false);
        try (Journal journal = Journal.open(smallChunks))
        {
            ForcedAppends.appendAndForceUntil(journal, 5L << 20, appended);
            assertTrue(journal.unmapsWrittenPages(), "no advice failed, across the chunk boundaries too");
            ForcedAppends.assertReplaysAll(journal, appended); // the same process, through the mappings it dropped
        }
        try (Journal journal = Journal.open(JournalConfig.of(unmapping, Durability.SYNC)))
        {
            ForcedAppends.assertReplaysAll(journal, appended); // a new mapping of the same file
        }
    }

    private static long mappedBytes(final Path directory) throws IOException
    {
        final String prefix = directory.toRealPath() + "/";
        long kib = 0;
        boolean inQueueFile = false;
        for (final String line : Files.readAllLines(SMAPS, StandardCharsets.UTF_8))
        {
            if (isMappingHeader(line))
            {
                inQueueFile = line.contains(prefix);
            }
            else if (inQueueFile && line.startsWith("Rss:"))
            {
                kib += Long.parseLong(line.substring("Rss:".length()).replace("kB", "").trim());
            }
        }
        return kib << 10;
    }

    /** A mapping's first line starts with its address range, {@code 7f12a000-7f12b000 rw-s ...}. */
    private static boolean isMappingHeader(final String line)
    {
        final int dash = line.indexOf('-');
        final int space = line.indexOf(' ');
        return dash > 0 && space > dash && line.chars().limit(dash).allMatch(c -> Character.digit(c, 16) >= 0);
    }
}
