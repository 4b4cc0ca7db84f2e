package dev.tally.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
    private static final long CLOCK_START_NS = 1_767_225_600_000_000_000L;
    /** Well past Chronicle's first chunk's header and index pages, well inside its 64 MiB chunk. */
    private static final long APPENDED_BYTES = 4L << 20;
    private static final int RECORDS_PER_FORCE = 100;

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
            appendAndForceUntil(journal, APPENDED_BYTES, new ArrayList<>());
            unmappedRss = mappedBytes(unmapping);
        }
        final long mappedRss;
        try (Journal journal = Journal.open(JournalConfig.of(mapped, Durability.SYNC).withUnmapWrittenPages(false)))
        {
            appendAndForceUntil(journal, APPENDED_BYTES, new ArrayList<>());
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
        // 1 MiB chunks (Chronicle's smallest), so that the appends cross from one mapped chunk to the next four times
        final JournalConfig smallChunks = new JournalConfig(unmapping, Durability.SYNC, JournalConfig.TAIL_SCAN_RECORD_COUNT_DEFAULT,
            JournalConfig.BLOCK_SIZE_BYTES_MIN, false, JournalConfig.ZERO_FILL_AHEAD_BYTES_DEFAULT,
            JournalConfig.ASYNC_FORCE_INTERVAL_MS_DEFAULT, true);
        try (Journal journal = Journal.open(smallChunks))
        {
            appendAndForceUntil(journal, 5L << 20, appended);
            assertTrue(journal.unmapsWrittenPages(), "no advice failed, across the chunk boundaries too");
            assertReplaysAll(journal, appended); // the same process, through the mappings it dropped
        }
        try (Journal journal = Journal.open(JournalConfig.of(unmapping, Durability.SYNC)))
        {
            assertReplaysAll(journal, appended); // a new mapping of the same file
        }
    }

    private static void assertReplaysAll(final Journal journal, final List<Command> appended)
    {
        final List<Command> replayed = new ArrayList<>();
        final ReplayResult result = journal.replay(0, command -> replayed.add(new Command().copyFrom(command)));
        assertEquals(ReplayStatus.COMPLETE, result.status());
        assertEquals(appended.size(), replayed.size());
        for (int i = 0; i < appended.size(); i++)
        {
            TestCommands.assertSameCommand(appended.get(i), replayed.get(i));
        }
    }

    /** Appends {@link #RECORDS_PER_FORCE} records per force until {@code bytes} are appended, and keeps a copy of each. */
    private static void appendAndForceUntil(final Journal journal, final long bytes, final List<Command> appended)
    {
        long seed = 0;
        while (journal.appendPosition() < bytes)
        {
            for (int r = 0; r < RECORDS_PER_FORCE; r++, seed++)
            {
                final Command command = TestCommands.mixed(seed);
                journal.stampAndAppend(command, CLOCK_START_NS + seed);
                appended.add(new Command().copyFrom(command));
            }
            journal.endOfBatch();
        }
    }

    /** @return bytes of {@code directory}'s queue files mapped in this process (resident in its page tables). */
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
