package dev.tally.journal;

import static dev.tally.journal.TestCommands.assertSameCommand;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import dev.tally.ledger.command.Command;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The zero fill ahead of the appends, on a real queue file: never touches a record, and blocks get allocated. */
class AheadZeroFillTest
{
    private static final long CLOCK_START_NS = 1_767_225_600_000_000_000L;
    private static final int CHUNK = AheadZeroFill.CHUNK_BYTES;

    @TempDir
    Path dir;

    @Test
    void shouldKeepEveryRecordIntactAndStayAheadOfTheAppends() throws IOException, InterruptedException
    {
        final List<Command> appended = new ArrayList<>();
        final JournalConfig config = JournalConfig.of(dir, Durability.SYNC)
            .withZeroFillAheadBytes(1 << 20);
        final long filledTo;
        final long appendPosition;
        final Path file;
        try (Journal journal = Journal.open(config))
        {
            // ~30,000 records of ~100 B: several MiB, so the fill runs ahead, is caught up with and refilled many times
            for (int i = 0; i < 30_000; i++)
            {
                final Command command = TestCommands.mixed(i);
                journal.stampAndAppend(command, CLOCK_START_NS + i);
                appended.add(new Command().copyFrom(command));
                if (i % 13 == 12)
                {
                    journal.endOfBatch();
                    assertTrue(journal.zeroFilledTo() > journal.appendPosition() + CHUNK,
                        "filled to " + journal.zeroFilledTo() + ", appended to " + journal.appendPosition());
                }
            }
            journal.flush();
            filledTo = journal.zeroFilledTo();
            appendPosition = journal.appendPosition();
            file = journal.cycleFiles().get(0).path();
            assertTrue(appendPosition > 3 * (1 << 20), "the test must write well past the fill distance: " + appendPosition);
            assertTrue(filledTo >= appendPosition + (1 << 20) - CHUNK && filledTo <= appendPosition + (1 << 20) + 2L * CHUNK,
                "filled to " + filledTo + " for appends to " + appendPosition);
        }

        assertZeros(file, appendPosition + 8, filledTo);
        // Chronicle's own header and index regions keep a few holes, so allow some slack below the fill's
        // end; without the fill the file's blocks end near the append position, half a fill distance short
        final long allocated = allocatedBytes(file);
        assertTrue(allocated >= appendPosition + (filledTo - appendPosition) / 2,
            "blocks ahead of the appends must be allocated: " + allocated + " bytes for appends to " + appendPosition +
                " and a fill to " + filledTo);

        try (Journal reopened = Journal.open(config))
        {
            assertEquals(30_000, reopened.lastIndex(), "the tail scan reads zeros as the end, like a hole");
            for (int i = 30_000; i < 30_100; i++)
            {
                final Command command = TestCommands.mixed(i);
                reopened.stampAndAppend(command, CLOCK_START_NS + i);
                appended.add(new Command().copyFrom(command));
            }
            reopened.flush();

            assertReplaysExactly(reopened, appended);
        }
    }

