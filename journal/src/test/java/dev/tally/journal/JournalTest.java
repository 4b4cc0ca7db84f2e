package dev.tally.journal;

import static dev.tally.journal.TestCommands.assertSameCommand;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.tally.ledger.command.Command;
import net.openhft.chronicle.core.time.SetTimeProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class JournalTest
{
    private static final long CLOCK_START_NS = 1_767_225_600_000_000_000L;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Durability.class)
    void shouldReplayEveryAppendedCommandInOrder(final Durability durability)
    {
        final List<Command> appended = new ArrayList<>();
        try (Journal journal = Journal.open(dir, durability))
        {
            for (int i = 0; i < 1_000; i++)
            {
                final Command command = TestCommands.mixed(i);
                journal.stampAndAppend(command, CLOCK_START_NS + i);
                appended.add(new Command().copyFrom(command));
                if (i % 64 == 63)
                {
                    journal.endOfBatch();
                }
            }
            journal.flush();

            final List<Command> replayed = new ArrayList<>();
            final ReplayResult result = journal.replay(0, command -> replayed.add(new Command().copyFrom(command)));

            assertEquals(ReplayStatus.COMPLETE, result.status(), result.toString());
            assertEquals(1_000, result.deliveredCount());
            assertEquals(1_000, result.lastIndex());
            assertEquals(appended.size(), replayed.size());
            for (int i = 0; i < appended.size(); i++)
            {
                assertSameCommand(appended.get(i), replayed.get(i));
            }
        }
    }

    @Test
    void shouldStampGapFreeIndexesStartingAtOne()
    {
        try (Journal journal = Journal.open(dir, Durability.ASYNC))
        {
            assertEquals(0, journal.lastIndex());
            for (long expected = 1; expected <= 100; expected++)
            {
                final Command command = TestCommands.mixed(expected);
                command.journalIndex = -5;

                assertEquals(expected, journal.stampAndAppend(command, CLOCK_START_NS));
                assertEquals(expected, command.journalIndex);
                assertEquals(expected, journal.lastIndex());
            }
        }
    }

    @Test
    void shouldNeverDecreaseTimestampWhenClockGoesBackwards()
    {
        final long[] clockNs = {100, 200, 150, 150, 90, 300, -5, 301};
        final long[] expectedNs = {100, 200, 200, 200, 200, 300, 300, 301};
        try (Journal journal = Journal.open(dir, Durability.ASYNC))
        {
            for (int i = 0; i < clockNs.length; i++)
            {
                final Command command = TestCommands.mixed(i);
                journal.stampAndAppend(command, clockNs[i]);

                assertEquals(expectedNs[i], command.timestampNs, "append " + i);
                assertEquals(expectedNs[i], journal.lastTimestampNs());
            }
            final List<Long> replayedNs = new ArrayList<>();
            journal.replay(0, command -> replayedNs.add(command.timestampNs));

            assertEquals(List.of(100L, 200L, 200L, 200L, 200L, 300L, 300L, 301L), replayedNs);
        }
    }

    @ParameterizedTest
    @EnumSource(Durability.class)
    void shouldContinueSequenceAndTimeAfterReopen(final Durability durability)
    {
        try (Journal journal = Journal.open(dir, durability))
        {
            for (int i = 0; i < 10; i++)
            {
                journal.stampAndAppend(TestCommands.mixed(i), CLOCK_START_NS + i * 1_000);
            }
        }

        try (Journal journal = Journal.open(dir, durability))
        {
            assertEquals(10, journal.lastIndex());
            assertEquals(CLOCK_START_NS + 9_000, journal.lastTimestampNs());
            assertEquals(ReplayStatus.COMPLETE, journal.recovery().tailScan().status());
            assertFalse(journal.recovery().markerWritten());

            final Command next = TestCommands.mixed(10);
            assertEquals(11, journal.stampAndAppend(next, CLOCK_START_NS));
            assertEquals(CLOCK_START_NS + 9_000, next.timestampNs);

            final ReplayResult result = journal.replay(0, command -> { });
            assertEquals(ReplayStatus.COMPLETE, result.status());
            assertEquals(11, result.deliveredCount());
        }
    }

    @Test
    void shouldReplayFromMiddleIndex()
    {
        try (Journal journal = Journal.open(dir, Durability.ASYNC))
        {
            for (int i = 0; i < 1_000; i++)
            {
                journal.stampAndAppend(TestCommands.mixed(i), CLOCK_START_NS + i);
            }

            final List<Long> indexes = new ArrayList<>();
            final ReplayResult result = journal.replay(400, command -> indexes.add(command.journalIndex));

            assertEquals(ReplayStatus.COMPLETE, result.status());
            assertEquals(600, result.deliveredCount());
            assertEquals(401L, indexes.get(0));
            assertEquals(1_000L, indexes.get(indexes.size() - 1));
            for (int i = 1; i < indexes.size(); i++)
            {
                assertEquals(indexes.get(i - 1) + 1, indexes.get(i));
            }
            assertEquals(0, journal.replay(1_000, command -> { }).deliveredCount());
            assertEquals(1, journal.replay(999, command -> { }).deliveredCount());
            assertThrows(IllegalArgumentException.class, () -> journal.replay(-1, command -> { }));
        }
    }

    @Test
    void shouldReplayWithStandaloneReaderAfterClose()
    {
        try (Journal journal = Journal.open(dir, Durability.ASYNC))
        {
            for (int i = 0; i < 50; i++)
            {
                journal.stampAndAppend(TestCommands.mixed(i), CLOCK_START_NS + i);
            }
        }

        try (JournalReader reader = JournalReader.open(dir))
        {
            final ReplayResult result = reader.replay(20, command -> { });

            assertEquals(ReplayStatus.COMPLETE, result.status());
            assertEquals(30, result.deliveredCount());
            assertEquals(50, result.lastIndex());
        }
    }

    @Test
    void shouldReadMissingDirectoryAsEmptyJournal()
    {
        try (JournalReader reader = JournalReader.open(dir.resolve("absent")))
        {
            final ReplayResult result = reader.replay(0, command -> { });

            assertEquals(ReplayStatus.COMPLETE, result.status());
            assertEquals(0, result.lastIndex());
            assertTrue(reader.cycleFiles().isEmpty());
        }
    }

    @Test
    void shouldPromiseDurabilityInSyncModeOnlyAfterFlush()
    {
        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            journal.stampAndAppend(TestCommands.mixed(1), CLOCK_START_NS);
            journal.stampAndAppend(TestCommands.mixed(2), CLOCK_START_NS);
            assertEquals(0, journal.durableIndex());

            journal.endOfBatch();
            assertEquals(2, journal.durableIndex());
        }
        try (Journal journal = Journal.open(dir, Durability.ASYNC))
        {
            journal.stampAndAppend(TestCommands.mixed(3), CLOCK_START_NS);
            assertEquals(3, journal.durableIndex());
        }
    }

    @Test
    void shouldAppendFromThreadOtherThanTheOpener() throws Exception
    {
        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            final long lastIndex = CompletableFuture.supplyAsync(() ->
            {
                for (int i = 0; i < 10; i++)
                {
                    journal.stampAndAppend(TestCommands.mixed(i), CLOCK_START_NS);
                }
                journal.flush();
                return journal.lastIndex();
            }).get(30, TimeUnit.SECONDS);

            assertEquals(10, lastIndex);
        }
    }

    @ParameterizedTest
    @EnumSource(Durability.class)
    void shouldNotAllocateWhenAppendingInSteadyState(final Durability durability)
    {
        final int batchSize = Durability.SYNC == durability ? 256 : 1;
        final int measuredCount = Durability.SYNC == durability ? 20_000 : 100_000;
        final int warmUpCount = Durability.SYNC == durability ? 20_000 : 300_000;
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final Command command = TestCommands.transfer(42, "steady-state-reference");
        try (Journal journal = Journal.open(dir, durability))
        {
            appendBatches(journal, command, warmUpCount, batchSize);

            final long before = threads.getCurrentThreadAllocatedBytes();
            appendBatches(journal, command, measuredCount, batchSize);
            final long allocatedBytes = threads.getCurrentThreadAllocatedBytes() - before;

            System.out.printf("journal %s: %d appends, flush every %d, allocated %d bytes%n",
                durability, measuredCount, batchSize, allocatedBytes);
            // Per append, not absolute: Chronicle's occasional bookkeeping (an index page, a roll) may
            // allocate a few KB in a run, but any object allocated on every append (>= 16 bytes) fails this.
            assertTrue(allocatedBytes < measuredCount, "allocated " + allocatedBytes + " bytes in " + measuredCount + " appends");
        }
    }

    @Test
    void shouldListCycleFilesWithFirstJournalIndex()
    {
        try (Journal journal = Journal.open(dir, Durability.ASYNC))
        {
            for (int i = 0; i < 5; i++)
            {
                journal.stampAndAppend(TestCommands.mixed(i), CLOCK_START_NS);
            }

            final List<JournalCycleFile> files = journal.cycleFiles();

            assertEquals(1, files.size(), files.toString());
            assertTrue(Files.exists(files.get(0).path()), files.toString());
            assertTrue(files.get(0).path().getFileName().toString().endsWith("LS.cq4"), files.toString());
            assertEquals(1, files.get(0).firstJournalIndex());
        }
    }

    @Test
    void shouldRollToNewCycleFileAndReplayAcrossIt()
    {
        final long hourMs = 3_600_000L;
        final SetTimeProvider rollClock = new SetTimeProvider((System.currentTimeMillis() - 3 * hourMs) * 1_000_000L);
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.SYNC), rollClock))
        {
            appendBatches(journal, TestCommands.transfer(1, "first-hour"), 100, 16);
            rollClock.advanceMillis(hourMs);
            appendBatches(journal, TestCommands.transfer(2, "second-hour"), 100, 16);

            final List<JournalCycleFile> files = journal.cycleFiles();
            assertEquals(2, files.size(), files.toString());
            assertEquals(1, files.get(0).firstJournalIndex());
            assertEquals(101, files.get(1).firstJournalIndex());
            assertEquals(files.get(0).cycle() + 1, files.get(1).cycle());
            files.forEach(file -> assertTrue(Files.exists(file.path()), file.toString()));

            final List<Long> fromSecondFile = new ArrayList<>();
            assertEquals(ReplayStatus.COMPLETE, journal.replay(150, command -> fromSecondFile.add(command.journalIndex)).status());
            assertEquals(50, fromSecondFile.size());
            assertEquals(151L, fromSecondFile.get(0));
            assertEquals(150, journal.replay(50, command -> { }).deliveredCount());
            assertEquals(100, journal.replay(100, command -> { }).deliveredCount());
            assertEquals(200, journal.replay(0, command -> { }).deliveredCount());
        }

        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            assertEquals(200, journal.lastIndex());
            journal.stampAndAppend(TestCommands.transfer(3, "now"), CLOCK_START_NS);
            journal.flush();
            final ReplayResult result = journal.replay(0, command -> { });
            assertEquals(ReplayStatus.COMPLETE, result.status(), result.toString());
            assertEquals(201, result.deliveredCount());
            assertEquals(3, journal.cycleFiles().size());
        }
    }

    @Test
    void shouldReplayFromSnapshotIndexAfterOldCycleFileIsDeleted() throws Exception
    {
        final long hourMs = 3_600_000L;
        final SetTimeProvider rollClock = new SetTimeProvider((System.currentTimeMillis() - 3 * hourMs) * 1_000_000L);
        final Path oldest;
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.SYNC), rollClock))
        {
            appendBatches(journal, TestCommands.transfer(1, "first-hour"), 100, 16);
            rollClock.advanceMillis(hourMs);
            appendBatches(journal, TestCommands.transfer(2, "second-hour"), 100, 16);
            oldest = journal.cycleFiles().get(0).path();
        }
        Files.delete(oldest);

        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.SYNC), rollClock))
        {
            assertEquals(200, journal.lastIndex());
            assertEquals(1, journal.cycleFiles().size());
            assertEquals(101, journal.cycleFiles().get(0).firstJournalIndex());

            final ReplayResult fromSnapshot = journal.replay(120, command -> { });
            assertEquals(ReplayStatus.COMPLETE, fromSnapshot.status(), fromSnapshot.toString());
            assertEquals(80, fromSnapshot.deliveredCount());

            final ReplayResult fromZero = journal.replay(0, command -> { });
            assertEquals(ReplayStatus.CORRUPT, fromZero.status(), fromZero.toString());
            assertEquals(0, fromZero.deliveredCount());
            assertTrue(fromZero.detail().contains("expected journal index 1 but read 101"), fromZero.detail());
        }
    }

    @Test
    void shouldRejectInvalidConfiguration()
    {
        assertThrows(IllegalArgumentException.class,
            () -> JournalConfig.of(dir, Durability.SYNC).withTailScanRecordCount(0));
        assertThrows(IllegalArgumentException.class,
            () -> new JournalConfig(dir, Durability.SYNC, 10, (64L << 20) + 1, false, 0, 0, true, true));
        assertThrows(NullPointerException.class, () -> JournalConfig.of(dir, null));
    }

    private static void appendBatches(final Journal journal, final Command command, final int count, final int batchSize)
    {
        for (int i = 0; i < count; i++)
        {
            journal.stampAndAppend(command, CLOCK_START_NS + i);
            if (i % batchSize == batchSize - 1)
            {
                journal.endOfBatch();
            }
        }
        journal.endOfBatch();
    }
}
