package dev.tally.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import net.openhft.chronicle.core.time.SetTimeProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Open forces what it found before reporting it stable: a killed writer leaves its last appends in the page cache
 * only, and what open reports as stable the PostgreSQL writer and the snapshotter take during the replay. Real queue
 * files; the injected force failure ({@link JournalFaults#FORCES_BEFORE_FAILURE_PROPERTY}) shows that a force really runs.
 */
class OpenForceTest
{
    private static final long CLOCK_START_NS = 1_767_225_600_000_000_000L;
    private static final long HOUR_MS = 3_600_000L;

    @TempDir
    Path dir;

    @AfterEach
    void clearInjection()
    {
        System.clearProperty(JournalFaults.FORCES_BEFORE_FAILURE_PROPERTY);
    }

    @Test
    void shouldRefuseToOpenAJournalItCannotForce()
    {
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.ASYNC).withAsyncForceIntervalMs(0)))
        {
            append(journal, 0, 10);   // never forced by this writer: the interval 0 leaves it to the kernel
        }

        System.setProperty(JournalFaults.FORCES_BEFORE_FAILURE_PROPERTY, "0");   // every force fails
        final UncheckedIOException refused = assertThrows(UncheckedIOException.class,
            () -> Journal.open(JournalConfig.of(dir, Durability.ASYNC)).close());
        assertTrue(refused.getMessage().contains("refusing to start") && refused.getMessage().contains(dir.toString()),
            refused.getMessage());

        System.clearProperty(JournalFaults.FORCES_BEFORE_FAILURE_PROPERTY);
        try (Journal reopened = Journal.open(JournalConfig.of(dir, Durability.ASYNC)))
        {
            assertEquals(10, reopened.lastIndex(), "the refused open changed nothing");
            assertEquals(10, reopened.stableIndex());
        }
    }

    @Test
    void shouldOpenAnEmptyJournalWithoutAForce()
    {
        System.setProperty(JournalFaults.FORCES_BEFORE_FAILURE_PROPERTY, "0");
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.SYNC)))
        {
            assertEquals(List.of(), journal.forcedAtOpen(), "nothing found, nothing to force");
            assertEquals(0, journal.stableIndex());
        }
    }

    @Test
    void shouldForceTheNewestFileAndTheOneBeforeItAfterARoll() throws Exception
    {
        final SetTimeProvider rollClock = new SetTimeProvider((System.currentTimeMillis() - 4 * HOUR_MS) * 1_000_000L);
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.ASYNC).withAsyncForceIntervalMs(0), rollClock))
        {
            for (int hour = 0; hour < 3; hour++)
            {
                append(journal, hour * 5, 5);
                rollClock.advanceMillis(HOUR_MS);
            }
        }
        final List<Path> files = cycleFiles();
        assertEquals(3, files.size(), files.toString());

        try (Journal reopened = Journal.open(JournalConfig.of(dir, Durability.SYNC), rollClock))
        {
            // Killed between a roll and its first force, a writer leaves the previous file's tail unforced too.
            assertEquals(files.subList(1, 3), reopened.forcedAtOpen());
            assertEquals(15, reopened.lastIndex());
            assertEquals(15, reopened.forcedIndex());
            assertEquals(15, reopened.stableIndex());
        }
    }

    private List<Path> cycleFiles() throws Exception
    {
        try (Stream<Path> listing = Files.list(dir))
        {
            return listing.filter(p -> p.getFileName().toString().endsWith(".cq4")).sorted().collect(Collectors.toList());
        }
    }

    private static void append(final Journal journal, final int from, final int count)
    {
        for (int i = from; i < from + count; i++)
        {
            journal.stampAndAppend(TestCommands.mixed(i), CLOCK_START_NS + i);
        }
    }
}
