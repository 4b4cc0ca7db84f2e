package dev.tally.persistence.writer;

import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.db.Database;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The writer's balance UPDATE reaches each staged balance by its key, whatever the size of account_balances: on a
 * table of 40,000 balances and a batch of 5,000, the plan probes the primary key per staged row and never reads the
 * whole table (which a hash join does, once per batch).
 */
class WriterJoinPlanTest
{
    private static final int ACCOUNTS = 40_000;
    private static final int STAGED = 5_000;

    static PostgresFixture pg;
    static Database db;

    @BeforeAll
    static void fillBalances() throws SQLException
    {
        pg = PostgresFixture.start(WriterJoinPlanTest.class);
        db = pg.newDatabase();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement())
        {
            s.execute("INSERT INTO accounts SELECT 1, a, 'USD', 1, true, 0, a, now() FROM generate_series(1, " + ACCOUNTS + ") a");
            s.execute("INSERT INTO account_balances SELECT 1, a, 0, 100, 0, 0, a FROM generate_series(1, " + ACCOUNTS + ") a");
            s.execute("ANALYZE accounts");
            s.execute("ANALYZE account_balances");
        }
    }

    @AfterAll
    static void stopPostgres()
    {
        pg.close();
    }

    @Test
    void shouldUpdateABatchOfBalancesByTheirKeyNotByReadingEveryBalance() throws SQLException
    {
        try (Connection writer = db.openWriterConnection())
        {
            new BatchSql(writer);
            final StringBuilder plan = new StringBuilder();
            try (Statement s = writer.createStatement())
            {
                s.execute("INSERT INTO stage_balances SELECT 1, a * 7 % " + ACCOUNTS + " + 1, 0, 90, 0, NULL, false, " + ACCOUNTS +
                    " + a FROM generate_series(1, " + STAGED + ") a");
                try (ResultSet rs = s.executeQuery("EXPLAIN " + BatchSql.UPDATE_BALANCES))
                {
                    while (rs.next())
                    {
                        plan.append(rs.getString(1)).append('\n');
                    }
                }
            }
            writer.rollback();
            assertTrue(plan.toString().contains("Index Scan using account_balances_pkey"), plan.toString());
            assertFalse(plan.toString().contains("Seq Scan on account_balances"), plan.toString());
        }
    }
}
