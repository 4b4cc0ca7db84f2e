package dev.tally.snapshotter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.journal.EndWitness;
import dev.tally.journal.JournalCorruptedException;
import dev.tally.journal.JournalReader;
import dev.tally.journal.ReplayStatus;
import dev.tally.ledger.Ledger;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Choosing the restart point on a real journal: the newest valid snapshot, else the previous, else a full replay. */
class LedgerRecoveryTest
{
    @TempDir
    Path dataDir;

    private JournaledRun run;
    private List<SnapshotDirectory.SnapshotFile> files;

    @BeforeEach
    void runWithSnapshots() throws IOException
    {
        run = new JournaledRun(dataDir, 11, 3);
        run.run(1_000);
        run.close();
        files = run.snapshots.list();
        assertEquals(3, files.size(), "three snapshots kept");
    }

    @Test
    void shouldStartFromTheNewestSnapshot() throws IOException
    {
        final RecoveredLedger recovered = recover(Long.MAX_VALUE);
        assertEquals(files.get(0).journalIndex(), recovered.snapshotIndex());
        assertEquals(run.ledger.stateHash(), recovered.ledger().stateHash());
    }

    @Test
    void shouldFallBackToThePreviousSnapshotWhenTheNewestHasAFlippedByte() throws IOException
    {
        flipByte(files.get(0).path(), Files.size(files.get(0).path()) / 2);
        final RecoveredLedger recovered = recover(Long.MAX_VALUE);
        assertEquals(files.get(1).journalIndex(), recovered.snapshotIndex());
        assertEquals(run.ledger.stateHash(), recovered.ledger().stateHash());
        assertFalse(Files.exists(files.get(0).path()), "the corrupt snapshot is set aside");
        assertTrue(Files.exists(files.get(0).path().resolveSibling(files.get(0).path().getFileName() + ".rejected")));
    }

    @Test
    void shouldFallBackToThePreviousSnapshotWhenTheNewestIsTruncated() throws IOException
    {
        truncate(files.get(0).path(), Files.size(files.get(0).path()) - 100);
        final RecoveredLedger recovered = recover(Long.MAX_VALUE);
        assertEquals(files.get(1).journalIndex(), recovered.snapshotIndex());
        assertEquals(run.ledger.stateHash(), recovered.ledger().stateHash());
    }

    @Test
    void shouldReplayTheWholeJournalWhenNoSnapshotIsValid() throws IOException
    {
        for (final SnapshotDirectory.SnapshotFile file : files)
        {
            truncate(file.path(), 10);
        }
        final RecoveredLedger recovered = recover(Long.MAX_VALUE);
        assertEquals(0, recovered.snapshotIndex());
        assertEquals(run.ledger.stateHash(), recovered.ledger().stateHash());
    }

    @Test
    void shouldStartNoLaterThanTheReadModelsWatermark() throws IOException
    {
        final RecoveredLedger recovered = recover(files.get(1).journalIndex());
        assertEquals(files.get(1).journalIndex(), recovered.snapshotIndex());
        assertEquals(run.ledger.stateHash(), recovered.ledger().stateHash());
        assertEquals(0, recover(files.get(2).journalIndex() - 1).snapshotIndex(), "older than every snapshot: full replay");
    }

    @Test
    void shouldSkipASnapshotOfAnotherJournal() throws IOException
    {
        // Another run from another seed: the same indexes, other commands and times.
        final Path other = dataDir.resolve("other");
        final JournaledRun otherRun = new JournaledRun(other, 12, 0);
        otherRun.run(1_000);
        otherRun.close();
        final SnapshotDirectory snapshots = SnapshotDirectory.open(dataDir.resolve("snapshots"), 3);
        final RecoveredLedger recovered;
        try (JournalReader reader = JournalReader.open(other.resolve("journal")))
        {
            recovered = LedgerRecovery.recover(snapshots, reader::replay, Workload.CONFIG, Long.MAX_VALUE, (l, c) -> { });
        }
        assertEquals(0, recovered.snapshotIndex());
        assertEquals(otherRun.ledger.stateHash(), recovered.ledger().stateHash());
    }

