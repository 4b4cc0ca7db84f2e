package dev.tally.persistence.writer;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.persistence.LedgerScenario;
import dev.tally.persistence.MixedWorkload;
import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.verify.Verifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.tally.persistence.writer.LedgerWriterConvergenceTest.one;
import static dev.tally.persistence.writer.LedgerWriterConvergenceTest.testConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A restart replays the journal: PostgreSQL ends in the same state, with no duplicate row. */
class ReplayIdempotenceTest
{
    private static final String[] TABLES = {
        "accounts", "account_balances", "transfers", "ledger_entries", "holds", "outbox"};

    static PostgresFixture pg;

    @BeforeAll
    static void startPostgres()
    {
        pg = PostgresFixture.start(ReplayIdempotenceTest.class);
    }

    @AfterAll
    static void stopPostgres()
    {
        pg.close();
    }

    @Test
    void shouldSkipUnitsFedAgainAtOrBelowTheWatermark() throws Exception
    {
        final Database db = pg.newDatabase();
        final LedgerScenario s = runOnce(db);
        final Map<String, Long> before = counts(db);

        try (LedgerWriter writer = LedgerWriter.create(db, testConfig()))
        {
            assertEquals(s.ledger.lastJournalIndex(), writer.watermark());
            // A recorder told to skip nothing: the writer itself drops what it already holds.
            final EffectRecorder recorder = writer.createRecorder(0);
            writer.start();
            final Ledger replayed = LedgerScenario.replay(s.journal(), LedgerConfig.small(), recorder::onUnit);
            Thread.sleep(200);
            assertTrue(writer.unitsSkipped() > 100, "units skipped: " + writer.unitsSkipped());
            assertEquals(0, writer.batchesCommitted());
            assertEquals(before, counts(db));
            assertEquals(List.of(), new Verifier(replayed, db.dataSource()).verify().differences());
        }
    }

    @Test
    void shouldConvergeWithoutDuplicatesWhenRestartedFromAnOlderWatermark() throws Exception
    {
        final Database db = pg.newDatabase();
        final LedgerScenario s = runOnce(db);
        final Map<String, Long> before = counts(db);
        final long older = s.ledger.lastJournalIndex() / 3;
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
        {
            // As if the rows of the last two thirds had been written but the watermark had not moved.
            st.executeUpdate("UPDATE ledger_watermark SET journal_index = " + older);
        }

        try (LedgerWriter writer = LedgerWriter.create(db, testConfig()))
        {
            assertEquals(older, writer.watermark());
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.start();
            final Ledger replayed = LedgerScenario.replay(s.journal(), LedgerConfig.small(), recorder::onUnit);
            assertTrue(writer.awaitWatermark(replayed.lastJournalIndex(), Duration.ofSeconds(30)));
            assertNull(writer.failure());
            assertTrue(writer.batchesCommitted() > 0, "the replayed units were written again");
            assertTrue(writer.deduplicatedBatches() > 0, "direct COPY met the rows above the watermark and fell back");
            assertEquals(before, counts(db), "ON CONFLICT DO NOTHING: no duplicate rows");
            assertEquals(List.of(), new Verifier(replayed, db.dataSource()).verify().differences());
        }
    }

    @Test
    void shouldRefuseAReplayStartingAboveTheWatermark()
    {
        final Database db = pg.newDatabase();
        try (LedgerWriter writer = LedgerWriter.create(db, testConfig()))
        {
            writer.requireReplayableFrom(0);
            assertThrows(IllegalStateException.class, () -> writer.requireReplayableFrom(1));
            writer.createRecorder(0);
            assertThrows(IllegalStateException.class, () -> writer.createRecorder(0), "one producer per ring");
        }
    }

    private static LedgerScenario runOnce(final Database db)
    {
        try (LedgerWriter writer = LedgerWriter.create(db, testConfig()))
        {
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.start();
            final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
            MixedWorkload.run(s, 300);
            assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(30)));
            return s;
        }
    }

    private static Map<String, Long> counts(final Database db) throws SQLException
    {
        final Map<String, Long> counts = new LinkedHashMap<>();
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
        {
            for (final String table : TABLES)
            {
                counts.put(table, one(st, "SELECT count(*) FROM " + table));
            }
            counts.put("watermark", one(st, "SELECT journal_index FROM ledger_watermark"));
        }
        return counts;
    }
}
