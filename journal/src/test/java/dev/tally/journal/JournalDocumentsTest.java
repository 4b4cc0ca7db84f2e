package dev.tally.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.tally.ledger.command.Command;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Several records in one Chronicle document: staged together, appended together, read back one by one. */
class JournalDocumentsTest
{
    private static final long CLOCK_START_NS = 1_767_225_600_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void shouldAppendStagedRecordsAsOneDocumentAndReplayEachInOrder()
    {
        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            journal.stampAndAppend(TestCommands.transfer(1, "one-0001"), CLOCK_START_NS);
            stage(journal, "grp", 2, 100);
            journal.appendStaged();
            journal.stampAndAppend(TestCommands.transfer(101, "one-0101"), CLOCK_START_NS);
            stage(journal, "grp", 102, 150);
            journal.flush();                                  // appends what is staged before it forces
            assertEquals(150, journal.lastIndex());
            assertEquals(150, journal.durableIndex());
        }

        final List<String> references = new ArrayList<>();
        final List<Long> indexes = new ArrayList<>();
        final ReplayResult result = replayAll(command ->
        {
            references.add(TestCommands.referenceText(command));
            indexes.add(command.journalIndex);
        });
        assertEquals(ReplayStatus.COMPLETE, result.status(), result.toString());
        assertEquals(150, result.deliveredCount());
        for (int i = 1; i <= 150; i++)
        {
            assertEquals(i, indexes.get(i - 1));
        }
        assertEquals("one-0001", references.get(0));
        assertEquals("grp-0002", references.get(1));
        assertEquals("grp-0100", references.get(99));
        assertEquals("one-0101", references.get(100));
        assertEquals("grp-0150", references.get(149));
        assertEquals(List.of(1, 99, 1, 49), recordsPerDocument(), "records in each Chronicle document");

