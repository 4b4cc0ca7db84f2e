package dev.tally.persistence.verify;

import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.query.TransferView;
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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

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
    void shouldReportATransferRowThatDiffersFromTheLedgersTransfer() throws SQLException
    {
        final long index = one("SELECT max(journal_index) FROM transfers WHERE kind = 'transfer' AND reference IS NULL");
        final long amount = one("SELECT amount_minor FROM transfers WHERE journal_index = " + index);
        assertTrue(s.ledger.readTransferAt(index, new TransferView()).found, "the newest transfer is in the ledger's window");
        // Bypass the immutability trigger as an operator's mistake would (tally.maintenance lets DELETEs through, but turns
        // an UPDATE into a no-op: the trigger returns the old row), and add a minor unit to the transfer row.
        sql("ALTER TABLE transfers DISABLE TRIGGER transfers_immutable");
        sql("UPDATE transfers SET amount_minor = amount_minor + 1 WHERE journal_index = " + index);
        final String out = run(1);
        final String difference = difference(out, "transfer at journal index " + index + ": ");
        assertTrue(difference.matches(".*: ledger [^ ]*/" + amount + "/USD/null/null/metadata (true|false)," +
            " PostgreSQL [^ ]*/" + (amount + 1) + "/USD/null/null/metadata (true|false)"), difference);
    }

    @Test
    void shouldReportEveryAccountAttributeThatDiffers() throws SQLException
    {
        sql("UPDATE accounts SET currency = 'GBP' WHERE tenant_id = 1 AND account_id = 2");
        sql("UPDATE accounts SET sub_balances = 7 WHERE tenant_id = 1 AND account_id = 3");
        sql("UPDATE accounts SET debits_must_not_exceed_credits = true WHERE tenant_id = 1 AND account_id = 1");
        sql("UPDATE accounts SET overdraft_limit_minor = 4000 WHERE tenant_id = 1 AND account_id = 4");
        sql("UPDATE accounts SET status = 'frozen', credits_frozen = true, metadata = '{\"team\": \"ops\"}' WHERE tenant_id = 1 AND account_id = 5");
        final String out = run(1);
        assertReported(out,
            "account 1/2: ledger USD/1/true/0/active/false/no metadata, PostgreSQL GBP/1/true/0/active/false/no metadata",
            "account 1/3: ledger USD/8/true/0/active/false/no metadata, PostgreSQL USD/7/true/0/active/false/no metadata",
            "account 1/1: ledger USD/1/false/0/active/false/no metadata, PostgreSQL USD/1/true/0/active/false/no metadata",
            "account 1/4: ledger USD/1/true/5000/active/false/no metadata, PostgreSQL USD/1/true/4000/active/false/no metadata",
            "account 1/5: ledger EUR/1/true/0/active/false/no metadata, PostgreSQL EUR/1/true/0/frozen/true/metadata");
        assertTrue(out.contains("verify: 5 difference(s)"), out);
    }

    @Test
    void shouldReportHeldMovedBetweenSubBalancesEvenWhenTheTotalsAgree() throws SQLException
    {
        final long from = one("SELECT min(sub_index) FROM account_balances WHERE tenant_id = 1 AND account_id = 3 AND held_minor > 0");
        final long to = one("SELECT min(sub_index) FROM account_balances WHERE tenant_id = 1 AND account_id = 3 AND sub_index <> " +
            from + " AND posted_minor - held_minor >= 1");
        sql("UPDATE account_balances SET held_minor = held_minor + CASE WHEN sub_index = " + from + " THEN -1 ELSE 1 END" +
            " WHERE tenant_id = 1 AND account_id = 3 AND sub_index IN (" + from + ", " + to + ")");
        final String out = run(1);
        assertReported(out,
            "account 1/3 sub " + from + " held",
            "account 1/3 sub " + to + " held");
        assertTrue(out.contains("verify: 2 difference(s)"), out);
    }

    @Test
    void shouldReportAnAccountItsBalancesEntriesAndHoldThatExistOnlyInPostgres() throws SQLException
    {
        sql("INSERT INTO accounts VALUES (1, 99, 'USD', 1, false, 0, 1000000, now())");
        sql("INSERT INTO account_balances VALUES (1, 99, 0, 0, 0, NULL, 1000000)");
        sql("INSERT INTO holds (id, journal_index, tenant_id, account_id, amount_minor, currency, status, expires_at, created_at," +
            " last_journal_index) VALUES ('00000000-0000-7000-8000-000000000099', 1000000, 1, 99, 50, 'USD', 'active', now(), now(), 1000000)");
        final String out = run(1);
        assertReported(out,
            "account 1/99 is in PostgreSQL but not in the ledger",
            "balance rows of account 1/99 have no account in the ledger",
            "live holds on account 1/99 which the ledger does not have",
            "hold 00000000-0000-7000-8000-000000000099 is live in PostgreSQL but not in the ledger");
    }

    @Test
    void shouldReportEntriesOfAnAccountOnlyPostgresHasAndWithoutATransfer() throws SQLException
    {
        // A balanced pair of legs that no transfer row owns, one of them on an account the ledger does not have.
        sql("INSERT INTO ledger_entries VALUES ('00000000-0000-7000-8000-0000000000e1', '00000000-0000-7000-8000-0000000000f1'," +
            " 1, 98, -7, 'USD', 1000000, now(), -7, 0), ('00000000-0000-7000-8000-0000000000e2', '00000000-0000-7000-8000-0000000000f1'," +
            " 1, 2, 7, 'USD', 1000000, now(), 7, 0)");
        final String out = run(1);
        assertReported(out,
            "entries of account 1/98 which the ledger does not have",
            "entries without a transfer: ledger 0, PostgreSQL 2");
        assertFalse(out.contains("transfers whose legs are not exactly two"), out);
    }

    @Test
    void shouldReportATransferWithoutEntries() throws SQLException
    {
        sql("BEGIN; SET LOCAL tally.maintenance = 'on'; DELETE FROM ledger_entries WHERE transfer_id =" +
            " (SELECT id FROM transfers ORDER BY journal_index DESC LIMIT 1); COMMIT");
        final String out = run(1);
        assertReported(out, "transfers without entries: ledger 0, PostgreSQL 1");
        assertFalse(out.contains("transfers whose legs are not exactly two"), out);
    }

    @Test
    void shouldReportATransferOfTheLedgersWindowMissingFromPostgres() throws SQLException
    {
        final long index = one("SELECT max(journal_index) FROM transfers");
        assertTrue(s.ledger.readTransferAt(index, new TransferView()).found, "the newest transfer is in the ledger's window");
        final long window = s.ledger.publishStats().transferCount();
        sql("BEGIN; SET LOCAL tally.maintenance = 'on';" +
            " DELETE FROM ledger_entries WHERE transfer_id = (SELECT id FROM transfers WHERE journal_index = " + index + ");" +
            " DELETE FROM transfers WHERE journal_index = " + index + "; COMMIT");
        final String out = run(1);
        assertTrue(out.contains("DIFFERENT: transfers in the ledger's window that PostgreSQL has: ledger " + window +
            ", PostgreSQL " + (window - 1)), out);
    }

    @Test
    void shouldReportAMissingOutboxEventOfEveryCountedType() throws SQLException
    {
        final String[] types = {"TransferPosted", "TransferReversed", "HoldCaptured", "HoldCreated", "HoldVoided", "HoldExpired"};
        for (final String type : types)
        {
            sql("DELETE FROM outbox WHERE id = (SELECT id FROM outbox WHERE event_type = '" + type + "' ORDER BY id LIMIT 1)");
        }
        final String out = run(1);
        for (final String type : types)
        {
            assertTrue(out.contains("DIFFERENT: outbox " + type + " events vs rows"), type + ": " + out);
        }
        assertTrue(out.contains("verify: " + types.length + " difference(s)"), out);
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

    /** Asserts that {@code out} reports each of {@code differences} (a line's start, after "DIFFERENT: "). */
    private static void assertReported(final String out, final String... differences)
    {
        for (final String difference : differences)
        {
            assertTrue(out.contains("DIFFERENT: " + difference), () -> difference + " in:\n" + out);
        }
    }

    /** @return the one line of {@code out} reporting a difference that starts with {@code prefix}. */
    private static String difference(final String out, final String prefix)
    {
        final List<String> lines = out.lines().map(String::strip).filter(l -> l.startsWith("DIFFERENT: " + prefix)).toList();
        assertEquals(1, lines.size(), out);
        return lines.get(0);
    }

    private long one(final String query) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query))
        {
            assertTrue(rs.next(), query);
            return rs.getLong(1);
        }
    }

    private void sql(final String statement) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
        {
            st.execute(statement);
        }
    }
}
