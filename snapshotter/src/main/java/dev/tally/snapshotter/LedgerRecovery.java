package dev.tally.snapshotter;

import dev.tally.journal.EndWitness;
import dev.tally.journal.JournalCorruptedException;
import dev.tally.journal.ReplayResult;
import dev.tally.journal.ReplayStatus;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.image.StateImage;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restart = newest valid snapshot + replay of the journal after it. Candidates are tried newest first:
 * <ol>
 *   <li>skipped when its index is above {@code snapshotIndexMax} (PostgreSQL's watermark: the commands
 *   between it and the snapshot must be replayed for the read model to receive them);</li>
 *   <li>read and checked ({@link SnapshotFormat}): a corrupt or truncated file is set aside with a WARN
 *   and the previous one is tried;</li>
 *   <li>skipped when it was taken with another ledger configuration;</li>
 *   <li>restored, and its state hash compared with the one it was written with;</li>
 *   <li>matched against the journal: the record at the snapshot's index must exist and carry the
 *   snapshot's journaled time (a snapshot from another journal, or one whose journal tail was lost in a
 *   power cut, fails here);</li>
 *   <li>the journal after it is replayed into the restored ledger.</li>
 * </ol>
 * No valid snapshot: a full replay from the journal's start.
 *
 * <p>Where the replay ends is checked against the witnesses of how far the journal got ({@link EndWitness}: the newest
 * snapshot file, whether or not it was the start point, and what the caller adds, PostgreSQL's watermark): a replay that
 * ends below one read a damaged journal and ends {@link ReplayStatus#CORRUPT}.
 */
public final class LedgerRecovery
{
    private static final Logger LOG = LoggerFactory.getLogger(LedgerRecovery.class);

    private LedgerRecovery()
    {
    }

    /** What a caller does with a journal that ends {@link ReplayStatus#CORRUPT}. */
    public enum OnBrokenJournal
    {
        /** Refuse: a server must never serve part of the history ({@link JournalCorruptedException}). */
        REFUSE,
        /** Return what the replay rebuilt, with the CORRUPT result: a tool showing how far the journal reads. */
        REPORT
    }

    /**
     * {@link #recover(SnapshotDirectory, ReplaySource, LedgerConfig, long, EndWitness, OnBrokenJournal, BiConsumer)},
     * refusing a broken journal, with the snapshot folder's newest file as the only witness.
     */
    public static RecoveredLedger recover(
        final SnapshotDirectory snapshots, final ReplaySource journal, final LedgerConfig config, final long snapshotIndexMax,
        final BiConsumer<Ledger, Command> onApplied) throws IOException
    {
        return recover(snapshots, journal, config, snapshotIndexMax, EndWitness.NONE, OnBrokenJournal.REFUSE, onApplied);
    }

    /**
     * @param snapshots        the snapshot folder to start from, or null to replay the whole journal.
     * @param journal          the journal to replay.
     * @param config           the ledger's configuration.
     * @param snapshotIndexMax the newest snapshot index usable ({@code Long.MAX_VALUE}: any).
     * @param witness          what outside the journal holds the highest index (the newest snapshot of the data folder,
     *                         PostgreSQL's watermark); the newest file of {@code snapshots} is added to it.
     * @param onBroken         refuse a journal whose replay ends CORRUPT, or report it.
     * @param onApplied        called after each replayed command is applied (feeds the read model), and once more with
     *                         no command (null) for the empty unit of an atomic batch the journal ends inside.
     * @throws JournalCorruptedException with {@link OnBrokenJournal#REFUSE}, when the replay ends CORRUPT.
     */
    public static RecoveredLedger recover(
        final SnapshotDirectory snapshots, final ReplaySource journal, final LedgerConfig config, final long snapshotIndexMax,
        final EndWitness witness, final OnBrokenJournal onBroken, final BiConsumer<Ledger, Command> onApplied) throws IOException
    {
        final EndWitness highest = snapshots == null ? witness : witness.higher(RecoveryWitnesses.newestSnapshot(snapshots));
        if (snapshots != null)
        {
            final SnapshotFormat format = new SnapshotFormat();
            final StateImage image = new StateImage();
            for (final SnapshotDirectory.SnapshotFile file : snapshots.list())
            {
                if (file.journalIndex() > snapshotIndexMax)
                {
                    LOG.info("snapshot {} is past PostgreSQL's watermark {}: an older start point is needed", file.path(), snapshotIndexMax);
                    continue;
                }
                final RecoveredLedger recovered = tryFrom(snapshots, file, format, image, journal, config, highest, onBroken, onApplied);
                if (recovered != null)
                {
                    return recovered;
                }
            }
        }
        final long startNs = System.nanoTime();
        final Ledger ledger = new Ledger(config);
        final ReplayResult replay = journal.replay(0, command -> apply(ledger, command, onApplied)).checkedAgainst(highest);
        refuseBroken(replay, "a full replay", onBroken);
        final boolean insideBatch = ledger.isInsideBatch();
        endReplay(ledger, onApplied);
        return new RecoveredLedger(ledger, 0, null, replay, 0, (System.nanoTime() - startNs) / 1_000_000, insideBatch);
    }

    private static RecoveredLedger tryFrom(
        final SnapshotDirectory snapshots, final SnapshotDirectory.SnapshotFile file, final SnapshotFormat format,
        final StateImage image, final ReplaySource journal, final LedgerConfig config, final EndWitness witness,
        final OnBrokenJournal onBroken, final BiConsumer<Ledger, Command> onApplied) throws IOException
    {
        final long loadStartNs = System.nanoTime();
        LOG.info("loading snapshot {}", file.path());
        final SnapshotHeader header;
        try (FileChannel in = FileChannel.open(file.path(), StandardOpenOption.READ))
        {
            header = format.read(in, image);
        }
        catch (final SnapshotCorruptException ex)
        {
            LOG.warn("snapshot {} is corrupt ({}): set aside, trying the previous one", file.path(), ex.getMessage());
            snapshots.reject(file);
            return null;
        }
        SnapshotFaults.pause(SnapshotFaults.LOAD_PAUSE_MS);
        if (header.lastJournalIndex() != file.journalIndex() || header.lastJournalIndex() < 1)
        {
            LOG.warn("snapshot {} holds journal index {}, not the one its name says: set aside", file.path(), header.lastJournalIndex());
            snapshots.reject(file);
            return null;
        }
        if (!config.decidesLike(image.config()))
        {
            LOG.warn("snapshot {} was taken with ledger rules that decide otherwise ({}): skipped", file.path(), image.config());
            return null;
        }
        final boolean resized = !config.equals(image.config());
        if (resized && image.stateHash() != header.stateHash())
        {
            // other table sizes: checked on the image, before the restore keeps only what fits
            LOG.warn("snapshot {} holds state hash {}, written with {}: set aside", file.path(), StateDigest.hex(image.stateHash()),
                StateDigest.hex(header.stateHash()));
            snapshots.reject(file);
            return null;
        }
        final Ledger ledger;
        try
        {
            ledger = Ledger.restore(config, image);
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("snapshot {} does not restore ({}): set aside", file.path(), ex.toString());
            snapshots.reject(file);
            return null;
        }
        if (!resized && ledger.stateHash() != header.stateHash())
        {
            LOG.warn("snapshot {} restores to state hash {}, written with {}: set aside", file.path(),
                StateDigest.hex(ledger.stateHash()), StateDigest.hex(header.stateHash()));
            snapshots.reject(file);
            return null;
        }
        final long loadMs = (System.nanoTime() - loadStartNs) / 1_000_000;
        final long replayStartNs = System.nanoTime();
        final SnapshotAnchor anchor = new SnapshotAnchor(header);
        final ReplayResult replay;
        try
        {
            // From the index before the snapshot's, to see the record the snapshot was taken at.
            replay = journal.replay(header.lastJournalIndex() - 1, command ->
            {
                if (anchor.accept(command))
                {
                    apply(ledger, command, onApplied);
                }
            });
        }
        catch (final SnapshotAnchor.MismatchException ex)
        {
            LOG.warn("snapshot {} does not match the journal ({}): skipped", file.path(), ex.getMessage());
            return null;
        }
        if (!anchor.found())
        {
            LOG.warn("snapshot {} is at journal index {} but the journal ends before it: skipped", file.path(), header.lastJournalIndex());
            return null;
        }
        final ReplayResult checked = replay.checkedAgainst(witness);
        refuseBroken(checked, "the replay after snapshot " + file.path(), onBroken);
        final boolean insideBatch = ledger.isInsideBatch();
        endReplay(ledger, onApplied);
        return new RecoveredLedger(ledger, header.lastJournalIndex(), file.path(), checked, loadMs,
            (System.nanoTime() - replayStartNs) / 1_000_000, insideBatch);
    }

    /**
     * A journal with a gap (e.g. pruned below every usable snapshot), broken records, or an end below a witness must stop
     * the start: serving the state of part of the history would answer with wrong balances and append after a hole. A torn
     * tail is a crash artefact the journal cuts when opened for writing, not a reason to refuse.
     */
    private static void refuseBroken(final ReplayResult replay, final String what, final OnBrokenJournal onBroken)
    {
        if (replay.status() == ReplayStatus.CORRUPT && onBroken == OnBrokenJournal.REFUSE)
        {
            throw new JournalCorruptedException(what + " ended CORRUPT, refusing to start from part of the journal (" +
                replay.detail() + "). See docs/OPERATIONS.md, \"A damaged journal\"", replay);
        }
    }

    /**
     * Ends the replay; when that rolled back an atomic batch the journal ends inside, tells {@code onApplied} of its
     * (empty) unit, with no command, as of any unit completed: the PostgreSQL writer records it, so its watermark
     * covers the batch's indexes (without it, {@code tally verify} and a stop's wait for the writer would look for
     * a unit that never comes).
     */
    private static void endReplay(final Ledger ledger, final BiConsumer<Ledger, Command> onApplied)
    {
        if (ledger.endReplay())
        {
            onApplied.accept(ledger, null);
        }
    }

    private static void apply(final Ledger ledger, final Command command, final BiConsumer<Ledger, Command> onApplied)
    {
        ledger.apply(command);
        onApplied.accept(ledger, command);
    }
}
