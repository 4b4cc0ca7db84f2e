package dev.tally.journal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damage a crash cannot cause, on a real journal on disk: the read ends early but in order, and only a witness outside the
 * document headers (Chronicle's own write position, a snapshot, PostgreSQL's watermark) tells it from the true end. Every
 * such journal must read {@link ReplayStatus#CORRUPT} and refuse to open; a tear at the true end still recovers.
 */
class JournalDamageTest
{
    private static final long CLOCK_START_NS = 1_767_225_600_000_000_000L;
    private static final int RECORDS = 1_200;
    private static final int PAGE_BYTES = 4096;

    @TempDir
    Path dir;

    @Test
    void shouldReadCorruptWhenAMiddleDocumentHeaderIsZeroed() throws Exception
    {
        appendForced(RECORDS);
        final long[] headers = JournalFiles.documentHeaderPositions(dir);
        JournalFiles.zero(cycleFile(), headers[599], JournalFiles.CHRONICLE_HEADER_BYTES);   // record 600's header

        final ReplayResult replay = replayAll();
        assertEquals(ReplayStatus.CORRUPT, replay.status(), replay.toString());
        assertEquals(599, replay.lastIndex());
        assertTrue(replay.detail().contains("past the last one it can read"), replay.detail());
        assertTrue(replay.detail().contains("blank document header"), replay.detail());

        assertReplayFromTheStartCorruptAfterOpen();
    }

    @Test
    void shouldReadCorruptWhenThePageHoldingAMiddleHeaderIsZeroed() throws Exception
    {
        appendForced(RECORDS);
        final long[] headers = JournalFiles.documentHeaderPositions(dir);
        JournalFiles.zero(cycleFile(), headers[599] & -PAGE_BYTES, PAGE_BYTES);

        final ReplayResult replay = replayAll();
        assertEquals(ReplayStatus.CORRUPT, replay.status(), replay.toString());
        assertTrue(replay.lastIndex() < 600, replay.toString());

        assertReplayFromTheStartCorruptAfterOpen();
    }

    @Test
    void shouldRefuseAJournalWhoseLastDocumentsAreZeroedWhileChroniclesHeaderKeepsThem() throws Exception
    {
        appendForced(RECORDS);
        final long[] headers = JournalFiles.documentHeaderPositions(dir);
        JournalFiles.zero(cycleFile(), headers[RECORDS - 6], PAGE_BYTES);   // the last six, and the blank after them

        final ReplayResult replay = replayAll();
        assertEquals(ReplayStatus.CORRUPT, replay.status(), replay.toString());
        assertEquals(RECORDS - 6, replay.lastIndex());
        assertRefusedWithoutChange();
    }

    @Test
    void shouldRecoverATearThatTookTheLastDocumentAndTheHeaderUpdateWithIt() throws Exception
    {
        appendForced(RECORDS - 1);
        final byte[] headerPageBefore = JournalFiles.read(cycleFile(), PAGE_BYTES);
        appendForced(1);   // the last append: its page and Chronicle's header page never reach the disk
        final long[] headers = JournalFiles.documentHeaderPositions(dir);
        JournalFiles.zero(cycleFile(), headers[RECORDS - 1], PAGE_BYTES);
        JournalFiles.writeAtStart(cycleFile(), headerPageBefore);

        final ReplayResult replay = replayAll();
        assertEquals(ReplayStatus.COMPLETE, replay.status(), replay.toString());
        assertEquals(RECORDS - 1, replay.lastIndex());
        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            assertEquals(RECORDS - 1, journal.lastIndex());
            assertEquals(RECORDS, journal.stampAndAppend(TestCommands.transfer(RECORDS, "after-tear"), CLOCK_START_NS + RECORDS));
            journal.flush();
        }
        final ReplayResult after = replayAll();
        assertEquals(ReplayStatus.COMPLETE, after.status(), after.toString());
        assertEquals(RECORDS, after.lastIndex(), "the command appended after the tear must be readable");
    }

    @Test
    void shouldReadAHealthyJournalOfManyIndexedDocumentsToItsEndWithoutCallingItDamaged()
    {
        final int documents = 200_000;   // Chronicle's sparse index takes an entry every 1,024: index arrays inline
        try (Journal journal = Journal.open(dir, Durability.ASYNC))
        {
            for (long i = 1; i <= documents; i++)
            {
                journal.stampAndAppend(TestCommands.transfer(i, "r"), CLOCK_START_NS + i);
            }
            final ReplayResult live = journal.replay(documents - 10, command -> { });
            assertEquals(ReplayStatus.COMPLETE, live.status(), live.toString());
        }
        final ReplayResult replay = replayAll();
        assertEquals(ReplayStatus.COMPLETE, replay.status(), replay.toString());
        assertEquals(documents, replay.lastIndex());
    }

    @Test
    void shouldCountTheBytesOfATornLastRecordAndSayWhereTheCutIs() throws Exception
    {
        appendForced(100);
        JournalFiles.corruptLastOccurrence(dir, "rec-0100");
        final long lastRecordBytes = lastDocumentBytes();

        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            final RecoveryReport recovery = journal.recovery();
            assertTrue(recovery.markerWritten());
            assertEquals(1, recovery.droppedRecordCount());
            assertEquals(lastRecordBytes, recovery.droppedBytes());
            assertTrue(recovery.describeCut().contains("after journal index 99"), recovery.describeCut());
            assertTrue(recovery.describeCut().contains(lastRecordBytes + " bytes"), recovery.describeCut());
        }
    }

    @Test
    void shouldRefuseToCutATornTailBelowAWitnessAndLeaveTheJournalAsItWas() throws Exception
    {
        appendForced(100);
        JournalFiles.corruptLastOccurrence(dir, "rec-0100");
        final byte[] before = Files.readAllBytes(cycleFile());

        final JournalCorruptedException refused = assertThrows(JournalCorruptedException.class,
            () -> Journal.open(JournalConfig.of(dir, Durability.SYNC), new EndWitness(100, "PostgreSQL's watermark")));
        assertTrue(refused.getMessage().contains("PostgreSQL's watermark holds journal index 100"), refused.getMessage());
        assertTrue(refused.getMessage().contains("cutting the 1 unreadable record"), refused.getMessage());
        assertArrayEquals(before, Files.readAllBytes(cycleFile()), "no recovery marker may be written");

        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.SYNC), new EndWitness(99, "the snapshot")))
        {
            assertTrue(journal.recovery().markerWritten(), "a witness at the last good record allows the cut");
            assertEquals(99, journal.lastIndex());
        }
    }

    @Test
    void shouldRefuseAnIntactJournalThatEndsBelowAWitness() throws Exception
    {
        appendForced(10);
        final JournalCorruptedException refused = assertThrows(JournalCorruptedException.class,
            () -> Journal.open(JournalConfig.of(dir, Durability.SYNC), new EndWitness(12, "the snapshot file s12")));
        assertTrue(refused.getMessage().contains("commands 11..12"), refused.getMessage());

        final ReplayResult checked = replayAll().checkedAgainst(new EndWitness(12, "the snapshot file s12"));
        assertEquals(ReplayStatus.CORRUPT, checked.status());
        assertEquals(ReplayStatus.COMPLETE, replayAll().checkedAgainst(new EndWitness(10, "the snapshot")).status());
    }

    /**
     * Damage older than the tail window is not what open checks (docs/JOURNAL.md, "Known limits"): the replay finds it,
     * and the server refuses to start on a replay that ends CORRUPT.
     */
    private void assertReplayFromTheStartCorruptAfterOpen()
    {
        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            assertEquals(RECORDS, journal.lastIndex());
            final ReplayResult replay = journal.replay(0, command -> { });
            assertEquals(ReplayStatus.CORRUPT, replay.status(), replay.toString());
        }
    }

    private void assertRefusedWithoutChange() throws Exception
    {
        final byte[] before = Files.readAllBytes(cycleFile());
        final JournalCorruptedException refused = assertThrows(JournalCorruptedException.class,
            () -> Journal.open(dir, Durability.SYNC));
        assertTrue(refused.getMessage().contains("past the last one it can read"), refused.getMessage());
        assertArrayEquals(before, Files.readAllBytes(cycleFile()), "a refused open must not write");
        assertFalse(replayAll().status() == ReplayStatus.COMPLETE);
    }

    /** Appends {@code count} one-record documents and forces them (at close: the damage tests need no force per record). */
    private void appendForced(final int count)
    {
        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            final long first = journal.lastIndex() + 1;
            for (long i = first; i < first + count; i++)
            {
                journal.stampAndAppend(TestCommands.transfer(i, String.format("rec-%04d", i)), CLOCK_START_NS + i);
            }
        }
    }

    private long lastDocumentBytes() throws Exception
    {
        final long[] headers = JournalFiles.documentHeaderPositions(dir);
        return JournalFiles.documentLength(cycleFile(), headers[headers.length - 1]);
    }

    private Path cycleFile() throws Exception
    {
        return JournalFiles.cycleFiles(dir).get(0);
    }

    private ReplayResult replayAll()
    {
        try (JournalReader reader = JournalReader.open(dir))
        {
            return reader.replay(0, command -> { });
        }
    }
}
