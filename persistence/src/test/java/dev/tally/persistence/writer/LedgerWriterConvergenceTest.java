package dev.tally.persistence.writer;

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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ledger + EffectRecorder + LedgerWriter against a real PostgreSQL: every table ends equal to memory. */
class LedgerWriterConvergenceTest
{
    static PostgresFixture pg;

    @BeforeAll
    static void startPostgres()
    {
        pg = PostgresFixture.start(LedgerWriterConvergenceTest.class);
    }

    @AfterAll
    static void stopPostgres()
    {
        pg.close();
    }

    /** Small batches and a small ring, so one run makes many batches and units straddle reads. */
    static WriterConfig testConfig()
    {
        return WriterConfig.defaults().withRing(1 << 20, 100_000).withBatch(300, 2).withWaits(10_000, 10, 200);
    }

    @Test
    void shouldTakeABatchWhoseCommitWentThroughButWhoseReplyWasLostAsCommitted() throws Exception
    {
        final Database db = pg.newDatabase();
        final LedgerWriter created;
        System.setProperty(WriterFaults.LOSE_COMMIT_REPLY_PROPERTY, "3");
        try
        {
            created = LedgerWriter.create(db, testConfig());
        }
        finally
        {
            System.clearProperty(WriterFaults.LOSE_COMMIT_REPLY_PROPERTY);
        }
        try (LedgerWriter writer = created)
        {
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.start();
            final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
            MixedWorkload.run(s, 600);

            assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(30)),
                () -> "writer caught up; failure: " + writer.failure());
            assertNull(writer.failure(), "a lost COMMIT reply is not another writer");
            assertEquals(1, writer.batchRetries(), "the batch whose reply was lost was tried again, once");
            assertEquals(java.util.List.of(), new Verifier(s.ledger, db.dataSource()).verify().differences());
        }
    }

    @Test
    void shouldConvergeToTheLedgerAfterMixedCommands() throws Exception
    {
        final Database db = pg.newDatabase();
        try (LedgerWriter writer = LedgerWriter.create(db, testConfig()))
        {
            assertEquals(0, writer.watermark());
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.start();
            final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
            MixedWorkload.run(s, 600);

            assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(30)), "writer caught up");
            assertNull(writer.failure());
            assertEquals(0, writer.lagCommands());
            assertTrue(writer.batchesCommitted() > 1, "several batches");

            final Verifier.Report report = new Verifier(s.ledger, db.dataSource()).verify();
            assertEquals(java.util.List.of(), report.differences());
            assertTrue(report.checks() > 100);

            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
            {
                assertEquals(s.ledger.lastJournalIndex(), one(st, "SELECT journal_index FROM ledger_watermark"));
                assertEquals(s.eventsEmitted(), one(st, "SELECT count(*) FROM outbox"), "one outbox row per event");
                assertEquals(s.eventsEmitted(), one(st, "SELECT count(*) FROM outbox_events WHERE (payload->>'schemaVersion')::int = 2" +
                    " AND payload->>'eventId' = id::text AND published_at IS NULL"));
                assertEquals(2 * one(st, "SELECT count(*) FROM transfers"), one(st, "SELECT count(*) FROM ledger_entries"));
                assertEquals(0, one(st, "SELECT coalesce(sum(amount_minor), 0) FROM ledger_entries"), "double entry");
                assertEquals(MixedWorkload.HOT_SUBS, one(st, "SELECT count(*) FROM account_balances WHERE tenant_id = 1 AND account_id = 3"));
                assertEquals(-5_000, one(st, "SELECT floor_minor FROM account_balances WHERE tenant_id = 1 AND account_id = 4"));
                assertEquals(1, one(st, "SELECT count(*) FROM account_balances WHERE tenant_id = 1 AND account_id = 1 AND floor_minor IS NULL"));
                // holds: each outcome is there
                assertEquals(2, one(st, "SELECT count(*) FROM holds WHERE status = 'captured'"));
                assertEquals(1, one(st, "SELECT count(*) FROM holds WHERE status = 'voided'"));
                // three at the January tick (two tenants), the batch's 60 s hold at the February one
                assertEquals(4, one(st, "SELECT count(*) FROM holds WHERE status = 'expired'"));
                assertEquals(1, one(st, "SELECT count(*) FROM holds WHERE status = 'unknown'"));
                assertEquals(2, one(st, "SELECT count(*) FROM transfers t JOIN holds h ON h.id = t.hold_id" +
                    " WHERE t.kind = 'capture' AND h.captured_transfer_id = t.id"));
                assertEquals(2, one(st, "SELECT count(*) FROM transfers WHERE kind = 'reversal' AND reverses_id IS NOT NULL"));
                // the same reference text in two tenants, the failed atomic batch nowhere
                assertEquals(2, one(st, "SELECT count(*) FROM transfers WHERE reference = 'inv-1'"));
                assertEquals(0, one(st, "SELECT count(*) FROM transfers WHERE reference = 'batch-failed-1'"));
                // metadata: on its transfer and in its event, alike; the committed batch's there, the failed one's nowhere
                assertEquals(1, one(st, "SELECT count(*) FROM transfers WHERE reference = 'batch-ok-1' AND metadata = '{\"batch\":\"ok\"}'"));
                assertEquals(0, one(st, "SELECT count(*) FROM transfers WHERE metadata->>'batch' = 'failed'"));
                final long withMetadata = one(st, "SELECT count(*) FROM transfers WHERE metadata IS NOT NULL");
                assertTrue(withMetadata > 600 / MixedWorkload.METADATA_EVERY / 2, "random transfers with metadata: " + withMetadata);
                assertEquals(withMetadata, one(st, "SELECT count(*) FROM transfers t JOIN outbox_events o ON o.aggregate_id = t.id::text" +
                    " AND o.event_type = 'TransferPosted' WHERE o.payload->'metadata' = t.metadata"));
                assertEquals(one(st, "SELECT count(*) FROM transfers WHERE kind = 'transfer'") - withMetadata, one(st,
                    "SELECT count(*) FROM outbox_events WHERE event_type = 'TransferPosted' AND payload->'metadata' = 'null'::jsonb"));
                // entries landed in their month's partition, none in the DEFAULT safety net
                assertEquals(0, one(st, "SELECT count(*) FROM ledger_entries_default") + one(st, "SELECT count(*) FROM outbox_default"));
                assertTrue(one(st, "SELECT count(*) FROM ledger_entries_202601") > 0);
                assertTrue(one(st, "SELECT count(*) FROM ledger_entries_202602") > 0);
            }
        }
    }

    /**
     * Two connections, one batch staging its rows while the previous one commits: a reader never sees a row above
     * the watermark, nor misses one at or below it (every sample's count of rows up to its watermark is the final
     * count), and the end state is the ledger's.
     */
    @Test
    void shouldCommitPipelinedBatchesInJournalOrder() throws Exception
    {
        final Database db = pg.newDatabase();
        try (LedgerWriter writer = LedgerWriter.create(db, testConfig()))
        {
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.start();
            final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
            final AtomicBoolean done = new AtomicBoolean();
            final List<long[]> samples = new CopyOnWriteArrayList<>();
            final CompletableFuture<String> sampler = CompletableFuture.supplyAsync(() -> sampleWatermark(db, done, samples));
            try
            {
                MixedWorkload.run(s, 4_000);
                assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(30)),
                    () -> "writer caught up; failure: " + writer.failure());
            }
            finally
            {
                done.set(true);
            }
            assertNull(sampler.get(30, TimeUnit.SECONDS), "a reader saw PostgreSQL ahead of or behind its watermark");
            assertTrue(samples.size() > 10, "the reader sampled while the writer wrote: " + samples.size());
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
            {
                for (final long[] sample : samples)
                {
                    assertEquals(one(st, rowsUpTo(sample[0])), sample[1], () -> "rows up to the watermark " + sample[0] +
                        " were missing when it stood there");
                }
            }
            assertTrue(writer.batchesPipelined() > writer.batchesCommitted() / 4,
                () -> "most batches streamed in while the previous one committed: " + writer.batchesPipelined() + " of " +
                    writer.batchesCommitted());
            assertEquals(java.util.List.of(), new Verifier(s.ledger, db.dataSource()).verify().differences());
        }
    }

    /** @return null, or the rows a snapshot showed above its watermark; adds (watermark, rows up to it) per snapshot. */
    private static String sampleWatermark(final Database db, final AtomicBoolean done, final List<long[]> samples)
    {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
        {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            while (!done.get())
            {
                final long watermark = one(st, "SELECT journal_index FROM ledger_watermark");
                final long rowsAbove = one(st, "SELECT (SELECT count(*) FROM transfers WHERE journal_index > " + watermark + ")" +
                    " + (SELECT count(*) FROM ledger_entries WHERE journal_index > " + watermark + ")" +
                    " + (SELECT count(*) FROM outbox WHERE journal_index > " + watermark + ")");
                final long rowsUpTo = one(st, rowsUpTo(watermark));
                c.commit();
                if (rowsAbove != 0)
                {
                    return rowsAbove + " rows above the watermark " + watermark;
                }
                samples.add(new long[] {watermark, rowsUpTo});
            }
            return null;
        }
        catch (final SQLException ex)
        {
            return ex.toString();
        }
    }

    private static String rowsUpTo(final long watermark)
    {
        return "SELECT (SELECT count(*) FROM transfers WHERE journal_index <= " + watermark + ")" +
            " + (SELECT count(*) FROM ledger_entries WHERE journal_index <= " + watermark + ")" +
            " + (SELECT count(*) FROM outbox WHERE journal_index <= " + watermark + ")";
    }

    static long one(final Statement st, final String query) throws SQLException
    {
        try (ResultSet rs = st.executeQuery(query))
        {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }
}
