package dev.tally.persistence.writer;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.result.ResultCode;
import dev.tally.persistence.LedgerScenario;
import dev.tally.persistence.MixedWorkload;
import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.verify.Verifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
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
    void shouldWriteEachAccountsLastStatusAndKeepItThroughADeduplicatingReplay() throws Exception
    {
        final Database db = pg.newDatabase();
        final long[] beforeLifecycle = new long[1];
        final LedgerScenario s = written(db, scenario ->
        {
            scenario.createAccount(1, 1, false, 0);
            scenario.createAccount(2, 1, true, 0);
            scenario.createAccount(3, 4, true, 0);
            scenario.transfer(1, 2, 500, null);
            beforeLifecycle[0] = scenario.ledger.lastJournalIndex();
            assertEquals(ResultCode.OK, scenario.lifecycle(CommandType.FREEZE_ACCOUNT_ALL, 2).code);
            assertEquals(ResultCode.OK, scenario.lifecycle(CommandType.UNFREEZE_ACCOUNT, 2).code);
            assertEquals(ResultCode.OK, scenario.lifecycle(CommandType.FREEZE_ACCOUNT, 2).code);
            assertEquals(ResultCode.OK, scenario.lifecycle(CommandType.CLOSE_ACCOUNT, 3).code);
            assertEquals(ResultCode.ACCOUNT_NOT_EMPTY, scenario.lifecycle(CommandType.CLOSE_ACCOUNT, 2).code);
            scenario.tenant(2);
            scenario.createAccount(2, 1, true, 0);                        // the same id in another tenant stays active
        });
        final Map<String, Long> before = counts(db);
        assertEquals("1/2 frozen false|1/3 closed false|2/2 active false", statuses(db));
        assertEquals(2L, count(db, "SELECT count(*) FROM outbox WHERE event_type = 'AccountFrozen' AND aggregate_type = 'account'"));
        assertEquals(1L, count(db, "SELECT count(*) FROM outbox WHERE event_type = 'AccountUnfrozen'"));
        assertEquals(1L, count(db, "SELECT count(*) FROM outbox WHERE event_type = 'AccountClosed'"));

        final Ledger replayed = replayedFrom(db, beforeLifecycle[0], s);

        assertEquals(before, counts(db), "no duplicate rows");
        assertEquals("1/2 frozen false|1/3 closed false|2/2 active false", statuses(db));
        assertEquals(List.of(), new Verifier(replayed, db.dataSource()).verify().differences());
    }

    @Test
    void shouldWriteEachAccountsLastMetadataKeepItThroughADeduplicatingReplayAndVerifyIt() throws Exception
    {
        final Database db = pg.newDatabase();
        final long[] beforeUpdates = new long[1];
        final LedgerScenario s = written(db, scenario ->
        {
            assertEquals(ResultCode.OK, scenario.createAccount(1, "{\"team\":\"ops\"}").code);
            scenario.createAccount(2, 1, true, 0);
            scenario.createAccount(3, "{\"team\":\"gone\"}");
            beforeUpdates[0] = scenario.ledger.lastJournalIndex();
            assertEquals(ResultCode.OK, scenario.updateMetadata(2, "{\"team\":\"risk\"}").code);
            assertEquals(ResultCode.OK, scenario.updateMetadata(2, "{\"region\":\"eu\",\"team\":\"risk\"}").code);
            assertEquals(ResultCode.OK, scenario.updateMetadata(3, null).code);
            assertEquals(ResultCode.ACCOUNT_NOT_FOUND, scenario.updateMetadata(4, "{\"team\":\"none\"}").code);
            scenario.tenant(2);
            scenario.createAccount(2, 1, true, 0);                        // the same id in another tenant keeps none
        });
        final String expected = "1/1 {\"team\": \"ops\"} 0|1/2 {\"team\": \"risk\", \"region\": \"eu\"} 5|1/3 null 6|2/2 null 0";
        final Map<String, Long> before = counts(db);
        assertEquals(expected, metadata(db));
        assertEquals(3L, count(db, "SELECT count(*) FROM outbox WHERE event_type = 'AccountMetadataUpdated' AND aggregate_type = 'account'"));
        assertEquals(1L, count(db, "SELECT count(*) FROM outbox WHERE event_type = 'AccountCreated' AND payload->'metadata' = '{\"team\": \"ops\"}'"));

        final Ledger replayed = replayedFrom(db, beforeUpdates[0], s);

        assertEquals(before, counts(db), "no duplicate rows");
        assertEquals(expected, metadata(db), "no older update written over a newer one");
        assertEquals(List.of(), new Verifier(replayed, db.dataSource()).verify().differences());
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
        {
            st.executeUpdate("UPDATE accounts SET metadata = NULL WHERE tenant_id = 1 AND account_id = 1");
        }
        final List<String> differences = new Verifier(replayed, db.dataSource()).verify().differences();
        assertEquals(1, differences.size(), differences::toString);
        assertTrue(differences.get(0).contains("account 1/1"), differences::toString);
    }

    /** Runs {@code scenario} (from tenant 1) on a writer into {@code db} until PostgreSQL holds all of it; @return the scenario. */
    private static LedgerScenario written(final Database db, final java.util.function.Consumer<LedgerScenario> scenario)
    {
        try (LedgerWriter writer = LedgerWriter.create(db, testConfig()))
        {
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.start();
            final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
            s.tenant(1);
            scenario.accept(s);
            assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(30)));
            assertNull(writer.failure());
            return s;
        }
    }

    /**
     * Moves the watermark back to {@code index} with the rows left in place, as a restart finds it after the rows of a
     * batch were written, then replays the scenario's journal on a new writer, which writes what is above the watermark
     * again, deduplicating. @return the replayed ledger.
     */
    private static Ledger replayedFrom(final Database db, final long index, final LedgerScenario s) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
        {
            st.executeUpdate("UPDATE ledger_watermark SET journal_index = " + index);
        }
        try (LedgerWriter writer = LedgerWriter.create(db, testConfig()))
        {
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.start();
            final Ledger replayed = LedgerScenario.replay(s.journal(), LedgerConfig.small(), recorder::onUnit);
            assertTrue(writer.awaitWatermark(replayed.lastJournalIndex(), Duration.ofSeconds(30)));
            assertNull(writer.failure());
            return replayed;
        }
    }

    /** @return each account's "tenant/id metadata metadata_index", in key order. */
    private static String metadata(final Database db) throws SQLException
    {
        final StringBuilder out = new StringBuilder();
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT tenant_id, account_id, metadata::text, metadata_index FROM accounts ORDER BY 1, 2"))
        {
            while (rs.next())
            {
                out.append(out.length() == 0 ? "" : "|").append(rs.getLong(1)).append('/').append(rs.getLong(2)).append(' ')
                    .append(rs.getString(3)).append(' ').append(rs.getLong(4));
            }
        }
        return out.toString();
    }

    private static String statuses(final Database db) throws SQLException
    {
        final StringBuilder out = new StringBuilder();
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT tenant_id, account_id, status, credits_frozen FROM accounts" +
                 " WHERE account_id IN (2, 3) ORDER BY 1, 2"))
        {
            while (rs.next())
            {
                out.append(out.length() == 0 ? "" : "|").append(rs.getLong(1)).append('/').append(rs.getLong(2)).append(' ')
                    .append(rs.getString(3)).append(' ').append(rs.getBoolean(4));
            }
        }
        return out.toString();
    }

    private static long count(final Database db, final String sql) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
        {
            return one(st, sql);
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
