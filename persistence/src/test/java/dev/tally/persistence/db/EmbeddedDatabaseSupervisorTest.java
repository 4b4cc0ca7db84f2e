package dev.tally.persistence.db;

import dev.tally.ledger.LedgerConfig;
import dev.tally.persistence.LedgerScenario;
import dev.tally.persistence.MixedWorkload;
import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.verify.Verifier;
import dev.tally.persistence.writer.EffectRecorder;
import dev.tally.persistence.writer.LedgerWriter;
import dev.tally.persistence.writer.WriterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedded PostgreSQL's postmaster is killed with SIGKILL while the writer commits batch after batch: the supervisor
 * sees it gone, says so, restarts it on the same port, and the writer, whose commits are synchronous, finds every batch it
 * committed still there and converges without a restart of anything else.
 */
class EmbeddedDatabaseSupervisorTest
{
    private static final long NOTICE_WAIT_MS = 5_000;
    private static final long RESTART_WAIT_MS = 30_000;

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void shouldRestartAKilledPostmasterAndLetTheWriterConverge() throws Exception
    {
        final Path directory = Paths.get("target", "pg", EmbeddedDatabaseSupervisorTest.class.getSimpleName()).toAbsolutePath();
        PostgresFixture.deleteRecursively(directory);
        final WriterConfig config = WriterConfig.defaults().withRing(1 << 22, 100_000).withBatch(500, 2).withWaits(60_000, 20, 200);
        try (EmbeddedDatabase server = EmbeddedDatabase.start(directory, 0, false);
             EmbeddedDatabaseSupervisor supervisor = EmbeddedDatabaseSupervisor.start(server);
             Database db = Database.connect(server.jdbcUrl()))
        {
            db.migrate();
            final int port = server.port();
            try (LedgerWriter writer = LedgerWriter.create(db, config))
            {
                final EffectRecorder recorder = writer.createRecorder(writer.watermark());
                writer.start();
                final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
                MixedWorkload.run(s, 100);
                int transfers = 0;
                while (writer.batchesCommitted() < 20)   // the writer commits every 2 ms while transfers come in
                {
                    s.transfer(1, 2, 1 + transfers, "before-" + transfers++);
                    Thread.sleep(0, 200_000);
                }
                assertTrue(supervisor.isUp());
                assertNull(supervisor.downReason());

                final long killedPid = server.postmasterPid();
                ProcessHandle.of(killedPid).orElseThrow().destroyForcibly();   // SIGKILL, as kill -9

                final long noticeDeadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(NOTICE_WAIT_MS);
                String downReason = supervisor.downReason();
                while (downReason == null && supervisor.restarts() == 0)
                {
                    assertTrue(System.nanoTime() < noticeDeadlineNs, "the supervisor saw the death within " + NOTICE_WAIT_MS + " ms");
                    s.transfer(1, 2, 1 + transfers, "outage-" + transfers++);   // the ledger goes on
                    Thread.sleep(5);
                    downReason = supervisor.downReason();
                }
                assertTrue(downReason == null || downReason.contains("embedded PostgreSQL is down"), downReason);

                final long restartDeadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RESTART_WAIT_MS);
                while (!supervisor.isUp())
                {
                    assertTrue(System.nanoTime() < restartDeadlineNs, "restarted within " + RESTART_WAIT_MS + " ms");
                    s.transfer(1, 2, 1 + transfers, "outage-" + transfers++);
                    Thread.sleep(5);
                }
                assertEquals(1, supervisor.deaths());
                assertEquals(1, supervisor.restarts());
                assertNotEquals(killedPid, server.postmasterPid(), "a new postmaster");
                assertEquals(port, server.port(), "on the same port: the pool's and the writer's URLs stay valid");
                for (int i = 0; i < 200; i++)
                {
                    s.transfer(1, 2, 1 + transfers, "after-" + transfers++);
                }

                assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(30)),
                    "the writer caught up; failure: " + writer.failure());
                assertNull(writer.failure(), "no commit the writer took as done was lost with the postmaster");
                assertEquals(List.of(), new Verifier(s.ledger, db.dataSource()).verify().differences());
                try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
                     ResultSet rs = st.executeQuery("SELECT 1"))
                {
                    assertTrue(rs.next(), "the pool reconnected");
                }
            }
        }
    }
}
