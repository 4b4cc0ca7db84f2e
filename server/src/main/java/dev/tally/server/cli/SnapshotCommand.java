package dev.tally.server.cli;

import dev.tally.journal.JournalReader;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.image.StateImage;
import dev.tally.persistence.db.DataFolderLock;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.db.EmbeddedDatabase;
import dev.tally.persistence.read.LedgerReads;
import dev.tally.ledger.LedgerConfig;
import dev.tally.snapshotter.JournalPruner;
import dev.tally.snapshotter.LedgerRecovery;
import dev.tally.snapshotter.RecoveredLedger;
import dev.tally.snapshotter.SnapshotDirectory;
import dev.tally.snapshotter.SnapshotFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/**
 * {@code tally snapshot}: takes a snapshot offline. Rebuilds the ledger (from the newest valid snapshot
 * and the journal after it), then writes a snapshot at the journal's last index, exactly as the server's
 * snapshotter would: the next {@code tally serve} starts from it. Exits 3 without writing when the
 * journal ends inside a batch (a crash the server has not yet settled): a snapshot there could hold half a unit
 * the server will complete differently. It writes into the data folder, so it locks it: next to a running
 * server it exits 75 without reading anything (ask the server instead: {@code POST /admin/snapshot}).
 */
@CommandLine.Command(name = "snapshot", mixinStandardHelpOptions = true,
    description = "Replay the journal offline and write a snapshot at its last index.")
public final class SnapshotCommand implements Callable<Integer>
{
    @CommandLine.Option(names = "--data-dir", defaultValue = "data", description = "Folder holding the journal (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @CommandLine.Mixin
    SnapshotRetention retention = new SnapshotRetention();

    @CommandLine.Option(names = "--db-url",
        description = "JDBC URL of the read model, for --prune-journal's check (absent: the embedded one under the data folder, if any).")
    String dbUrl;

    @CommandLine.Option(names = "--prune-journal",
        description = "Then delete journal cycle files entirely before the oldest snapshot kept. Server stopped; archive them first.")
    boolean pruneJournal;

    @CommandLine.Mixin
    LedgerOptions ledgerOptions = new LedgerOptions();

    /** The server's capacity flags matter here (a snapshot records them): read them from the same file as serve. */
    @CommandLine.Mixin
    ConfigFileOption configFile = new ConfigFileOption();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception
    {
        if (!TallyMain.isDataFolder(dataDir, spec.commandLine()))
        {
            return TallyMain.EXIT_NO_DATA_FOLDER;   // before the lock, which would create it
        }
        return TallyMain.withDataFolderLock(dataDir, "tally snapshot", this::snapshot);
    }

    private int snapshot(final DataFolderLock lock) throws IOException
    {
        final long startNs = System.nanoTime();
        final LedgerConfig rules = ledgerOptions.resolve(dataDir);   // first: a refusal leaves nothing started
        final SnapshotDirectory snapshots = SnapshotDirectory.open(SnapshotDirectory.inDataDir(dataDir), retention.retainCount);
        // Retention, like the server's, keeps the newest snapshot the next start may load (none past the watermark).
        final long watermark = watermarkForRetention(lock);
        snapshots.keepOneUpTo(() -> watermark < 0 ? Long.MAX_VALUE : watermark);
        final Path journalDir = dataDir.resolve("journal");
        final RecoveredLedger recovered;
        try (JournalReader reader = JournalReader.open(journalDir))
        {
            recovered = LedgerRecovery.recover(snapshots, reader::replay, rules, Long.MAX_VALUE, (l, c) -> { });
        }
        final Ledger ledger = recovered.ledger();
        if (recovered.endedInsideBatch())
        {
            System.out.println("snapshot: NOT TAKEN, the journal ends inside a batch at index " + ledger.lastJournalIndex() +
                " (a server crashed mid-batch and has not restarted yet)");
            return 3;
        }
        if (ledger.lastJournalIndex() == 0)
        {
            System.out.println("snapshot: nothing to take, the journal is empty");
            return 0;
        }
        final Path file;
        if (Files.exists(snapshots.fileFor(ledger.lastJournalIndex())))
        {
            file = snapshots.fileFor(ledger.lastJournalIndex());
            System.out.println("snapshot: already taken at journal index " + ledger.lastJournalIndex() + ": " + file);
        }
        else
        {
            final StateImage image = new StateImage();
            ledger.copyTo(image);
            final long stateHash = image.stateHash();
            file = snapshots.write(image, stateHash, new SnapshotFormat());
            System.out.printf("snapshot: journal index %d, state hash %s, %d bytes, %s (%d ms, from index %d)%n",
                ledger.lastJournalIndex(), StateDigest.hex(stateHash), Files.size(file), file, (System.nanoTime() - startNs) / 1_000_000,
                recovered.snapshotIndex());
        }
        if (pruneJournal)
        {
            if (watermarkUnknown)
            {
                System.out.println("snapshot: journal NOT pruned: PostgreSQL's watermark could not be read");
                return 4;
            }
            if (watermark >= 0 && watermark < snapshots.oldestIndex())
            {
                // The next start may only use a snapshot at or below PostgreSQL's watermark (the commands
                // after it must be replayed for the read model); none is, so it would replay from the start.
                System.out.println("snapshot: journal NOT pruned: PostgreSQL's watermark " + watermark + " is below the oldest " +
                    "snapshot kept (" + snapshots.oldestIndex() + "); start the server once so that the writer catches up, then prune");
                return 4;
            }
            final List<Path> deleted = JournalPruner.prune(journalDir, snapshots.oldestIndex());
            System.out.println("snapshot: pruned " + deleted.size() + " journal file(s) before journal index " + snapshots.oldestIndex() +
                (deleted.isEmpty() ? "" : ": " + deleted));
        }
        return 0;
    }

    /** The read model has a watermark that could not be read: nothing may be pruned. */
    private boolean watermarkUnknown;

    /**
     * @return {@link #readModelWatermark}, or -1 (plain retention, a warning) when PostgreSQL cannot be read: a
     *         snapshot is still worth taking with the database down.
     */
    private long watermarkForRetention(final DataFolderLock lock)
    {
        try
        {
            return readModelWatermark(lock);
        }
        catch (final IOException | RuntimeException ex)
        {
            watermarkUnknown = true;
            System.out.println("snapshot: WARNING " + ex.getMessage() + "; retention keeps the newest " + retention.retainCount +
                " snapshots only, and the journal is not pruned");
            return -1;
        }
    }

    /**
     * @return PostgreSQL's watermark when this data folder has a read model ({@code --db-url}, or the embedded
     * database under {@code pg/}), else -1.
     */
    private long readModelWatermark(final DataFolderLock lock) throws IOException
    {
        final boolean embedded = dbUrl == null && Files.isDirectory(dataDir.resolve("pg"));
        if (dbUrl == null && !embedded)
        {
            return -1;
        }
        final EmbeddedDatabase pg = embedded ? EmbeddedDatabase.start(lock, dataDir.resolve("pg")) : null;
        try (Database database = pg != null ? Database.connect(pg) : Database.connect(dbUrl))
        {
            return new LedgerReads(database.dataSource()).watermark();
        }
        catch (final java.sql.SQLException ex)
        {
            throw new IOException("cannot read PostgreSQL's watermark: " + ex.getMessage(), ex);
        }
        finally
        {
            if (pg != null)
            {
                pg.close();
            }
        }
    }
}
