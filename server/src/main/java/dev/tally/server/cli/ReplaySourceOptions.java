package dev.tally.server.cli;

import dev.tally.journal.EndWitness;
import dev.tally.snapshotter.RecoveryWitnesses;
import dev.tally.snapshotter.SnapshotDirectory;
import java.nio.file.Path;
import picocli.CommandLine;

/** Where an offline rebuild of the ledger reads from: the data folder, and whether to start at a snapshot. */
public final class ReplaySourceOptions
{
    @CommandLine.Option(names = "--data-dir", defaultValue = "data", description = "Folder holding the journal (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @CommandLine.Option(names = "--from-snapshot", description = "Start from the newest valid snapshot, then replay the journal after it.")
    boolean fromSnapshot;

    /** The command this mixin belongs to: it says so when the data folder is missing. */
    @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec command;

    /** @return true when {@code --data-dir} names a folder; otherwise the command's stderr says what is wrong. */
    boolean isDataFolder()
    {
        return TallyMain.isDataFolder(dataDir, command.commandLine());
    }

    Path journalDir()
    {
        return dataDir.resolve("journal");
    }

    /**
     * @return the newest snapshot file of the data folder, whether or not the replay starts from it: the journal must
     *         reach its index ({@link EndWitness}).
     */
    EndWitness snapshotWitness()
    {
        return RecoveryWitnesses.newestSnapshot(SnapshotDirectory.forReading(SnapshotDirectory.inDataDir(dataDir)));
    }

    /** @return the snapshots to start from, read-only (safe next to a running server), or null for a full replay. */
    SnapshotDirectory snapshots()
    {
        return fromSnapshot ? SnapshotDirectory.forReading(SnapshotDirectory.inDataDir(dataDir)) : null;
    }
}
