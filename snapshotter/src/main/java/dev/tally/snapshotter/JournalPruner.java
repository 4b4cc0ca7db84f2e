package dev.tally.snapshotter;

import dev.tally.journal.Durability;
import dev.tally.journal.Journal;
import dev.tally.journal.JournalCycleFile;
import dev.tally.journal.JournalReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Deletes journal cycle files that lie entirely before the oldest snapshot kept: file {@code i} may go
 * when the next file starts at or before {@code oldestSnapshotIndex}; the newest file never goes. Oldest
 * first. One record stricter than docs/JOURNAL.md's rule ({@code <= index + 1}): a restart reads the
 * snapshot's own record to check that the snapshot belongs to this journal, so that record must stay.
 *
 * <p>Only on request ({@code tally snapshot --prune-journal}, server stopped): by default Tally keeps the
 * whole journal, which is the audit trail and the only way to rebuild from scratch; archive the files
 * before pruning them.
 */
public final class JournalPruner
{
    private JournalPruner()
    {
    }

    /** @return the files deleted, oldest first. */
    public static List<Path> prune(final Path journalDir, final long oldestSnapshotIndex) throws IOException
    {
        final List<JournalCycleFile> files;
        try (JournalReader reader = JournalReader.open(journalDir))
        {
            files = reader.cycleFiles();
        }
        final List<Path> deleted = new ArrayList<>();
        for (int i = 0; i + 1 < files.size() && oldestSnapshotIndex > 0; i++)
        {
            final long nextFirst = files.get(i + 1).firstJournalIndex();
            if (nextFirst == 0 || nextFirst > oldestSnapshotIndex)
            {
                break;
            }
            Files.deleteIfExists(files.get(i).path());
            deleted.add(files.get(i).path());
        }
        if (!deleted.isEmpty())
        {
            // Chronicle's directory listing still names the deleted cycles until a writer reopens the
            // queue and refreshes it; read-only tools (tally replay) would fail until then.
            Journal.open(journalDir, Durability.ASYNC).close();
        }
        return deleted;
    }
}
