package dev.tally.persistence.verify;

import dev.tally.ledger.LedgerConfig;
import dev.tally.persistence.LedgerScenario;
import dev.tally.persistence.MixedWorkload;
import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.writer.EffectRecorder;
import dev.tally.persistence.writer.LedgerWriter;
import dev.tally.persistence.writer.WriterConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The verifier passes on a converged database and names every kind of difference it is shown. */
class VerifierTest
{
    static PostgresFixture pg;
    Database db;
    LedgerScenario s;

    @BeforeAll
    static void startPostgres()
    {
        pg = PostgresFixture.start(VerifierTest.class);
    }

    @AfterAll
    static void stopPostgres()
    {
        pg.close();
    }

    @BeforeEach
    void convergedDatabase()
    {
        db = pg.newDatabase();
        try (LedgerWriter writer = LedgerWriter.create(db, WriterConfig.defaults().withRing(1 << 20, 100_000)))
        {
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.start();
            s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
            MixedWorkload.run(s, 100);
            assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(30)));
        }
    }

    @Test
    void shouldExitZeroWhenPostgresEqualsTheLedger()
    {
        final String out = run(0);
        assertTrue(out.contains("verify: OK"), out);
    }

    @Test
    void shouldReportATamperedSubBalance() throws SQLException
    {
        sql("UPDATE account_balances SET posted_minor = posted_minor + 1 WHERE tenant_id = 1 AND account_id = 3 AND sub_index = 5");
        final String out = run(1);
        assertTrue(out.contains("account 1/3 sub 5 posted"), out);
        assertTrue(out.contains("account 1/3 posted total"), out);
    }

    @Test
    void shouldReportAMissingEntryAndOutboxRow() throws SQLException
    {
        // Bypass the immutability trigger as an operator's mistake would.
        sql("BEGIN; SET LOCAL tally.maintenance = 'on'; DELETE FROM ledger_entries WHERE id = (SELECT id FROM ledger_entries ORDER BY id DESC LIMIT 1); COMMIT");
        sql("DELETE FROM outbox WHERE id = (SELECT id FROM outbox ORDER BY id LIMIT 1)");
        final String out = run(1);
        assertTrue(out.contains("sum of entries vs posted"), out);
        assertTrue(out.contains("transfers whose legs are not exactly two"), out);
        assertTrue(out.contains("outbox AccountCreated events vs rows"), out);
    }

    @Test
    void shouldReportAHoldLiveOnlyInPostgres() throws SQLException
    {
        sql("UPDATE holds SET status = 'active', resolved_at = NULL WHERE status = 'voided'");
        final String out = run(1);
        assertTrue(out.contains("is live in PostgreSQL but not in the ledger"), out);
        assertTrue(out.contains("live holds vs held"), out);
    }

    @Test
    void shouldReportAWriterThatHasNotCaughtUp() throws SQLException
    {
        sql("UPDATE ledger_watermark SET journal_index = journal_index - 1");
        final Verifier.Report report = verify();
        assertFalse(report.ok());
        assertEquals(1, report.differences().size());
        assertTrue(report.differences().get(0).startsWith("watermark"), report.differences().toString());
    }

    private Verifier.Report verify() throws SQLException
    {
        return new Verifier(s.ledger, db.dataSource()).verify();
    }

    private String run(final int expectedStatus)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final int status = new Verifier(s.ledger, db.dataSource()).run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        final String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(expectedStatus, status, out);
        return out;
    }

    private void sql(final String statement) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
        {
            st.execute(statement);
        }
    }
}
