package dev.tally.persistence.writer;

import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.result.ResultCode;
import dev.tally.persistence.LedgerScenario;
import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.db.Database;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static dev.tally.persistence.writer.LedgerWriterConvergenceTest.testConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The writer takes a unit only once the journal holds its last command on stable storage
 * ({@link LedgerWriter#takeUnitsUpTo}): the business thread records a batch while the journaler is still forcing it,
 * and PostgreSQL must never get ahead of what a power loss leaves in the journal. Against a real embedded PostgreSQL.
 */
class StableIndexGateTest
{
    static PostgresFixture pg;

    @BeforeAll
    static void startPostgres()
    {
        pg = PostgresFixture.start(StableIndexGateTest.class);
    }

    @AfterAll
    static void stopPostgres()
    {
        pg.close();
    }

    @Test
    void shouldWriteUnitsOnlyUpToTheJournalsStableIndexAndTheRestOnceItMoves() throws Exception
    {
        final Database db = pg.newDatabase();
        final AtomicLong stable = new AtomicLong();
        try (LedgerWriter writer = LedgerWriter.create(db, testConfig()))
        {
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.takeUnitsUpTo(stable::get);
            writer.start();
            final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
            assertEquals(ResultCode.OK, s.createAccount(1, 1, false, 0).code);
            assertEquals(ResultCode.OK, s.createAccount(2, 1, true, 0).code);
            final long accountsIndex = s.ledger.lastJournalIndex();
            for (int i = 0; i < 10; i++)
            {
                assertEquals(ResultCode.OK, s.transfer(1, 2, 100 + i, null).code);
            }
            final long last = s.ledger.lastJournalIndex();

            stable.set(accountsIndex);   // the two accounts are forced, the transfers not yet
            assertTrue(writer.awaitWatermark(accountsIndex, Duration.ofSeconds(30)), "the stable units are written");
            Thread.sleep(300);   // several of the writer's batch intervals: it would have taken the transfers by now
            assertEquals(accountsIndex, writer.watermark(), "no unit past the stable index reached PostgreSQL");
            assertEquals(0, count(db, "SELECT count(*) FROM ledger_entries"));

            stable.set(last - 1);   // all but the last transfer
            assertTrue(writer.awaitWatermark(last - 1, Duration.ofSeconds(30)));
            Thread.sleep(300);
            assertEquals(last - 1, writer.watermark());
            assertEquals(18, count(db, "SELECT count(*) FROM ledger_entries"));

            stable.set(last);
            assertTrue(writer.awaitWatermark(last, Duration.ofSeconds(30)));
            assertEquals(20, count(db, "SELECT count(*) FROM ledger_entries"));
            assertNull(writer.failure());
        }
    }

    @Test
    void shouldTakeEveryUnitAtOnceWithoutAGate() throws Exception
    {
        final Database db = pg.newDatabase();
        try (LedgerWriter writer = LedgerWriter.create(db, testConfig()))
        {
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.start();
            final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
            s.createAccount(1, 1, false, 0);
            s.createAccount(2, 1, true, 0);
            s.transfer(1, 2, 100, null);
            assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(30)));
            assertEquals(2, count(db, "SELECT count(*) FROM ledger_entries"));
            assertFalse(writer.overLagBound());
        }
    }

    private static long count(final Database db, final String sql) throws Exception
    {
        try (var c = db.dataSource().getConnection(); var st = c.createStatement(); var rs = st.executeQuery(sql))
        {
            rs.next();
            return rs.getLong(1);
        }
    }
}
