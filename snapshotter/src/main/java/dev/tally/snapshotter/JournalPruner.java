package dev.tally.snapshotter;

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
 * when the next file starts at or before {@code oldestSnapshotIndex} (the snapshot's own record stays:
 * restart checks the snapshot against it); the newest file never goes
 * (docs/JOURNAL.md, "Retention"). Oldest first. Only on request ({@code tally snapshot --prune-journal},
 * server stopped): by default Tally keeps the whole journal, which is the audit trail and the only way to
 * rebuild from scratch; archive the files before pruning them.
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
            // Keep the file holding the snapshot's own record: restart reads it to check the snapshot
            // belongs to this journal (LedgerRecovery). File i may go only when the next one starts at or
            // before the snapshot's index.
            if (nextFirst == 0 || nextFirst > oldestSnapshotIndex)
            {
                break;
            }
            Files.deleteIfExists(files.get(i).path());
            deleted.add(files.get(i).path());
        }
        if (!deleted.isEmpty())
        {
            Journal.forgetDeletedCycleFiles(journalDir);
        }
        return deleted;
    }
}
