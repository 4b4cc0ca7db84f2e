package dev.tally.persistence.db;

import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.inbox.Inbox;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The schema's last line of defence: impossible rows inserted by hand are refused (each statement autocommits). */
class SchemaConstraintsTest
{
    private static final String T1 = "'01900000-0000-7000-8000-000000004000'";
    private static final String T2 = "'01900000-0000-7000-8000-000000008000'";

    static PostgresFixture pg;
    static Database db;

    @BeforeAll
    static void startPostgres() throws SQLException
    {
        pg = PostgresFixture.start(SchemaConstraintsTest.class);
        db = pg.newDatabase();
        exec("INSERT INTO accounts VALUES (1, 1, 'USD', 1, true, 0, 1, now()), (1, 2, 'USD', 1, false, 0, 2, now())," +
            " (1, 3, 'USD', 1, true, 500, 3, now())");
        exec("INSERT INTO transfers (id, tenant_id, kind, debit_account_id, credit_account_id, amount_minor, currency, reference," +
            " journal_index, created_at) VALUES (" + T1 + ", 1, 'transfer', 2, 1, 100, 'USD', 'inv-1', 1, now())");
    }

    @AfterAll
    static void stopPostgres()
    {
        pg.close();
    }

    @Test
    void shouldRefuseATransferOfZeroOrNegativeAmount()
    {
        assertCheck("INSERT INTO transfers (id, tenant_id, kind, debit_account_id, credit_account_id, amount_minor, currency," +
            " journal_index, created_at) VALUES (" + T2 + ", 1, 'transfer', 2, 1, 0, 'USD', 2, now())");
    }

    @Test
    void shouldRefuseATransferReusingAReferenceOfItsTenant()
    {
        final SQLException ex = assertThrows(SQLException.class, () -> exec("INSERT INTO transfers (id, tenant_id, kind," +
            " debit_account_id, credit_account_id, amount_minor, currency, reference, journal_index, created_at) VALUES (" + T2 +
            ", 1, 'transfer', 2, 1, 5, 'USD', 'inv-1', 2, now())"));
        assertEquals("23505", ex.getSQLState());
        // the same text in another tenant is another reference
        assertDoesNotFail("INSERT INTO transfers (id, tenant_id, kind, debit_account_id, credit_account_id, amount_minor, currency," +
            " reference, journal_index, created_at) VALUES ('01900000-0000-7000-8000-00000000c000', 2, 'transfer', 2, 1, 5, 'USD'," +
            " 'inv-1', 3, now())");
    }

    @Test
    void shouldRefuseAReversalWithoutTheTransferItReverses()
    {
        assertCheck("INSERT INTO transfers (id, tenant_id, kind, debit_account_id, credit_account_id, amount_minor, currency," +
            " journal_index, created_at) VALUES ('01900000-0000-7000-8000-000000010000', 1, 'reversal', 1, 2, 5, 'USD', 4, now())");
    }

    @Test
    void shouldRefuseMetadataThatIsNotAnObjectOrIsOnAReversal()
    {
        final String insert = "INSERT INTO transfers (id, tenant_id, kind, debit_account_id, credit_account_id, amount_minor," +
            " currency, reverses_id, journal_index, created_at, metadata) VALUES ";
        assertCheck(insert + "('01900000-0000-7000-8000-000000014000', 1, 'transfer', 2, 1, 5, 'USD', NULL, 5, now(), '\"x\"')");
        assertCheck(insert + "('01900000-0000-7000-8000-000000014000', 1, 'reversal', 1, 2, 5, 'USD', " + T1 +
            ", 5, now(), '{\"a\":\"b\"}')");
        assertDoesNotFail(insert + "('01900000-0000-7000-8000-000000014000', 1, 'transfer', 2, 1, 5, 'USD', NULL, 5, now()," +
            " '{\"a\":\"b\"}')");
    }

    @Test
    void shouldRefuseAZeroLedgerEntry()
    {
        assertCheck("INSERT INTO ledger_entries VALUES ('01900000-0000-7200-8000-000000004000', " + T1 + ", 1, 1, 0, 'USD', 1, now(), 0, 0)");
        assertCheck("INSERT INTO ledger_entries VALUES ('01900000-0000-7200-8000-000000004002', " + T1 + ", 1, 1, 5, 'USD', 1, now(), 5, 3)");
    }