    @Test
    void shouldStayAheadWhenEachForceComesAfterSeveralChunksOfAppends() throws IOException
    {
        // ASYNC forces once 256 KiB or more were appended, after whole pipeline batches: a fill of one chunk per force
        // fell behind, and the appender stored into holes. Here every force follows more than three chunks of appends.
        final long roundBytes = 3L * CHUNK + CHUNK / 8;
        final List<Command> appended = new ArrayList<>();
        int behind = 0;
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.SYNC)))
        {
            int i = 0;
            for (int round = 0; round < 16; round++)
            {
                final long filledBefore = journal.zeroFilledTo();
                final long roundStart = journal.appendPosition();
                while (journal.appendPosition() - roundStart < roundBytes)
                {
                    final Command command = TestCommands.mixed(i);
                    journal.stampAndAppend(command, CLOCK_START_NS + i++);
                    appended.add(new Command().copyFrom(command));
                }
                // the first rounds build the distance up from one chunk; from then on nothing is appended past the fill
                if (round >= 6 && journal.appendPosition() > filledBefore)
                {
                    behind++;
                }
                journal.endOfBatch();
            }
            assertEquals(0, behind, "rounds whose appends ran past the zero fill made before them");
            assertTrue(journal.zeroFilledTo() - journal.appendPosition() > 2L * CHUNK,
                "the fill keeps a distance: filled to " + journal.zeroFilledTo() + ", appended to " + journal.appendPosition());

            assertReplaysExactly(journal, appended);
        }
    }

    @Test
    void shouldFillNothingBeforeTheFirstAsyncForceNorWhenOff()
    {
        for (final JournalConfig config : List.of(JournalConfig.of(dir.resolve("async"), Durability.ASYNC).withAsyncForceIntervalMs(60_000), // no timed force in the test
            JournalConfig.of(dir.resolve("off"), Durability.SYNC).withZeroFillAheadBytes(0)))
        {
            try (Journal journal = Journal.open(config))
            {
                final long startPosition = journal.appendPosition();
                for (int i = 0; i < 200; i++)
                {
                    journal.stampAndAppend(TestCommands.mixed(i), CLOCK_START_NS + i);
                    journal.endOfBatch();
                }
                assertTrue(journal.appendPosition() - startPosition < Journal.ASYNC_FORCE_BYTES,
                    "less than the appends that force under ASYNC whatever the interval");
                assertEquals(0, journal.zeroFilledTo(), config.toString());
            }
        }
    }

    @Test
    void shouldStartAtLeastOneWholeChunkPastTheAppendPosition()
    {
        assertEquals(CHUNK, AheadZeroFill.chunkAfter(0));
        assertEquals(2L * CHUNK, AheadZeroFill.chunkAfter(1));
        assertEquals(2L * CHUNK, AheadZeroFill.chunkAfter(CHUNK));
        assertEquals(3L * CHUNK, AheadZeroFill.chunkAfter(CHUNK + 1));
    }

    @Test
    void shouldRefuseAFillThatIsNotAWholeNumberOfChunks()
    {
        final JournalConfig config = JournalConfig.of(dir, Durability.SYNC);
        assertThrows(IllegalArgumentException.class, () -> config.withZeroFillAheadBytes(CHUNK + 1));
        assertThrows(IllegalArgumentException.class, () -> config.withZeroFillAheadBytes(-CHUNK));
    }

    private static void assertReplaysExactly(final Journal journal, final List<Command> appended)
    {
        final List<Command> replayed = new ArrayList<>();
        final ReplayResult result = journal.replay(0, command -> replayed.add(new Command().copyFrom(command)));
        assertEquals(ReplayStatus.COMPLETE, result.status(), result.toString());
        assertEquals(appended.size(), replayed.size());
        for (int i = 0; i < appended.size(); i++)
        {
            assertSameCommand(appended.get(i), replayed.get(i));
        }
    }

    private static void assertZeros(final Path file, final long from, final long to) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            assertTrue(channel.size() >= to, "file size " + channel.size() + " < " + to);
            final ByteBuffer buffer = ByteBuffer.allocate(64 << 10);
            for (long at = from; at < to; )
            {
                buffer.clear().limit((int)Math.min(buffer.capacity(), to - at));
                final int read = channel.read(buffer, at);
                for (int i = 0; i < read; i++)
                {
                    if (buffer.get(i) != 0)
                    {
                        throw new AssertionError("non-zero byte at " + (at + i) + " past the last record");
                    }
                }
                at += read;
            }
        }
    }

    /** st_blocks x 512: what the file system has allocated (or reserved) for the file. */
    private static long allocatedBytes(final Path file) throws IOException, InterruptedException
    {
        final Process stat = new ProcessBuilder("stat", "-c", "%b", file.toString()).redirectErrorStream(true).start();
        final String out = new String(stat.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        assertEquals(0, stat.waitFor(), out);
        return Long.parseLong(out) * 512;
    }
}
