package dev.tally.persistence.db;

import dev.tally.persistence.PostgresFixture;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * V7 on a read model that already holds entries: it gives each its running balance (per account, in id order) and its
 * transfer's kind, through the immutability trigger it lets maintenance pass; and the history reads it serves are
 * planned as the single backward index probes docs/PERSISTENCE.md says they are.
 */
class EntryHistoryMigrationTest
{
    private static final String T1 = "'01900000-0000-7000-8000-000000004000'";
    private static final String T2 = "'01900000-0001-7000-8000-000000008000'";
    private static final String T3 = "'01900000-0002-7000-8000-00000000c000'";

    static PostgresFixture pg;
    static Database db;

    @BeforeAll
    static void migrateAReadModelWithHistoryToV7()
    {
        pg = PostgresFixture.start(EntryHistoryMigrationTest.class);
        pg.server().ensureDatabase("v6");
        db = Database.connect(pg.server().jdbcUrl("v6"));
        Flyway.configure().dataSource(db.dataSource()).locations("classpath:db/migration").target("6").load().migrate();
        exec("INSERT INTO accounts VALUES (1, 1, 'USD', 1, false, 0, 1, now()), (1, 2, 'USD', 1, true, 0, 2, now())");
        exec("INSERT INTO transfers (id, tenant_id, kind, debit_account_id, credit_account_id, amount_minor, currency, reverses_id," +
            " journal_index, created_at) VALUES (" + T1 + ", 1, 'transfer', 1, 2, 100, 'USD', NULL, 1, now()), (" + T2 +
            ", 1, 'transfer', 1, 2, 50, 'USD', NULL, 2, now()), (" + T3 + ", 1, 'reversal', 2, 1, 30, 'USD', " + T1 + ", 3, now())");
        // legs in journal order: ids begin with their millisecond (…0000, …0001, …0002)
        exec("INSERT INTO ledger_entries VALUES" +
            " ('01900000-0000-7200-8000-000000004000', " + T1 + ", 1, 1, -100, 'USD', 1, now())," +
            " ('01900000-0000-7200-8000-000000004001', " + T1 + ", 1, 2, 100, 'USD', 1, now())," +
            " ('01900000-0001-7200-8000-000000008000', " + T2 + ", 1, 1, -50, 'USD', 2, now())," +
            " ('01900000-0001-7200-8000-000000008001', " + T2 + ", 1, 2, 50, 'USD', 2, now())," +
            " ('01900000-0002-7200-8000-00000000c000', " + T3 + ", 1, 2, -30, 'USD', 3, now())," +
            " ('01900000-0002-7200-8000-00000000c001', " + T3 + ", 1, 1, 30, 'USD', 3, now())");
        db.migrate();
    }

    @AfterAll
    static void stopPostgres()
    {
        db.close();
        pg.close();
    }

    @Test
    void shouldGiveTheEntriesAlreadyThereTheirRunningBalanceAndKind() throws SQLException
    {
        assertEquals(List.of("1:-100:0", "1:-150:0", "1:-120:1", "2:100:0", "2:150:0", "2:120:1"),
            rows("SELECT account_id || ':' || balance_after_minor || ':' || kind FROM ledger_entries ORDER BY account_id, id"));
        final IllegalStateException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
            () -> exec("UPDATE ledger_entries SET balance_after_minor = 0"));
        assertTrue(refused.getCause().getMessage().contains("immutable"), "entries are immutable again after the migration");
    }

    @Test
    void shouldAnswerAJournalIndexWithTheLastEntryAtOrBeforeIt() throws SQLException
    {
        assertEquals(List.of("null:null", "100:1", "150:2", "120:3", "120:3"), List.of(
            atIndex(0), atIndex(1), atIndex(2), atIndex(3), atIndex(99)));
    }

    @Test
    void shouldPlanTheBalanceAtAnInstantAsABackwardProbeOfTheEntriesIndex() throws SQLException
    {
        final String plan = String.join("\n", rows("EXPLAIN SELECT balance_after_minor FROM ledger_entries WHERE tenant_id = 1" +
            " AND account_id = 2 AND id < '01900000-0002-0000-0000-000000000000' AND created_at <= now() ORDER BY id DESC LIMIT 1"));
        assertTrue(plan.contains("Index Scan Backward using") && !plan.contains("Seq Scan") && !plan.contains("Sort"), plan);
    }

    private static String atIndex(final long index) throws SQLException
    {
        return rows("SELECT coalesce(balance_after_minor::text, 'null') || ':' || coalesce(journal_index::text, 'null')" +
            " FROM tally_entry_at_index(1, 2, " + index + ")").get(0);
    }

    private static List<String> rows(final String sql) throws SQLException
    {
        final List<String> rows = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql))
        {
            while (rs.next())
            {
                rows.add(rs.getString(1));
            }
        }
        return rows;
    }

    private static void exec(final String sql)
    {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement())
        {
            s.execute(sql);
        }
        catch (final SQLException ex)
        {
            throw new IllegalStateException(sql, ex);
        }
    }
}
