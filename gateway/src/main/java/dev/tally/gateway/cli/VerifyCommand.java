package dev.tally.gateway.cli;

import dev.tally.journal.JournalReader;
import dev.tally.ledger.Ledger;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.db.EmbeddedDatabase;
import dev.tally.persistence.verify.Verifier;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/**
 * {@code tally verify}: rebuilds the ledger from the journal and compares it with the PostgreSQL read
 * model; exits 0 when they agree, 1 on any difference, 2 on an error. Run it with the server stopped
 * (a clean stop drains the writer): a read model behind the journal is reported as a difference.
 */
@CommandLine.Command(name = "verify", mixinStandardHelpOptions = true,
    description = "Compare the state rebuilt from the journal with PostgreSQL; exit non-zero on any difference.")
public final class VerifyCommand implements Callable<Integer>
{
    @CommandLine.Option(names = "--data-dir", defaultValue = "data", description = "Folder holding the journal (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @CommandLine.Option(names = "--db-url", description = "PostgreSQL JDBC URL (absent: the embedded database under the data folder).")
    String dbUrl;

    @CommandLine.Mixin
    LedgerOptions ledgerOptions = new LedgerOptions();

    @Override
    public Integer call()
    {
        final Ledger ledger = new Ledger(ledgerOptions.toConfig());
        try (JournalReader reader = JournalReader.open(dataDir.resolve("journal")))
        {
            reader.replay(0, ledger::apply);
        }
        ledger.endReplay();
        final EmbeddedDatabase embedded = dbUrl == null ? EmbeddedDatabase.start(dataDir.resolve("pg")) : null;
        try (Database database = embedded != null ? Database.connect(embedded) : Database.connect(dbUrl))
        {
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
