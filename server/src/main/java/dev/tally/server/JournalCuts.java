package dev.tally.server;

import dev.tally.pipeline.PipelineHealth;
import dev.tally.journal.Journal;
import dev.tally.journal.JournalCorruptedException;
import dev.tally.journal.RecoveryReport;
import dev.tally.journal.ReplayResult;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the start-up did to the journal's tail, said where an operator looks: a WARN in the log, {@code /health}, and the
 * {@code tally_journal_tail_cut_*} counters ({@code TallyMetrics}). A cut is normal after a crash only in what it drops:
 * records nobody was answered for. Anything it drops that a witness held is refused before it happens
 * ({@link Journal#open(dev.tally.journal.JournalConfig, dev.tally.journal.EndWitness)}).
 */
final class JournalCuts
{
    private static final Logger LOG = LoggerFactory.getLogger(JournalCuts.class);

    private JournalCuts()
    {
    }

    /** Logs a cut at WARN and shows it in {@code /health}; says nothing of a clean tail. */
    static void report(final RecoveryReport recovery, final Path journalDir, final PipelineHealth health)
    {
        if (!recovery.markerWritten())
        {
            return;
        }
        LOG.warn("journal {}: {}. A crash leaves such a tail (records no reply was sent for); the same cut on a journal that " +
            "was stopped cleanly means a damaged disk (docs/JOURNAL.md, \"What distinguishes a torn write from damage\")",
            journalDir, recovery.describeCut());
        health.journalTailCut(recovery.lastIndex(), recovery.droppedRecordCount(), recovery.droppedBytes(),
            recovery.droppedIntactRecordCount());
    }

    /**
     * The replay must reach where the journal's own tail scan says it ends: a replay that stops short read a journal
     * damaged before its tail (which the replay itself reports CORRUPT too; this holds whatever the damage looks like).
     */
    static void requireReplayReachedTheEnd(final ReplayResult replay, final Journal journal)
    {
        if (replay.lastIndex() != journal.lastIndex())
        {
            throw new JournalCorruptedException("the replay ended at journal index " + replay.lastIndex() + " but the journal's " +
                "tail in " + journal.directory() + " ends at " + journal.lastIndex() + ": the journal is damaged between them; " +
                "refusing to serve less than it holds (docs/OPERATIONS.md, \"A damaged journal\")", replay);
        }
    }
}
