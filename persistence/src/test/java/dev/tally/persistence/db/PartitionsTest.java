package dev.tally.persistence.db;

import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.id.Uuid7;
import dev.tally.persistence.LedgerScenario;
import dev.tally.persistence.MixedWorkload;
import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.writer.EffectRecorder;
import dev.tally.persistence.writer.LedgerWriter;
import dev.tally.persistence.writer.WriterConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Monthly partitions on UUIDv7 ranges: created for the months used, rows in the right one, old outbox dropped. */
class PartitionsTest
{
    static PostgresFixture pg;

    @BeforeAll
    static void startPostgres()
    {
        pg = PostgresFixture.start(PartitionsTest.class);
    }

    @AfterAll
    static void stopPostgres()
    {
        pg.close();
    }

    @Test
    void shouldCreatePartitionsForTheJournaledMonthsAndRouteIdsByMonth() throws Exception
    {
        final Database db = pg.newDatabase();
        try (LedgerWriter writer = LedgerWriter.create(db, WriterConfig.defaults().withRing(1 << 20, 100_000)))
        {
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.start();
            final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
            MixedWorkload.run(s, 50);   // January 31st into February 1st, 2026
            assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(30)));
        }
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
        {
            for (final String month : new String[] {"202601", "202602", "202603", "202604"})
            {
                assertEquals("ledger_entries_" + month, text(st, "SELECT to_regclass('ledger_entries_" + month + "')::text"));
                assertEquals("outbox_" + month, text(st, "SELECT to_regclass('outbox_" + month + "')::text"));
            }
            assertEquals(0, count(st, "SELECT count(*) FROM ledger_entries_default"));
            // every row is in the partition of its id's month
            assertEquals(0, count(st, "SELECT count(*) FROM ledger_entries WHERE tableoid::regclass::text <>" +
                " 'ledger_entries_' || to_char(created_at AT TIME ZONE 'UTC', 'YYYYMM')"));
            assertEquals(0, count(st, "SELECT count(*) FROM outbox WHERE tableoid::regclass::text <>" +
                " 'outbox_' || to_char(created_at AT TIME ZONE 'UTC', 'YYYYMM')"));

            // an id of next month (March 2026) lands in next month's partition
            final UUID march = entryId(Instant.parse("2026-03-01T00:00:00.000Z"), 1_000_000);
            insertEntry(st, march);
            assertEquals("ledger_entries_202603", text(st, "SELECT tableoid::regclass::text FROM ledger_entries WHERE id = '" + march + "'"));
            // the last millisecond of February stays in February
            final UUID lastOfFebruary = entryId(Instant.parse("2026-02-28T23:59:59.999Z"), 1_000_001);
            insertEntry(st, lastOfFebruary);
            assertEquals("ledger_entries_202602",
                text(st, "SELECT tableoid::regclass::text FROM ledger_entries WHERE id = '" + lastOfFebruary + "'"));
        }
    }

    @Test
    void shouldMoveRowsOutOfTheDefaultPartitionWhenTheirMonthIsCreated() throws SQLException
    {
        final Database db = pg.newDatabase();
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
        {
            final UUID far = entryId(Instant.parse("2031-05-17T10:00:00Z"), 7);
            insertEntry(st, far);
            assertEquals("ledger_entries_default", text(st, "SELECT tableoid::regclass::text FROM ledger_entries WHERE id = '" + far + "'"));
            assertEquals(2, count(st, "SELECT tally_ensure_partitions('2031-05-01T00:00:00Z', 0)"));
            assertEquals("ledger_entries_203105", text(st, "SELECT tableoid::regclass::text FROM ledger_entries WHERE id = '" + far + "'"));
            assertEquals(0, count(st, "SELECT count(*) FROM ledger_entries_default"));
            assertEquals(0, count(st, "SELECT tally_ensure_partitions('2031-05-01T00:00:00Z', 0)"), "idempotent");
        }
    }

    @Test
    void shouldDropWholeOldOutboxMonthsButNeverUnpublishedEvents() throws SQLException
    {
        final Database db = pg.newDatabase();
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
        {
            count(st, "SELECT tally_ensure_partitions('2030-01-01T00:00:00Z', 3)");
            insertOutbox(st, Instant.parse("2030-01-10T00:00:00Z"), 1, true);
            insertOutbox(st, Instant.parse("2030-02-10T00:00:00Z"), 2, true);
            insertOutbox(st, Instant.parse("2030-03-10T00:00:00Z"), 3, false);   // not yet delivered
            insertOutbox(st, Instant.parse("2030-04-10T00:00:00Z"), 4, true);

            assertEquals(2, count(st, "SELECT tally_drop_outbox_partitions('2030-05-01T00:00:00Z')"),
                "January and February dropped; March still holds an unpublished event, so it and April stay");
            assertEquals(null, text(st, "SELECT to_regclass('outbox_203001')::text"));
            assertEquals("outbox_203003", text(st, "SELECT to_regclass('outbox_203003')::text"));
            assertEquals(2, count(st, "SELECT count(*) FROM outbox"));
            assertEquals("2030-03-01 00:00:00+00", text(st, "SELECT retained_from::text FROM outbox_retention"));
            assertEquals("ledger_entries_203001", text(st, "SELECT to_regclass('ledger_entries_203001')::text"),
                "ledger entries are never dropped");
        }
    }

    private static UUID entryId(final Instant at, final long journalIndex)
    {
        return new UUID(Uuid7.hi(at.toEpochMilli() * 1_000_000L, Uuid7.KIND_ENTRY), Uuid7.lo(journalIndex, 0));
    }

    private static void insertEntry(final Statement st, final UUID id) throws SQLException
    {
        st.execute("INSERT INTO ledger_entries VALUES ('" + id + "', '" + id + "', 9, 9, 1, 'USD', 1, now(), 1, 0)");
    }

    private static void insertOutbox(final Statement st, final Instant at, final long index, final boolean published)
        throws SQLException
    {
        final UUID id = new UUID(Uuid7.hi(at.toEpochMilli() * 1_000_000L, Uuid7.KIND_EVENT), Uuid7.lo(index, 0));
        st.execute("INSERT INTO outbox (id, tenant_id, aggregate_type, aggregate_id, event_type, payload, journal_index, created_at," +
            " published_at) VALUES ('" + id + "', 1, 'account', '1', 'AccountCreated', '{\"schemaVersion\": 1}', " + index + ", '" +
            at + "', " + (published ? "now()" : "NULL") + ")");
    }

    private static long count(final Statement st, final String query) throws SQLException
    {
        try (ResultSet rs = st.executeQuery(query))
        {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String text(final Statement st, final String query) throws SQLException
    {
        try (ResultSet rs = st.executeQuery(query))
        {
            rs.next();
            return rs.getString(1);
        }
    }
}
