package dev.tally.snapshotter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.journal.Journal;
import dev.tally.journal.JournalCorruptedException;
import dev.tally.journal.JournalReader;
import dev.tally.journal.RollingJournal;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.image.StateImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.openhft.chronicle.core.time.SetTimeProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Journal pruning on a real journal with two hourly cycle files: what it deletes, that a restart from the
 * oldest snapshot still works after it, and that no restart serves a state without its history.
 */
class JournalPrunerTest
{
    private static final long HOUR_MS = 3_600_000L;
    private static final int RECORDS_PER_FILE = 100;

    @TempDir
    Path dataDir;

    private final SetTimeProvider rollClock = new SetTimeProvider((System.currentTimeMillis() - 3 * HOUR_MS) * 1_000_000L);
    private final Ledger ledger = new Ledger(Workload.CONFIG);
    private long timeNs = Workload.START_NS;

    @Test
    void shouldKeepTheFileHoldingTheOldestSnapshotsOwnRecord() throws Exception
    {
        final Path journalDir = dataDir.resolve("journal");
        final SnapshotDirectory snapshots = SnapshotDirectory.open(dataDir.resolve("snapshots"), 3);
        try (Journal journal = RollingJournal.open(journalDir, rollClock))
        {
            ticks(journal, RECORDS_PER_FILE);
            snapshot(snapshots);                       // index 100: the LAST record of the first file
            rollClock.advanceMillis(HOUR_MS);
            ticks(journal, RECORDS_PER_FILE);
        }

        assertEquals(List.of(), JournalPruner.prune(journalDir, snapshots.oldestIndex()),
            "the first file holds record 100, which restart reads to anchor the snapshot");
        assertRestartMatches(journalDir, snapshots, RECORDS_PER_FILE);
    }

    @Test
    void shouldDeleteFilesBeforeTheSnapshotAndLeaveTheReadOnlyToolsWorking() throws Exception
    {
        final Path journalDir = dataDir.resolve("journal");
        final SnapshotDirectory snapshots = twoFilesWithASnapshotInsideTheSecond(journalDir);

        final List<Path> deleted = JournalPruner.prune(journalDir, snapshots.oldestIndex());

        assertEquals(1, deleted.size(), "the first file lies wholly before the snapshot");
        assertTrue(Files.notExists(deleted.get(0)));
        assertRestartMatches(journalDir, snapshots, 150);
    }

    @Test
    void shouldRefuseAFullReplayOfAPrunedJournalRatherThanStartEmpty() throws Exception
    {
        final Path journalDir = dataDir.resolve("journal");
        final SnapshotDirectory snapshots = twoFilesWithASnapshotInsideTheSecond(journalDir);
        JournalPruner.prune(journalDir, snapshots.oldestIndex());

        try (JournalReader reader = JournalReader.open(journalDir))
        {
            // No snapshot usable (e.g. all newer than PostgreSQL's watermark): the journal lacks its start.
            final JournalCorruptedException refused = assertThrows(JournalCorruptedException.class,
                () -> LedgerRecovery.recover(snapshots, reader::replay, Workload.CONFIG, 1, (l, c) -> { }));
            assertTrue(refused.getMessage().contains("CORRUPT"), refused.getMessage());
        }
    }

    /** Records 1..100 in one hourly file, 101..200 in the next, a snapshot at 150. */
    private SnapshotDirectory twoFilesWithASnapshotInsideTheSecond(final Path journalDir) throws Exception
    {
        final SnapshotDirectory snapshots = SnapshotDirectory.open(dataDir.resolve("snapshots"), 3);
        try (Journal journal = RollingJournal.open(journalDir, rollClock))
        {
            ticks(journal, RECORDS_PER_FILE);
            rollClock.advanceMillis(HOUR_MS);
            ticks(journal, RECORDS_PER_FILE / 2);
            snapshot(snapshots);
            ticks(journal, RECORDS_PER_FILE / 2);
        }
        return snapshots;
    }

    private void assertRestartMatches(final Path journalDir, final SnapshotDirectory snapshots, final long expectedSnapshotIndex)
        throws Exception
    {
        try (JournalReader reader = JournalReader.open(journalDir))
        {
            final RecoveredLedger recovered = LedgerRecovery.recover(snapshots, reader::replay, Workload.CONFIG, Long.MAX_VALUE, (l, c) -> { });
            assertEquals(expectedSnapshotIndex, recovered.snapshotIndex(), "restarted from the snapshot");
            assertEquals(2L * RECORDS_PER_FILE, recovered.ledger().lastJournalIndex());
            assertEquals(ledger.stateHash(), recovered.ledger().stateHash());
        }
    }

    private void ticks(final Journal journal, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            final Command tick = new Command();
            tick.type = CommandType.TICK;
            journal.stampAndAppend(tick, timeNs += 1_000_000);
            ledger.apply(tick);
            journal.endOfBatch();
        }
    }

    private void snapshot(final SnapshotDirectory snapshots) throws Exception
    {
        final StateImage image = new StateImage();
        ledger.copyTo(image);
        snapshots.write(image, image.stateHash(), new SnapshotFormat());
    }
}
