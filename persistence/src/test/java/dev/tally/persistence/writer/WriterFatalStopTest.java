package dev.tally.persistence.writer;

import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import dev.tally.persistence.LedgerScenario;
import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.db.Database;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import static dev.tally.persistence.writer.LedgerWriterConvergenceTest.one;
import static dev.tally.persistence.writer.LedgerWriterConvergenceTest.testConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The writer meets what retrying cannot fix, against a real embedded PostgreSQL: it stops with {@link LedgerWriter#failure()}
 * naming the cause, commits nothing further, retries nothing, its thread ends, and the gateway is told to refuse writes.
 */
class WriterFatalStopTest
{
    static PostgresFixture pg;
    Database db;
    LedgerWriter writer;
    Thread writerThread;
    LedgerScenario s;

    @BeforeAll
    static void startPostgres()
    {
        pg = PostgresFixture.start(WriterFatalStopTest.class);
    }

    @AfterAll
    static void stopPostgres()
    {
        pg.close();
    }

    @AfterEach
    void closeWriter()
    {
        if (writer != null)
        {
            writer.close();
        }
        pg.closeDatabases();
    }

    /** A running writer that has committed two accounts and a transfer. */
    private void runningWriterWithHistory()
    {
        db = pg.newDatabase();
        writer = LedgerWriter.create(db, testConfig());
        final EffectRecorder recorder = writer.createRecorder(writer.watermark());
        final Set<Thread> before = writerThreads();
        writer.start();
        final Set<Thread> started = writerThreads();
        started.removeAll(before);
        assertEquals(1, started.size(), "one writer thread started");
        writerThread = started.iterator().next();
        s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
        ok(s.createAccount(1, 1, false, 0));
        ok(s.createAccount(2, 1, true, 0));
        for (int i = 0; i < 5; i++)
        {
            ok(s.transfer(1, 2, 100 + i, null));
        }
        assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(30)), "writer caught up");
        assertNull(writer.failure());
    }

    @Test
    void shouldStopWhenTheWatermarkWentBackBelowWhatItCommitted() throws Exception
    {
        runningWriterWithHistory();
        final long committed = writer.watermark();
        final long batches = writer.batchesCommitted();
        // PostgreSQL lost the last commits (a failover to a standby without them, a restored backup): its
        // watermark is behind what this writer committed.
        final long lost = committed - 3;
        sql("UPDATE ledger_watermark SET journal_index = " + lost);

        ok(s.transfer(1, 2, 999, "after-the-loss"));
        final Throwable failure = awaitFailure();
        assertInstanceOf(IllegalStateException.class, failure);
        assertTrue(failure.getMessage().startsWith("the watermark went back from " + committed + " to " + lost + ":"), failure.toString());

        assertStoppedForGood(committed, batches, lost);
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
        {
            assertEquals(0, one(st, "SELECT count(*) FROM transfers WHERE reference LIKE 'after-the-%'"));
            assertEquals(0, one(st, "SELECT count(*) FROM outbox WHERE journal_index > " + committed));
        }
    }

    @Test
    void shouldStopOnAConstraintViolationWithoutRetryingOrDeduplicating() throws Exception
    {
        runningWriterWithHistory();
        final long committed = writer.watermark();
        final long batches = writer.batchesCommitted();
        // A transfer PostgreSQL has that the ledger does not (older than its reference window, or written by hand) holds the
        // reference: the ledger accepts it again, and UNIQUE (tenant_id, reference) refuses the row however often it is tried.
        sql("INSERT INTO transfers (id, tenant_id, kind, debit_account_id, credit_account_id, amount_minor, currency, reference," +
            " journal_index, created_at) VALUES (gen_random_uuid(), 1, 'transfer', 1, 2, 5, 'USD', 'taken', 1000000, now())");

        ok(s.transfer(1, 2, 999, "taken"));
        final Throwable failure = awaitFailure();
        final SQLException sqlFailure = assertInstanceOf(SQLException.class, failure);
        assertEquals("23505", sqlFailure.getSQLState(), failure.toString());
        assertTrue(failure.getMessage().contains("transfers_reference_unique"), failure.toString());
        assertEquals(0, writer.deduplicatedBatches(), "a reference taken is not a row written twice: no deduplicating retry");

        assertStoppedForGood(committed, batches, committed);
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
        {
            assertEquals(0, one(st, "SELECT count(*) FROM transfers WHERE reference = 'taken' AND journal_index <> 1000000"));
            assertEquals(0, one(st, "SELECT count(*) FROM outbox WHERE journal_index > " + committed));
        }
    }

    /** The writer took the failure as final: it will not commit, retry or run again, and the gateway refuses writes. */
    private void assertStoppedForGood(final long committed, final long batches, final long postgresWatermark) throws Exception
    {
        final long started = System.nanoTime();
        assertFalse(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(10)), "a failed writer never catches up");
        assertTrue(System.nanoTime() - started < Duration.ofSeconds(1).toNanos(), "awaitWatermark returns at once on failure");
        writerThread.join(Duration.ofSeconds(5).toMillis());
        assertFalse(writerThread.isAlive(), "the writer thread ended: it does not spin on the error");

        ok(s.transfer(1, 2, 1_000, "after-the-stop"));   // more units arrive: nobody takes them
        Thread.sleep(100);   // the retry backoff is 10 to 200 ms: a retrying writer would have tried again by now
        assertEquals(0, writer.batchRetries(), "never retried");
        assertEquals(batches, writer.batchesCommitted(), "nothing committed after the failure");
        assertEquals(committed, writer.watermark());
        assertTrue(writer.overLagBound(), "the gateway must refuse writes");
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
        {
            assertEquals(postgresWatermark, one(st, "SELECT journal_index FROM ledger_watermark"));
        }
    }

    private Throwable awaitFailure() throws InterruptedException
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (writer.failure() == null && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(1);
        }
        final Throwable failure = writer.failure();
        assertNotNull(failure, () -> "the writer should have stopped; retries so far: " + writer.batchRetries());
        return failure;
    }

    private static Set<Thread> writerThreads()
    {
        final Set<Thread> threads = new HashSet<>();
        for (final Thread t : Thread.getAllStackTraces().keySet())
        {
            if (t.getName().equals("tally-pg-writer") && t.isAlive())
            {
                threads.add(t);
            }
        }
        return threads;
    }

    private void sql(final String statement) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
        {
            st.execute(statement);
        }
    }

    private static Result ok(final Result r)
    {
        assertEquals(ResultCode.OK, r.code, r::toString);
        return r;
    }
}
