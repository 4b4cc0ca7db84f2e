package dev.tally.journal;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A force writes back the pages appended since the previous force, not whole zero-filled chunks.
 *
 * <p>Why this can go wrong: on a kernel whose file system caches files in large folios (ext4 from Linux
 * 6.16) a 256 KiB write of zeros makes one 256 KiB folio, and the appender's first store into a page of
 * it after a force marks the whole folio dirty, so every force wrote 256 KiB back (see
 * {@link AheadZeroFill}). The first megabytes of a queue file do not show it: Chronicle's first faults
 * map them before any fill. So the test appends well past them (16 MiB) with the fill on, then appends
 * and forces in the region the fill created.
 *
 * <p>Measured with the kernel's accounting of this thread's dirtied bytes ({@code write_bytes} of
 * {@code /proc/thread-self/io}, counted when a page or folio is dirtied). Skipped where that file does not
 * exist (not Linux); passes trivially on kernels without large folios.
 */
class ForceWriteBackTest
{
    private static final Path THREAD_IO = Path.of("/proc/thread-self/io");
    private static final long CLOCK_START_NS = 1_767_225_600_000_000_000L;
    private static final long FILL_BYTES = 16L << 20;
    private static final int FORCES = 200;

    @TempDir
    Path dir;

    @Test
    void shouldWriteBackOnlyThePagesAppendedSinceTheLastForce() throws IOException
    {
        assumeTrue(Files.isReadable(THREAD_IO), "needs Linux's per-thread I/O accounting");
        final JournalConfig filling = JournalConfig.of(dir, Durability.SYNC).withZeroFillAheadBytes(4L << 20);
        long seed = 0;
        try (Journal journal = Journal.open(filling))
        {
            while (journal.appendPosition() < FILL_BYTES)
            {
                appendAndForce(journal, seed, 100);
                seed += 100;
            }
        }
        // measure without the fill's own writes: the 4 MiB ahead are zero-filled already
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.SYNC).withZeroFillAheadBytes(0)))
        {
            appendAndForce(journal, seed, 5); // the reopened file's mapping and first faults
            seed += 5;
            final long startPosition = journal.appendPosition();
            final long startDirtied = dirtiedBytes();
            for (int i = 0; i < FORCES; i++)
            {
                appendAndForce(journal, seed, 5);
                seed += 5;
            }
            final long dirtiedPerForce = (dirtiedBytes() - startDirtied) / FORCES;
            final long appendedPerForce = (journal.appendPosition() - startPosition) / FORCES;
            // ~1 KiB of records per force dirties its page or two and Chronicle's header and index pages:
            // ~10 KiB measured; 256 KiB and more when a force wrote a whole zero-filled chunk back
            assertTrue(startPosition > FILL_BYTES && dirtiedPerForce <= 32 << 10,
                "each force of " + appendedPerForce + " bytes appended at " + startPosition + " dirtied " +
                    dirtiedPerForce + " bytes");
        }
    }

    private static void appendAndForce(final Journal journal, final long seed, final int records)
    {
        for (int r = 0; r < records; r++)
        {
            journal.stampAndAppend(TestCommands.mixed(seed + r), CLOCK_START_NS + seed + r);
        }
        journal.endOfBatch();
    }

    private static long dirtiedBytes() throws IOException
    {
        for (final String line : Files.readAllLines(THREAD_IO, StandardCharsets.US_ASCII))
        {
            if (line.startsWith("write_bytes:"))
            {
                return Long.parseLong(line.substring("write_bytes:".length()).trim());
            }
        }
        throw new IllegalStateException("no write_bytes in " + THREAD_IO);
    }
}
