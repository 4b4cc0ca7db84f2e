package dev.tally.server.cli;

import dev.tally.journal.EndWitness;
import dev.tally.journal.JournalReader;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.persistence.db.DataFolderLock;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.db.EmbeddedDatabase;
import dev.tally.persistence.verify.Verifier;
import dev.tally.persistence.writer.EffectRecorder;
import dev.tally.persistence.writer.LedgerWriter;
import dev.tally.persistence.writer.WriterConfig;
import dev.tally.snapshotter.LedgerRecovery;
import dev.tally.snapshotter.RecoveredLedger;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/**
 * {@code tally verify}: rebuilds the ledger from the journal and compares it with the PostgreSQL read
 * model; exits 0 when they agree, 1 on any difference, 2 on an error. Run it with the server stopped: it locks the
 * data folder, as it starts the embedded PostgreSQL and catches the read model up (exit 75 while a server holds it).
 * A read model behind the journal (a crash before the writer caught up) is first caught up from the
 * journal, exactly as the next server start would, so the comparison is of converged states. With
 * {@code --from-snapshot} the ledger starts from the newest valid snapshot no newer than the read
 * model's watermark, as the server would.
 */
@CommandLine.Command(name = "verify", mixinStandardHelpOptions = true,
    description = "Compare the state rebuilt from the journal with PostgreSQL; exit non-zero on any difference.")
public final class VerifyCommand implements Callable<Integer>
{
    private static final long CATCH_UP_WAIT_MAX_NS = 120_000_000_000L;

    @CommandLine.Mixin
    ReplaySourceOptions source = new ReplaySourceOptions();

    @CommandLine.Option(names = "--db-url", description = "PostgreSQL JDBC URL (absent: the embedded database under the data folder).")
    String dbUrl;

    @CommandLine.Mixin
    LedgerOptions ledgerOptions = new LedgerOptions();

    @CommandLine.Mixin
    ConfigFileOption configFile = new ConfigFileOption();

    @Override
    public Integer call() throws Exception
    {
        if (!source.isDataFolder())
        {
            return TallyMain.EXIT_NO_DATA_FOLDER;   // before the lock, which would create it
        }
        return TallyMain.withDataFolderLock(source.dataDir, "tally verify", this::verify);
    }

    private int verify(final DataFolderLock lock) throws InterruptedException, java.io.IOException
    {
        final Ledger ledger;
        final LedgerConfig ledgerConfig = ledgerOptions.resolve(source.dataDir);   // before PostgreSQL starts: a refusal leaves nothing running
        // PostgreSQL that cannot be reached, or read, is status 2, like a comparison that cannot read it: never 1,
        // which says the two differ.
        final EmbeddedDatabase embedded;
        try
        {
            embedded = dbUrl == null ? EmbeddedDatabase.start(lock, source.dataDir.resolve("pg")) : null;
        }
        catch (final RuntimeException ex)
        {
            System.out.println("verify: ERROR the embedded PostgreSQL did not start: " + ex);
            return 2;
        }
        final Database connected;
        try
        {
            connected = embedded != null ? Database.connect(embedded) : Database.connect(dbUrl);
        }
        catch (final RuntimeException ex)
        {
            if (embedded != null)
            {
                embedded.close();
            }
            System.out.println("verify: ERROR cannot reach PostgreSQL: " + ex);
            return 2;
        }
        try (Database database = connected)
        {
            // The comparison is meaningful once the writer has caught up: feed it, as a server start would,
            // the effects of every journaled command past its watermark, then compare.
            final LedgerWriter writer;
            try
            {
                writer = LedgerWriter.create(database, WriterConfig.defaults());
            }
            catch (final RuntimeException ex)
            {
                System.out.println("verify: ERROR cannot read PostgreSQL's watermark: " + ex);
                return 2;
            }
            final long watermarkBefore = writer.watermark();
            final EffectRecorder recorder = writer.createRecorder(watermarkBefore);
            writer.start();
            try
            {
                try (JournalReader reader = JournalReader.open(source.journalDir()))
                {
                    final EndWitness witness = source.snapshotWitness()
                        .higher(new EndWitness(watermarkBefore, "PostgreSQL's watermark (the read model's last journal index)"));
                    final RecoveredLedger recovered = LedgerRecovery.recover(source.snapshots(), reader::replay, ledgerConfig,
                        watermarkBefore, witness, LedgerRecovery.OnBrokenJournal.REFUSE, (replayed, command) ->
                        {
                            if (replayed.isUnitComplete())
                            {
                                recorder.onUnit(replayed.effects());
                            }
                        });
                    ledger = recovered.ledger();
                    if (recovered.snapshotIndex() > 0)
                    {
                        System.out.println("verify: started from the snapshot at journal index " + recovered.snapshotIndex());
                    }
                }
                final long deadlineNs = System.nanoTime() + CATCH_UP_WAIT_MAX_NS;
                while (recorder.lagCommands() > 0 && writer.failure() == null && System.nanoTime() - deadlineNs < 0)
                {
                    Thread.sleep(5);
                }
            }
            finally
            {
                writer.close();
            }
            if (writer.failure() != null)
            {
                System.out.println("verify: ERROR the PostgreSQL writer failed while catching up: " + writer.failure());
                return 2;
            }
            if (writer.watermark() > watermarkBefore)
            {
                System.out.println("verify: PostgreSQL caught up from journal index " + watermarkBefore + " to " + writer.watermark());
            }
            return new Verifier(ledger, database.dataSource()).run(System.out);
        }
        finally
        {
            if (embedded != null)
            {
                embedded.close();
            }
        }
    }
}
