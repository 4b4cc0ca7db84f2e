package dev.tally.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import dev.tally.ledger.command.Command;
import jnr.ffi.LibraryLoader;
import jnr.ffi.annotations.Out;
import net.openhft.chronicle.core.OS;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After each force the journal drops from the page cache the pages that force wrote back ({@link ForcedPageDropper}), so
 * that an append-only file does not keep taking new memory; and the records in those pages read back intact, from the
 * disk, in the same process and after a reopen, across chunk boundaries.
 *
 * <p>Measured with the kernel's own answer: {@code mincore(2)} over a fresh read-only mapping of the queue file says which
 * of its pages are in the page cache. The same appends without the dropping leave every appended page cached, which the
 * test checks too, so that it cannot pass by measuring nothing. Linux only (skipped elsewhere).
 */
class ForcedPageDropperTest
{
    /** Well past Chronicle's first chunk's header and index pages, well inside its 64 MiB chunk. */
    private static final long APPENDED_BYTES = 4L << 20;
    private static final long PAGE_BYTES = 4096;

    @TempDir
    Path dropping;
    @TempDir
    Path keeping;

    /** What the test needs of the C library to ask the page cache. */
    public interface Residency
    {
        int mincore(long address, long length, @Out byte[] vector);
    }

    @Test
    void shouldLeaveOnlyAFewOfTheForcedPagesInThePageCache() throws IOException
    {
        assumeTrue(OS.isLinux() && OS.pageSize() == PAGE_BYTES, "Linux with 4 KiB pages");
        final Residency libc = LibraryLoader.create(Residency.class).load("c");
        final long droppedBytes;
        final long appendedTo;
        try (Journal journal = Journal.open(JournalConfig.of(dropping, Durability.SYNC)
            .withUnmapWrittenPages(true).withDropForcedPages(true)))
        {
            assertTrue(journal.dropsForcedPages(), "the dropper is on, on Linux");
            ForcedAppends.appendAndForceUntil(journal, APPENDED_BYTES, new ArrayList<>());
            droppedBytes = journal.droppedBytes();
            appendedTo = journal.appendPosition();
        }
        final long cachedDropping = cachedBytes(libc, queueFile(dropping), appendedTo);
        final long cachedKeeping;
        try (Journal journal = Journal.open(JournalConfig.of(keeping, Durability.SYNC)
            .withUnmapWrittenPages(true).withDropForcedPages(false)))
        {
            assertFalse(journal.dropsForcedPages());
            ForcedAppends.appendAndForceUntil(journal, APPENDED_BYTES, new ArrayList<>());
            assertEquals(0, journal.droppedBytes());
        }
        cachedKeeping = cachedBytes(libc, queueFile(keeping), appendedTo);
        System.out.printf("queue file in the page cache after %,d bytes of appends: %,d bytes with dropping (%,d dropped), " +
            "%,d without%n", appendedTo, cachedDropping, droppedBytes, cachedKeeping);
        assertTrue(droppedBytes >= APPENDED_BYTES / 2, "dropped " + droppedBytes);
        // without it: every page appended (4 MiB and more; at least half, in case memory pressure reclaimed some). With it:
        // the header and index pages Chronicle keeps mapped, and the pages of the last force's range and beyond
        assertTrue(cachedKeeping >= APPENDED_BYTES / 2, "without dropping, the appended pages stay cached: " + cachedKeeping);
        assertTrue(cachedDropping <= cachedKeeping / 4, "with dropping, " + cachedDropping + " bytes of the queue file are " +
            "still cached after appending " + appendedTo + " (" + cachedKeeping + " without it)");
    }

    @Test
    void shouldReadBackEveryRecordFromDroppedPagesAcrossChunks()
    {
        final List<Command> appended = new ArrayList<>();
        // 1 MiB chunks, so that the appends cross from one mapped chunk to the next four times
        final JournalConfig smallChunks = ForcedAppends.smallChunks(dropping, true, true);
        try (Journal journal = Journal.open(smallChunks))
        {
            ForcedAppends.appendAndForceUntil(journal, 5L << 20, appended);
            if (OS.isLinux())
            {
                assertTrue(journal.dropsForcedPages(), "no advice failed, across the chunk boundaries too");
                assertTrue(journal.droppedBytes() >= 4L << 20, "dropped " + journal.droppedBytes());
            }
            ForcedAppends.assertReplaysAll(journal, appended); // the same process, the dropped pages read back from the disk
        }
        try (Journal journal = Journal.open(JournalConfig.of(dropping, Durability.SYNC)))
        {
            ForcedAppends.assertReplaysAll(journal, appended); // a new mapping of the same file
        }
    }

    private static Path queueFile(final Path directory) throws IOException
    {
        try (Stream<Path> files = Files.list(directory))
        {
            return files.filter(f -> f.getFileName().toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
    }

    /** @return bytes of the first {@code length} bytes of {@code file} that are in the page cache, by {@code mincore(2)}. */
    private static long cachedBytes(final Residency libc, final Path file, final long length) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            // a fresh mapping that touches nothing: mincore then answers for the page cache, not for this mapping's pages
            final MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, length);
            final byte[] vector = new byte[(int)((length + PAGE_BYTES - 1) / PAGE_BYTES)];
            assertEquals(0, libc.mincore(BufferUtil.address(mapping), length, vector));
            long cached = 0;
            for (final byte page : vector)
            {
                cached += (page & 1) * PAGE_BYTES;
            }
            return cached;
        }
    }
}
