package dev.tally.persistence.writer;

import dev.tally.ledger.LedgerConfig;
import dev.tally.persistence.LedgerScenario;
import dev.tally.persistence.MixedWorkload;
import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.db.EmbeddedDatabase;
import dev.tally.persistence.verify.Verifier;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PostgreSQL stops while the ledger keeps serving: the writer retries with backoff, lag grows past the bound
 * (the gateway would answer 503), and once the server is back the writer catches up and converges.
 */
class DatabaseOutageTest
{
    @Test
    void shouldCatchUpAndConvergeAfterPostgresComesBack() throws Exception
    {
        final Path directory = Paths.get("target", "pg", DatabaseOutageTest.class.getSimpleName()).toAbsolutePath();
        PostgresFixture.deleteRecursively(directory);
        EmbeddedDatabase server = EmbeddedDatabase.start(directory, 0, false);
        final int port = server.port();
        final WriterConfig config = WriterConfig.defaults().withRing(1 << 22, 200).withBatch(500, 2).withWaits(60_000, 20, 200);
        try (Database db = Database.connect(server.jdbcUrl()))
        {
            db.migrate();
            try (LedgerWriter writer = LedgerWriter.create(db, config))
            {
                final EffectRecorder recorder = writer.createRecorder(writer.watermark());
                writer.start();
                final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
                MixedWorkload.run(s, 100);
                assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(30)));
                final long before = writer.watermark();

                server.close();   // PostgreSQL goes away; the ledger keeps applying commands
                for (int i = 0; i < 400; i++)
                {
                    s.transfer(1, 2, 1 + i, "outage-" + i);
                }
                Thread.sleep(500);
                assertEquals(before, writer.watermark(), "nothing committed while the server is down");
                assertEquals(s.ledger.lastJournalIndex() - before, writer.lagCommands());
                assertTrue(writer.overLagBound(), "lag beyond the bound of 200 commands: the gateway refuses writes");
                assertTrue(writer.batchRetries() > 0);
                assertNull(writer.failure(), "an outage is not a failure");

                server = EmbeddedDatabase.start(directory, port, false);
                assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(30)), "caught up");
                assertEquals(0, writer.lagCommands());
                assertFalse(writer.overLagBound());
                assertEquals(List.of(), new Verifier(s.ledger, db.dataSource()).verify().differences());
            }
        }
        finally
        {
            server.close();
        }
    }
}