    @Test
    void shouldRefuseAJournalThatEndsBeforeTheNewestSnapshotAsIfRestoredFromAnOldCopy() throws IOException
    {
        final Path oldCopy = dataDir.resolve("old-copy");
        final JournaledRun shorter = new JournaledRun(oldCopy, 11, 0);   // the same workload, stopped early
        shorter.run(100);
        shorter.close();
        final SnapshotDirectory snapshots = SnapshotDirectory.open(dataDir.resolve("snapshots"), 3);
        try (JournalReader reader = JournalReader.open(oldCopy.resolve("journal")))
        {
            final JournalCorruptedException refused = assertThrows(JournalCorruptedException.class,
                () -> LedgerRecovery.recover(snapshots, reader::replay, Workload.CONFIG, Long.MAX_VALUE, (l, c) -> { }));
            assertTrue(refused.getMessage().contains("the snapshot file " + files.get(0).path() + " holds journal index " +
                files.get(0).journalIndex()), refused.getMessage());

            final RecoveredLedger reported = LedgerRecovery.recover(null, reader::replay, Workload.CONFIG, Long.MAX_VALUE,
                RecoveryWitnesses.newestSnapshot(snapshots), LedgerRecovery.OnBrokenJournal.REPORT, (l, c) -> { });
            assertEquals(ReplayStatus.CORRUPT, reported.replay().status(), "a tool reports how far the journal reads");
            assertEquals(shorter.ledger.stateHash(), reported.ledger().stateHash());
        }
    }

    @Test
    void shouldRefuseAJournalThatEndsBelowPostgresqlsWatermark() throws IOException
    {
        try (JournalReader reader = JournalReader.open(dataDir.resolve("journal")))
        {
            final long end = run.ledger.lastJournalIndex();
            final JournalCorruptedException refused = assertThrows(JournalCorruptedException.class,
                () -> LedgerRecovery.recover(run.snapshots, reader::replay, Workload.CONFIG, Long.MAX_VALUE,
                    new EndWitness(end + 3, "PostgreSQL's watermark"), LedgerRecovery.OnBrokenJournal.REFUSE, (l, c) -> { }));
            assertTrue(refused.getMessage().contains("commands " + (end + 1) + ".." + (end + 3)), refused.getMessage());
            assertEquals(ReplayStatus.COMPLETE, LedgerRecovery.recover(run.snapshots, reader::replay, Workload.CONFIG, Long.MAX_VALUE,
                new EndWitness(end, "PostgreSQL's watermark"), LedgerRecovery.OnBrokenJournal.REFUSE, (l, c) -> { }).replay().status());
        }
    }

    @Test
    void shouldFeedEveryReplayedCommandToTheListener() throws IOException
    {
        final long[] count = new long[1];
        final RecoveredLedger recovered;
        try (JournalReader reader = JournalReader.open(dataDir.resolve("journal")))
        {
            recovered = LedgerRecovery.recover(run.snapshots, reader::replay, Workload.CONFIG, Long.MAX_VALUE,
                (Ledger l, dev.tally.ledger.command.Command c) -> count[0]++);
        }
        assertEquals(run.ledger.lastJournalIndex() - recovered.snapshotIndex(), count[0]);
    }

    private RecoveredLedger recover(final long snapshotIndexMax) throws IOException
    {
        try (JournalReader reader = JournalReader.open(dataDir.resolve("journal")))
        {
            return LedgerRecovery.recover(SnapshotDirectory.open(dataDir.resolve("snapshots"), 3), reader::replay, Workload.CONFIG,
                snapshotIndexMax, (l, c) -> { });
        }
    }

    private static void flipByte(final Path file, final long at) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.seek(at);
            final int b = raf.read();
            raf.seek(at);
            raf.write(b ^ 0x01);
        }
    }

    private static void truncate(final Path file, final long length) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.setLength(length);
        }
    }
}
