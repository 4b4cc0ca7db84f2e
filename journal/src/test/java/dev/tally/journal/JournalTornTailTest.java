package dev.tally.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.tally.ledger.command.Command;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalTornTailTest
{
    private static final long CLOCK_START_NS = 1_767_225_600_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void shouldCutCorruptLastRecordAndContinueAfterLastGoodIndex() throws Exception
    {
        appendTransfers(dir, "rec", 100);
        JournalFiles.corruptLastOccurrence(dir, "rec-0100");

        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            final RecoveryReport recovery = journal.recovery();
            assertTrue(recovery.markerWritten(), recovery.toString());
            assertEquals(ReplayStatus.TORN_TAIL, recovery.tailScan().status());
            assertEquals(1, recovery.droppedRecordCount());
            assertEquals(99, journal.lastIndex());
            assertTrue(recovery.tailScan().detail().contains("BAD_CHECKSUM"), recovery.toString());

            assertEquals(100, journal.stampAndAppend(TestCommands.transfer(100, "new-0100"), CLOCK_START_NS));
        }

        final List<String> references = new ArrayList<>();
        final ReplayResult result = replayAll(dir, command -> references.add(TestCommands.referenceText(command)));
        assertEquals(ReplayStatus.COMPLETE, result.status(), result.toString());
        assertEquals(100, result.deliveredCount());
        assertEquals(1, result.droppedRecordCount());
        assertEquals(1, result.recoveredRegionCount());
        assertEquals("rec-0099", references.get(98));
        assertEquals("new-0100", references.get(99));

        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            assertFalse(journal.recovery().markerWritten());
            assertEquals(100, journal.lastIndex());
        }
    }

    @Test
    void shouldReportTornTailToReaderBeforeAnyRecovery() throws Exception
    {
        appendTransfers(dir, "rec", 20);
        JournalFiles.corruptLastOccurrence(dir, "rec-0020");

        final List<Long> indexes = new ArrayList<>();
        final ReplayResult result = replayAll(dir, command -> indexes.add(command.journalIndex));

        assertEquals(ReplayStatus.TORN_TAIL, result.status(), result.toString());
        assertEquals(19, result.lastIndex());
        assertEquals(19, indexes.size());
        assertEquals(1, result.tornTailRecordCount());
        assertEquals(0, result.tornTailValidRecordCount());
    }

    @Test
    void shouldCutTruncatedRecordAtTail()
    {
        appendTransfers(dir, "rec", 10);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[CommandCodec.ENCODED_LENGTH_MAX]);
        final Command eleventh = TestCommands.transfer(11, "rec-0011");
        eleventh.journalIndex = 11;
        eleventh.timestampNs = CLOCK_START_NS + 11;
        new CommandCodec().encode(eleventh, buffer, 0);
        JournalFiles.appendRawDocument(dir, buffer.byteArray(), 60);

        assertEquals(ReplayStatus.TORN_TAIL, replayAll(dir, command -> { }).status());
        try (Journal journal = Journal.open(dir, Durability.ASYNC))
        {
            assertTrue(journal.recovery().markerWritten());
            assertTrue(journal.recovery().tailScan().detail().contains("TRUNCATED"), journal.recovery().toString());
            assertEquals(10, journal.lastIndex());
            assertEquals(11, journal.stampAndAppend(TestCommands.transfer(11, "new-0011"), CLOCK_START_NS));
        }
        final ReplayResult result = replayAll(dir, command -> { });
        assertEquals(ReplayStatus.COMPLETE, result.status(), result.toString());
        assertEquals(11, result.deliveredCount());
    }

    @Test
    void shouldRefuseToOpenWhenIntactRecordsFollowACorruptOne() throws Exception
    {
        appendTransfers(dir, "rec", 100);
        JournalFiles.corruptLastOccurrence(dir, "rec-0050");

        final ReplayResult scan = replayAll(dir, command -> { });
        assertEquals(ReplayStatus.CORRUPT, scan.status(), scan.toString());
        assertEquals(49, scan.deliveredCount());
        assertEquals(51, scan.tornTailRecordCount());
        assertEquals(50, scan.tornTailValidRecordCount());

        final JournalCorruptedException refused =
            assertThrows(JournalCorruptedException.class, () -> Journal.open(dir, Durability.SYNC));
        assertEquals(49, refused.scan().lastIndex());

        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.SYNC).withTruncateAfterCorruption(true)))
        {
            assertEquals(49, journal.lastIndex());
            assertEquals(51, journal.recovery().droppedRecordCount());
            assertEquals(50, journal.stampAndAppend(TestCommands.transfer(50, "new-0050"), CLOCK_START_NS));
        }
        final ReplayResult result = replayAll(dir, command -> { });
        assertEquals(ReplayStatus.COMPLETE, result.status(), result.toString());
        assertEquals(50, result.deliveredCount());
        assertEquals(51, result.droppedRecordCount());
    }

    @Test
    void shouldStopReplayAtGapBetweenIntactRecords()
    {
        appendTransfers(dir, "rec", 10);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[CommandCodec.ENCODED_LENGTH_MAX]);
        final Command skipping = TestCommands.transfer(12, "rec-0012");
        skipping.journalIndex = 12;
        skipping.timestampNs = CLOCK_START_NS + 12;
        final int length = new CommandCodec().encode(skipping, buffer, 0);
        JournalFiles.appendRawDocument(dir, buffer.byteArray(), length);

        final ReplayResult result = replayAll(dir, command -> { });

        assertEquals(ReplayStatus.CORRUPT, result.status());
        assertEquals(10, result.deliveredCount());
        assertTrue(result.detail().contains("expected journal index 11 but read 12"), result.detail());
        assertThrows(JournalCorruptedException.class, () -> Journal.open(dir, Durability.ASYNC));
    }

    @Test
    void shouldReplayAcrossTwoEarlierCutsFromStartAndFromMiddle() throws Exception
    {
        appendTransfers(dir, "one", 30);
        JournalFiles.corruptLastOccurrence(dir, "one-0030");
        try (Journal journal = Journal.open(dir, Durability.ASYNC))
        {
            for (int i = 30; i <= 60; i++)
            {
                journal.stampAndAppend(TestCommands.transfer(i, String.format("two-%04d", i)), CLOCK_START_NS + i);
            }
        }
        JournalFiles.corruptLastOccurrence(dir, "two-0060");
        try (Journal journal = Journal.open(dir, Durability.ASYNC))
        {
            assertEquals(59, journal.lastIndex());
            for (int i = 60; i <= 80; i++)
            {
                journal.stampAndAppend(TestCommands.transfer(i, String.format("six-%04d", i)), CLOCK_START_NS + i);
            }
        }

        final List<Long> fromStart = new ArrayList<>();
        final ReplayResult all = replayAll(dir, command -> fromStart.add(command.journalIndex));
        assertEquals(ReplayStatus.COMPLETE, all.status(), all.toString());
        assertEquals(2, all.recoveredRegionCount());
        assertEquals(2, all.droppedRecordCount());
        assertEquals(80, fromStart.size());
        for (int i = 0; i < fromStart.size(); i++)
        {
            assertEquals(i + 1, fromStart.get(i));
        }

        try (JournalReader reader = JournalReader.open(dir))
        {
            final List<String> references = new ArrayList<>();
            final ReplayResult middle = reader.replay(28, command -> references.add(TestCommands.referenceText(command)));
            assertEquals(ReplayStatus.COMPLETE, middle.status(), middle.toString());
            assertEquals(52, middle.deliveredCount());
            assertEquals(List.of("one-0029", "two-0030"), references.subList(0, 2));
            assertEquals("six-0060", references.get(31));
        }
    }

    @Test
    void shouldCatchCorruptionOlderThanTheTailWindowOnReplay() throws Exception
    {
        appendTransfers(dir, "rec", 100);
        JournalFiles.corruptLastOccurrence(dir, "rec-0020");

        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.ASYNC).withTailScanRecordCount(10)))
        {
            assertEquals(100, journal.lastIndex());
            final ReplayResult result = journal.replay(0, command -> { });

            assertEquals(ReplayStatus.CORRUPT, result.status(), result.toString());
            assertEquals(19, result.deliveredCount());
            assertEquals(80, result.tornTailValidRecordCount());
        }
    }

    private static void appendTransfers(final Path dir, final String prefix, final int count)
    {
        try (Journal journal = Journal.open(dir, Durability.ASYNC))
        {
            for (int i = 1; i <= count; i++)
            {
                journal.stampAndAppend(TestCommands.transfer(i, String.format("%s-%04d", prefix, i)), CLOCK_START_NS + i);
            }
        }
    }

    private static ReplayResult replayAll(final Path dir, final CommandConsumer consumer)
    {
        try (JournalReader reader = JournalReader.open(dir))
        {
            return reader.replay(0, consumer);
        }
    }
}
