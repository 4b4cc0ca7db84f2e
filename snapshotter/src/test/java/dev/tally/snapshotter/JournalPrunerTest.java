package dev.tally.snapshotter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.journal.JournalCycleFile;
import dev.tally.journal.JournalReader;
import dev.tally.journal.ReplayStatus;
import dev.tally.journal.RollingJournals;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.openhft.chronicle.core.time.SetTimeProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Journal retention by request: three hourly files, snapshots in the later ones, prune, restart. */
class JournalPrunerTest
{
    private static final long HOUR_MS = 3_600_000L;

    @TempDir
    Path dataDir;

    @Test
    void shouldDeleteOnlyFilesBeforeTheOldestSnapshotAndStillRestartFromIt() throws Exception
    {
        final SetTimeProvider rollClock = new SetTimeProvider((System.currentTimeMillis() - 4 * HOUR_MS) * 1_000_000L);
        final JournaledRun run = new JournaledRun(dataDir, 21, 0, RollingJournals.open(dataDir.resolve("journal"), rollClock));
        run.run(300);
        rollClock.advanceMillis(HOUR_MS);
        run.run(300);
        rollClock.advanceMillis(HOUR_MS);
        // Two snapshots in the third hour only: the first two files lie entirely before them.
        run.run(50);
        run.snapshotAtNextIndex();
        run.run(50);
        run.snapshotAtNextIndex();
        run.run(50);
        run.close();
        assertEquals(3, cycleFiles().size(), "three hourly files");
        final long oldest = run.snapshots.oldestIndex();
        assertTrue(oldest >= cycleFiles().get(2).firstJournalIndex(), "the snapshots are in the third file");

        final List<Path> deleted = JournalPruner.prune(dataDir.resolve("journal"), oldest);

        assertEquals(2, deleted.size(), deleted.toString());
        for (final Path file : deleted)
        {
            assertFalse(Files.exists(file));
        }
        assertTrue(cycleFiles().get(0).firstJournalIndex() <= oldest, "the oldest snapshot's own record is kept");
        try (JournalReader reader = JournalReader.open(dataDir.resolve("journal")))
        {
            final RecoveredLedger restarted = LedgerRecovery.recover(SnapshotDirectory.open(dataDir.resolve("snapshots"), 3),
                reader::replay, Workload.CONFIG, Long.MAX_VALUE, (l, c) -> { });
            assertEquals(run.ledger.stateHash(), restarted.ledger().stateHash());
            assertEquals(ReplayStatus.CORRUPT, reader.replay(0, c -> { }).status(), "the history before the snapshots is gone");
        }
    }

    private List<JournalCycleFile> cycleFiles()
    {
        try (JournalReader reader = JournalReader.open(dataDir.resolve("journal")))
        {
            return reader.cycleFiles();
        }
    }
}
