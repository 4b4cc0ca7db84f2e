package dev.tally.persistence.db;

import dev.tally.persistence.PostgresFixture;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The embedded default: durable settings, loopback only, and its data directory kept across restarts. */
class EmbeddedDatabaseTest
{
    @Test
    void shouldKeepItsDataAcrossARestartWithDurableSettings() throws SQLException
    {
        final Path directory = Paths.get("target", "pg", EmbeddedDatabaseTest.class.getSimpleName()).toAbsolutePath();
        PostgresFixture.deleteRecursively(directory);
        try (EmbeddedDatabase first = EmbeddedDatabase.start(directory))
        {
            try (Database db = Database.connect(first))
            {
                assertEquals(11, db.migrate(), "V1 ledger, V2 partitions, V3 outbox relay, V4 transfer metadata, V5 indexes, V6 outbox payloads," +
                    " V7 entry history, V8 account status, V9 account metadata, V10 low-balance alert events, V11 outbox ids as strings");
            }
            try (Connection c = DriverManager.getConnection(first.jdbcUrl()); Statement s = c.createStatement())
            {
                assertEquals("on", text(s, "SHOW fsync"));
                assertEquals("off", text(s, "SHOW synchronous_commit"));
                assertEquals("localhost", text(s, "SHOW listen_addresses"));
                s.execute("INSERT INTO processed_messages (consumer, message_id) VALUES ('restart', 'kept')");
            }
        }
        try (EmbeddedDatabase second = EmbeddedDatabase.start(directory); Database db = Database.connect(second))
        {
            assertEquals(0, db.migrate(), "already migrated");
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement())
            {
                assertEquals("kept", text(s, "SELECT message_id FROM processed_messages WHERE consumer = 'restart'"));
            }
            assertTrue(second.jdbcUrl().startsWith("jdbc:postgresql://localhost:"));
            try (Connection writer = db.openWriterConnection(); Statement s = writer.createStatement())
            {
                assertEquals(Database.WRITER_SOCKET_TIMEOUT_S * 1000, writer.getNetworkTimeout(),
                    "a writer on a dead connection gives up after a minute, not after the OS keep-alive's two hours");
                assertEquals("on", text(s, "SHOW synchronous_commit"),
                    "the writer's commits survive a crash of PostgreSQL alone (EmbeddedDatabaseSupervisorTest)");
            }
        }
    }

    @Test
    void shouldRefuseADatabaseThatIsNotUtf8BeforeMigratingIt() throws SQLException
    {
        final Path directory = Paths.get("target", "pg", EmbeddedDatabaseTest.class.getSimpleName() + "-latin1").toAbsolutePath();
        PostgresFixture.deleteRecursively(directory);
        try (EmbeddedDatabase server = EmbeddedDatabase.start(directory))
        {
            try (Connection c = DriverManager.getConnection(server.jdbcUrl()); Statement s = c.createStatement())
            {
                assertEquals("UTF8", text(s, "SHOW server_encoding"), "the embedded default is UTF-8");
                s.execute("CREATE DATABASE latin TEMPLATE template0 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C'");
            }
            try (Database db = Database.connect(server.jdbcUrl("latin")))
            {
                final IllegalStateException refused = assertThrows(IllegalStateException.class, db::migrate);
                assertTrue(refused.getMessage().contains("UTF8") && refused.getMessage().contains("LATIN1"), refused.getMessage());
                try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement())
                {
                    assertEquals("0", text(s, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), "nothing migrated");
                }
            }
        }
    }

    @Test
    void shouldLeaveALivePostmasterAloneWithoutTheDataFolderLock() throws SQLException
    {
        final Path directory = Paths.get("target", "pg", EmbeddedDatabaseTest.class.getSimpleName() + "-live").toAbsolutePath();
        PostgresFixture.deleteRecursively(directory);
        try (EmbeddedDatabase live = EmbeddedDatabase.start(directory, 0, false))
        {
            // Without the lock of a data folder around it, a running postmaster may be a live server's, not an orphan.
            final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> EmbeddedDatabase.start(directory, 0, false));
            try (Connection c = DriverManager.getConnection(live.jdbcUrl()); Statement s = c.createStatement())
            {
                assertEquals("1", text(s, "SELECT 1"), "the live server still answers");
            }
            assertTrue(String.valueOf(refused.getMessage()).contains("is running on " + directory), refused.getMessage());
        }
    }

    @Test
    void shouldLeadWithNoSpaceLeftOnDeviceWhenPostgresSaysSo()
    {
        // What pg_ctl and PostgreSQL 14 wrote for a start on a full tmpfs (EmbeddedDatabaseDiskFullTest, which needs root)
        final String fullDisk = "waiting for server to start....2026-12-07 05:09:54.471 UTC [30114] FATAL:  could not write lock " +
            "file \"postmaster.pid\": No space left on device\n stopped waiting\npg_ctl: could not start server\nExamine the log output.";
        assertEquals("no space left on device: PostgreSQL did not start in /data/pg: FATAL: could not write lock file " +
            "\"postmaster.pid\": No space left on device; pg_ctl: could not start server",
            EmbeddedDatabase.startFailure(Paths.get("/data/pg"), fullDisk));

        final String portTaken = "waiting for server to start....2026-12-07 05:11:02.101 UTC [4242] LOG:  could not bind IPv4 address " +
            "\"127.0.0.1\": Address already in use\n2026-12-07 05:11:02.101 UTC [4242] FATAL:  could not create any TCP/IP sockets\n" +
            " stopped waiting\npg_ctl: could not start server";
        assertEquals("PostgreSQL did not start in /data/pg: FATAL: could not create any TCP/IP sockets; pg_ctl: could not start server",
            EmbeddedDatabase.startFailure(Paths.get("/data/pg"), portTaken));
    }

    private static String text(final Statement s, final String query) throws SQLException
    {
        try (ResultSet rs = s.executeQuery(query))
        {
            rs.next();
            return rs.getString(1);
        }
    }
}
