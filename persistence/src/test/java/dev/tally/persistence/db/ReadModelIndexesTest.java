package dev.tally.persistence.db;

import dev.tally.persistence.PostgresFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tables the writer fills per transfer carry only the indexes a query or a duplicate guard needs (V5): each one
 * is named here with what uses it, each such query is planned on it, and the duplicates they guard are still refused.
 */
class ReadModelIndexesTest
{
    private static final String ENTRY = "'01900000-0000-7000-8000-000000004000'";
    private static final String TRANSFER = "'01900000-0000-7000-8000-000000008000'";

    static PostgresFixture pg;
    static Database db;

    @BeforeAll
    static void startPostgres()
    {
        pg = PostgresFixture.start(ReadModelIndexesTest.class);
        db = pg.newDatabase();
    }

    @AfterAll
    static void stopPostgres()
    {
        pg.close();
    }

    @Test
    void shouldIndexThePerTransferTablesOnlyWhereAQueryNeedsIt() throws SQLException
    {
        assertEquals(Set.of("ledger_entries_account_entry_key"), indexesOf("ledger_entries"),
            "entries: the account's entries in id order, which also guards against a duplicated entry");
        assertEquals(Set.of("transfers_pkey", "transfers_reference_unique", "transfers_reverses"), indexesOf("transfers"),
            "transfers: by id, by reference, by the transfer a reversal reverses");
        assertEquals(Set.of("outbox_pkey", "outbox_unpublished"), indexesOf("outbox"), "outbox: by id, the unpublished rows");
        assertTrue(definitionOf("transfers_reference_unique").endsWith("WHERE (reference IS NOT NULL)"),
            "a transfer without a reference adds nothing to the reference index: " + definitionOf("transfers_reference_unique"));
    }

    @Test
    void shouldPlanTheEntryPagesAndTheReferenceChecksOnTheirIndexes() throws SQLException
    {
        final String entries = plan("SELECT id FROM ledger_entries WHERE tenant_id = 1 AND account_id = 7" +
            " AND id > '00000000-0000-0000-0000-000000000000' ORDER BY id LIMIT 100");
        assertTrue(entries.contains("Index") && !entries.contains("Seq Scan"), entries);
        final String byReference = plan("SELECT id FROM transfers WHERE tenant_id = 1 AND reference = 'inv-1'");
        assertTrue(byReference.contains("transfers_reference_unique"), byReference);
        final String taken = plan("SELECT q.i, t.id FROM unnest('{1}'::bigint[], '{inv-1}'::text[]) WITH ORDINALITY AS q(tenant_id," +
            " reference, i) JOIN transfers t ON t.tenant_id = q.tenant_id AND t.reference = q.reference");
        assertTrue(taken.contains("transfers_reference_unique"), taken);
    }

    @Test
    void shouldStillRefuseADuplicatedEntryAndAReusedReferenceButNotTwoTransfersWithoutOne() throws SQLException
    {
        final String entry = "INSERT INTO ledger_entries (id, transfer_id, tenant_id, account_id, amount_minor, currency, journal_index," +
            " created_at, balance_after_minor, kind) VALUES (" + ENTRY + ", " + TRANSFER + ", 1, 9, -5, 'USD', 1, now(), -5, 0)";
        exec(entry);
        assertEquals("23505", assertThrows(SQLException.class, () -> exec(entry)).getSQLState(), "the same entry twice");

        final String transfer = "INSERT INTO transfers (id, tenant_id, kind, debit_account_id, credit_account_id, amount_minor, currency," +
            " reference, journal_index, created_at) VALUES ('01900000-0000-7000-8000-0000000%s', 1, 'transfer', 2, 1, 5, 'USD', %s, %d, now())";
        exec(String.format(transfer, "10000", "NULL", 2));
        exec(String.format(transfer, "14000", "NULL", 3));
        exec(String.format(transfer, "18000", "'inv-9'", 4));
        final SQLException reused = assertThrows(SQLException.class, () -> exec(String.format(transfer, "1c000", "'inv-9'", 5)));
        assertEquals("23505", reused.getSQLState());
        assertTrue(reused.getMessage().contains("transfers_reference_unique"), reused.getMessage());
        assertFalse(reused.getMessage().contains("transfers_pkey"), reused.getMessage());
    }

    private static Set<String> indexesOf(final String table) throws SQLException
    {
        final Set<String> names = new TreeSet<>();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND tablename = '" + table + "'"))
        {
            while (rs.next())
            {
                names.add(rs.getString(1));
            }
        }
        return names;
    }

    private static String definitionOf(final String index) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT indexdef FROM pg_indexes WHERE indexname = '" + index + "'"))
        {
            return rs.next() ? rs.getString(1) : "";
        }
    }

    /** @return the plan of {@code query} with sequential scans priced out: an index the query can use is then used. */
    private static String plan(final String query) throws SQLException
    {
        final StringBuilder plan = new StringBuilder();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement())
        {
            c.setAutoCommit(false);
            s.execute("SET LOCAL enable_seqscan = off");
            try (ResultSet rs = s.executeQuery("EXPLAIN " + query))
            {
                while (rs.next())
                {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
            c.rollback();
        }
        return plan.toString();
    }

    private static void exec(final String sql) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement())
        {
            s.execute(sql);
        }
    }
}