        try (JournalReader reader = JournalReader.open(dir))
        {
            final List<Long> fromMiddle = new ArrayList<>();
            reader.replay(60, command -> fromMiddle.add(command.journalIndex));   // starts inside a document
            assertEquals(90, fromMiddle.size());
            assertEquals(61, fromMiddle.get(0));
        }
        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            assertFalse(journal.recovery().markerWritten());
            assertEquals(150, journal.lastIndex());
        }
    }

    @Test
    void shouldKeepStagedRecordsOutOfTheJournalUntilAppended()
    {
        try (Journal journal = Journal.open(dir, Durability.ASYNC))
        {
            journal.stampAndAppend(TestCommands.transfer(1, "one-0001"), CLOCK_START_NS);
            assertEquals(3, stage(journal, "grp", 2, 4));
            assertEquals(3, journal.stagedCount());
            assertEquals(1, journal.lastIndex(), "staged records are not in the journal yet");
            assertEquals(1, journal.durableIndex());
            assertEquals(1, replayAll(command -> { }).deliveredCount());

            journal.appendStaged();
            assertEquals(0, journal.stagedCount());
            assertEquals(4, journal.lastIndex());
            assertEquals(4, journal.durableIndex(), "async: appended is durable");
            assertEquals(4, replayAll(command -> { }).deliveredCount());
            journal.appendStaged();                           // nothing staged: nothing written
        }
        assertEquals(List.of(1, 3), recordsPerDocument());
    }

    @Test
    void shouldRefuseToStageBeyondOneDocumentAndKeepWhatWasStaged()
    {
        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            int staged = 0;
            while (!journal.stagingFull())
            {
                journal.stampAndStage(TestCommands.transfer(staged + 1, String.format("big-%04d", staged + 1)), CLOCK_START_NS);
                staged++;
            }
            assertTrue(staged > 100, "a document holds hundreds of transfers: " + staged);
            final int full = staged;
            assertThrows(IllegalStateException.class,
                () -> journal.stampAndStage(TestCommands.transfer(full + 1, "big-over"), CLOCK_START_NS));
            assertEquals(staged, journal.stagedCount());

            journal.appendStaged();
            assertFalse(journal.stagingFull());
            assertEquals(staged + 1, journal.stampAndAppend(TestCommands.transfer(staged + 1, "aft-0001"), CLOCK_START_NS));
            assertEquals(List.of(staged, 1), recordsPerDocument());
        }
    }

    @Test
    void shouldWriteFullDocumentsAcrossChunksOfTheSmallestBlockSize()
    {
        final JournalConfig defaults = JournalConfig.of(dir, Durability.ASYNC);
        final JournalConfig smallestBlocks = new JournalConfig(dir, Durability.ASYNC, defaults.tailScanRecordCount(),
            JournalConfig.BLOCK_SIZE_BYTES_MIN, false, defaults.zeroFillAheadBytes(), defaults.asyncForceIntervalMs(),
            defaults.unmapWrittenPages(), defaults.dropForcedPages());
        int appended = 0;
        try (Journal journal = Journal.open(smallestBlocks))
        {
            // 48 documents of ≈ 64 KiB: three times the 1 MiB chunk, so documents land across chunk boundaries
            for (int document = 0; document < 48; document++)
            {
                while (!journal.stagingFull())
                {
                    appended++;
                    journal.stampAndStage(TestCommands.transfer(appended, String.format("blk-%06d", appended)), CLOCK_START_NS);
                }
                journal.appendStaged();
            }
            assertEquals(appended, journal.lastIndex());
        }
        final List<Long> indexes = new ArrayList<>();
        final ReplayResult result = replayAll(command -> indexes.add(command.journalIndex));
        assertEquals(ReplayStatus.COMPLETE, result.status(), result.toString());
        assertEquals(appended, indexes.size());
        assertEquals(appended, indexes.get(appended - 1));
        assertEquals(48, recordsPerDocument().size());
    }

    @Test
    void shouldNotAllocateWhenStagingAppendingAndReplayingDocuments()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        final Command command = TestCommands.plainTransfer(42, "");
        final int measuredCount = 100_000;
        try (Journal journal = Journal.open(dir, Durability.ASYNC))
        {
            stageInRequestsOf100(journal, command, 200_000);   // warm-up

            final long before = threads.getCurrentThreadAllocatedBytes();
            stageInRequestsOf100(journal, command, measuredCount);
            final long allocatedBytes = threads.getCurrentThreadAllocatedBytes() - before;
            // per record, not absolute: Chronicle's occasional bookkeeping may allocate a few KB in a run
            assertTrue(allocatedBytes < measuredCount, "allocated " + allocatedBytes + " bytes staging " + measuredCount + " records");
        }
        try (JournalReader reader = JournalReader.open(dir))
        {
            final long[] delivered = new long[1];
            reader.replay(0, replayed -> delivered[0]++);   // warm-up
            final long before = threads.getCurrentThreadAllocatedBytes();
            reader.replay(0, replayed -> delivered[0]++);
            final long allocatedBytes = threads.getCurrentThreadAllocatedBytes() - before;
            assertEquals(2L * (200_000 + measuredCount), delivered[0]);
            assertTrue(allocatedBytes < 200_000 + measuredCount,
                "allocated " + allocatedBytes + " bytes replaying " + (200_000 + measuredCount) + " records");
        }
    }

    /** Stages {@code count} copies of {@code command} (each stamped anew), appending a document every 100. */
    private static void stageInRequestsOf100(final Journal journal, final Command command, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            command.batchPosition = i % 100;
            journal.stampAndStage(command, CLOCK_START_NS);
            if (i % 100 == 99)
            {
                journal.appendStaged();
            }
        }
        journal.appendStaged();
    }

    @Test
    void shouldCutATornDocumentAtItsFirstUnreadableRecord() throws Exception
    {
        appendOldAndNewDocuments();
        // a power loss: the document's pages from inside record 25 on never reached the disk
        JournalFiles.zeroFromTo(dir, "new-0025", "new-0030", RecordHeader.CHECKSUM_SIZE);

        final List<Long> beforeRecovery = new ArrayList<>();
        final ReplayResult torn = replayAll(command -> beforeRecovery.add(command.journalIndex));
        assertEquals(ReplayStatus.TORN_TAIL, torn.status(), torn.toString());
        assertEquals(24, torn.lastIndex(), "the document's records before the torn one are good");
        assertEquals(24, beforeRecovery.size());
        assertEquals(1, torn.tornTailRecordCount(), "the rest of the document is read as one unreadable record");

        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            assertTrue(journal.recovery().markerWritten(), journal.recovery().toString());
            assertEquals(24, journal.lastIndex());
            stage(journal, "re", 25, 27);
            journal.flush();
        }
        final List<String> references = new ArrayList<>();
        final ReplayResult result = replayAll(command -> references.add(TestCommands.referenceText(command)));
        assertEquals(ReplayStatus.COMPLETE, result.status(), result.toString());
        assertEquals(27, result.deliveredCount());
        assertEquals("new-0024", references.get(23));
        assertEquals("re-0025", references.get(24));
    }

    @Test
    void shouldRefuseToCutADocumentDamagedBeforeDataItCannotRead() throws Exception
    {
        appendOldAndNewDocuments();
        // one byte of record 25 damaged, records 26 to 30 intact after it: not what a crash leaves
        JournalFiles.corruptLastOccurrence(dir, "new-0025");

        final ReplayResult damaged = replayAll(command -> { });
        assertEquals(ReplayStatus.CORRUPT, damaged.status(), damaged.toString());
        assertEquals(24, damaged.lastIndex());
        assertThrows(JournalCorruptedException.class, () -> Journal.open(dir, Durability.SYNC));

        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.SYNC).withTruncateAfterCorruption(true)))
        {
            assertTrue(journal.recovery().markerWritten(), "cut on the operator's request");
            assertEquals(24, journal.lastIndex());
        }
        assertEquals(ReplayStatus.COMPLETE, replayAll(command -> { }).status());
    }

    @Test
    void shouldReadAnEmptyOrOversizedDocumentAsUnreadable()
    {
        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            stage(journal, "old", 1, 3);
            journal.flush();
        }
        JournalFiles.appendRawDocument(dir, new byte[Journal.DOCUMENT_BYTES_MAX + 1], Journal.DOCUMENT_BYTES_MAX + 1);
        final ReplayResult oversized = replayAll(command -> { });
        assertEquals(ReplayStatus.TORN_TAIL, oversized.status(), oversized.toString());
        assertEquals(3, oversized.lastIndex());
        assertTrue(oversized.detail().contains("BAD_LENGTH"), oversized.detail());

        JournalFiles.appendRawDocument(dir, new byte[0], 0);
        final ReplayResult empty = replayAll(command -> { });
        assertEquals(ReplayStatus.TORN_TAIL, empty.status(), empty.toString());
        assertEquals(2, empty.tornTailRecordCount(), "each document one unreadable record");
    }

    private void appendOldAndNewDocuments()
    {
        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            stage(journal, "old", 1, 20);
            journal.appendStaged();
            stage(journal, "new", 21, 30);
            journal.flush();
        }
    }

    /** Stages transfers {@code from..to} (journal indexes and reference numbers alike). @return how many. */
    private static int stage(final Journal journal, final String prefix, final int from, final int to)
    {
        for (int i = from; i <= to; i++)
        {
            assertEquals(i, journal.stampAndStage(TestCommands.transfer(i, String.format("%s-%04d", prefix, i)), CLOCK_START_NS + i));
        }
        return to - from + 1;
    }

    private ReplayResult replayAll(final CommandConsumer consumer)
    {
        try (JournalReader reader = JournalReader.open(dir))
        {
            return reader.replay(0, consumer);
        }
    }

    /** @return how many records each Chronicle document holds, in order (walked by their record lengths). */
    private List<Integer> recordsPerDocument()
    {
        final List<Integer> counts = new ArrayList<>();
        try (SingleChronicleQueue queue = JournalQueues.openReadOnly(dir);
            ExcerptTailer tailer = queue.createTailer())
        {
            while (true)
            {
                try (DocumentContext dc = tailer.readingDocument())
                {
                    if (!dc.isPresent())
                    {
                        return counts;
                    }
                    final byte[] document = new byte[(int)dc.wire().bytes().readRemaining()];
                    dc.wire().bytes().read(document);
                    final UnsafeBuffer bytes = new UnsafeBuffer(document);
                    int records = 0;
                    int offset = 0;
                    while (offset < document.length)
                    {
                        offset += RecordHeader.recordLength(bytes, offset);
                        records++;
                    }
                    assertEquals(document.length, offset, "whole records only");
                    counts.add(records);
                }
            }
        }
    }
}