    @Test
    void shouldRefuseToUpdateOrDeleteALedgerEntry()
    {
        assertDoesNotFail("INSERT INTO ledger_entries VALUES ('01900000-0000-7200-8000-000000004001', " + T1 + ", 1, 1, 100, 'USD', 1, now(), 100, 0)");
        assertCheck("UPDATE ledger_entries SET amount_minor = 1 WHERE id = '01900000-0000-7200-8000-000000004001'");
        assertCheck("DELETE FROM ledger_entries WHERE id = '01900000-0000-7200-8000-000000004001'");
        assertCheck("UPDATE transfers SET amount_minor = 1 WHERE id = " + T1);
    }

    @Test
    void shouldRefuseNegativeHeld()
    {
        assertCheck("INSERT INTO account_balances VALUES (1, 2, 0, 100, -1, NULL, 5)");
    }

    @Test
    void shouldRefuseAConstrainedSubBalanceBelowItsFloor()
    {
        assertCheck("INSERT INTO account_balances VALUES (1, 1, 0, 100, 101, 0, 5)");
        assertCheck("INSERT INTO account_balances VALUES (1, 3, 0, -501, 0, -500, 5)");
        assertDoesNotFail("INSERT INTO account_balances VALUES (1, 3, 0, -500, 0, -500, 5)");
        assertCheck("UPDATE account_balances SET posted_minor = -600 WHERE tenant_id = 1 AND account_id = 3");
        // an unconstrained account has no floor
        assertDoesNotFail("INSERT INTO account_balances VALUES (1, 2, 0, -9000000000000000000, 0, NULL, 5)");
    }

    @Test
    void shouldRefuseABalanceOfAnUnknownAccount()
    {
        final SQLException ex = assertThrows(SQLException.class, () -> exec("INSERT INTO account_balances VALUES (1, 99, 0, 0, 0, 0, 5)"));
        assertEquals("23503", ex.getSQLState());
    }

    @Test
    void shouldRefuseAHoldStatusOutsideTheAllowedSet()
    {
        assertCheck("INSERT INTO holds (id, journal_index, tenant_id, account_id, amount_minor, currency, status, expires_at," +
            " created_at, last_journal_index) VALUES ('01900000-0000-7100-8000-000000004000', 1, 1, 1, 5, 'USD', 'pending', now()," +
            " now(), 1)");
        assertCheck("INSERT INTO holds (id, journal_index, tenant_id, account_id, amount_minor, currency, status, expires_at," +
            " created_at, last_journal_index) VALUES ('01900000-0000-7100-8000-000000004000', 1, 1, 1, 5, 'USD', 'captured', now()," +
            " now(), 1)");
    }

    @Test
    void shouldRefuseAnOverdraftOnAHotOrUnconstrainedAccount()
    {
        assertCheck("INSERT INTO accounts VALUES (1, 10, 'USD', 4, true, 100, 9, now())");
        assertCheck("INSERT INTO accounts VALUES (1, 11, 'USD', 1, false, 100, 9, now())");
    }

    @Test
    void shouldRefuseAnOutboxRowWithoutSchemaVersion()
    {
        assertCheck("INSERT INTO outbox (id, tenant_id, aggregate_type, aggregate_id, event_type, payload, journal_index, created_at)" +
            " VALUES ('01900000-0000-7300-8000-000000004000', 1, 'transfer', 'x', 'TransferPosted', '{}', 1, now())");
    }

    @Test
    void shouldMarkAMessageProcessedOnlyOnce() throws SQLException
    {
        try (Connection c = db.dataSource().getConnection())
        {
            c.setAutoCommit(false);
            assertTrue(Inbox.markProcessed(c, "settlement", "event-1"));
            c.commit();
            assertFalse(Inbox.markProcessed(c, "settlement", "event-1"), "a redelivery is recognised");
            assertTrue(Inbox.markProcessed(c, "notifications", "event-1"), "another consumer has its own inbox");
            c.commit();
        }
    }

    private static void assertCheck(final String sql)
    {
        final SQLException ex = assertThrows(SQLException.class, () -> exec(sql), sql);
        assertTrue(ex.getSQLState().startsWith("23"), ex.getSQLState() + " " + ex.getMessage());
    }

    private static void assertDoesNotFail(final String sql)
    {
        try
        {
            exec(sql);
        }
        catch (final SQLException ex)
        {
            throw new AssertionError(sql, ex);
        }
    }

    private static void exec(final String sql) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement())
        {
            s.execute(sql);
        }
    }
}
