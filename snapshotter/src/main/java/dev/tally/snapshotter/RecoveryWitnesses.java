package dev.tally.snapshotter;

import dev.tally.journal.EndWitness;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The witnesses of how far the journal got that a data folder keeps beside it. A snapshot file gets its final name only
 * once it is whole on disk, and it is written only once its {@code SNAPSHOT} command is on stable storage
 * ({@link Snapshotter}): its name alone proves the journal held that index, even when its bytes were damaged since.
 */
public final class RecoveryWitnesses
{
    private RecoveryWitnesses()
    {
    }

    /** @return the newest snapshot file in {@code snapshots} as a witness; {@link EndWitness#NONE} when there is none. */
    public static EndWitness newestSnapshot(final SnapshotDirectory snapshots)
    {
        final List<SnapshotDirectory.SnapshotFile> files;
        try
        {
            files = snapshots.list();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot list the snapshots in " + snapshots.path(), ex);
        }
        return files.isEmpty() ? EndWitness.NONE :
            new EndWitness(files.get(0).journalIndex(), "the snapshot file " + files.get(0).path());
    }
}
