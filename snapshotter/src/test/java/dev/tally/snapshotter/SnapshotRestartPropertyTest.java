package dev.tally.snapshotter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.journal.JournalReader;
import dev.tally.journal.ReplayStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The snapshot property on disk: random command streams go through a real journal; snapshots are taken
 * at journaled SNAPSHOT commands and written as files; then a restart (newest valid snapshot + replay of
 * the journal after it) must rebuild the live ledger's exact state, agree with a full replay, and behave
 * exactly like the live ledger on every command that follows (results, ids, expiries, idempotent replays).
 */
class SnapshotRestartPropertyTest
{
    @Property(tries = 12)
    void shouldRestartFromNewestSnapshotIntoTheUninterruptedState(
        @ForAll final long seed, @ForAll @IntRange(min = 50, max = 1_500) final int units,
        @ForAll @IntRange(min = 1, max = 5) final int snapshotPercent) throws Exception
    {
        final Path dataDir = Files.createTempDirectory("tally-snapshot-property");
        try (JournaledRun run = new JournaledRun(dataDir, seed, snapshotPercent))
        {
            run.run(units);
            final List<SnapshotDirectory.SnapshotFile> files = run.snapshots.list();
            assertTrue(files.size() <= 3, "retention keeps 3 snapshots, found " + files.size());

            final RecoveredLedger restarted;
            final RecoveredLedger replayed;
            try (JournalReader reader = JournalReader.open(dataDir.resolve("journal")))
            {
                restarted = LedgerRecovery.recover(run.snapshots, reader::replay, Workload.CONFIG, Long.MAX_VALUE, (l, c) -> { });
                replayed = LedgerRecovery.recover(null, reader::replay, Workload.CONFIG, Long.MAX_VALUE, (l, c) -> { });
            }
            assertEquals(files.isEmpty() ? 0 : files.get(0).journalIndex(), restarted.snapshotIndex(), "started from the newest snapshot");
            assertEquals(ReplayStatus.COMPLETE, restarted.replay().status());
            assertEquals(run.ledger.stateHash(), replayed.ledger().stateHash(), "full replay");
            assertEquals(run.ledger.stateHash(), restarted.ledger().stateHash(), "snapshot + replay");
            assertEquals(run.ledger.commandsApplied(), restarted.ledger().commandsApplied());
            assertEquals(run.ledger.transfersPosted(), restarted.ledger().transfersPosted());

            run.runInLockstep(300, restarted.ledger());
        }
        finally
        {
            TestFiles.deleteTree(dataDir);
        }
    }
}
