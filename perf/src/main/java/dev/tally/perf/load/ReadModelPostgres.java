package dev.tally.perf.load;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One PostgreSQL server for the read models of a series of in-process Tally servers ({@code compare} starts a fresh
 * Tally for each run): {@link BenchPostgres}'s settings, the same as the peer's server, started once and kept warm,
 * and a fresh database per Tally ({@link #createDatabase}), dropped when that Tally stops. So each run's read model
 * starts from empty tables, as the peer's tables are emptied before each of its runs.
 */
public final class ReadModelPostgres implements AutoCloseable
{
    private final EmbeddedPostgres postgres;
    private final Path dataDirectory;
    private final AtomicInteger databases = new AtomicInteger();

    private ReadModelPostgres(final EmbeddedPostgres postgres, final Path dataDirectory)
    {
        this.postgres = postgres;
        this.dataDirectory = dataDirectory;
    }

    /** Starts the server in {@code dataDirectory} (created empty). */
    public static ReadModelPostgres start(final Path dataDirectory) throws IOException
    {
        return new ReadModelPostgres(BenchPostgres.start(dataDirectory, BenchPostgres.settings(false, 50)), dataDirectory);
    }

    /** A database of this server, for one Tally. */
    public record Database(ReadModelPostgres server, String name, String jdbcUrl)
    {
        /** VACUUM ANALYZE then CHECKPOINT, as the peer's {@code settle}: what setup left is written before the window. */
        public void settle() throws SQLException
        {
            try (Connection connection = server.postgres.getDatabase("postgres", name).getConnection();
                 Statement statement = connection.createStatement())
            {
                statement.execute("VACUUM (ANALYZE)");
                statement.execute("CHECKPOINT");
            }
        }

        /** Drops the database; its Tally must have stopped. */
        public void drop() throws SQLException
        {
            server.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        }
    }

    /** @return a new, empty database. */
    public Database createDatabase() throws SQLException
    {
        final String name = "tally_run_" + databases.incrementAndGet();
        execute("CREATE DATABASE " + name);
        return new Database(this, name, postgres.getJdbcUrl("postgres", name));
    }

    private void execute(final String sql) throws SQLException
    {
        try (Connection connection = postgres.getPostgresDatabase().getConnection(); Statement statement = connection.createStatement())
        {
            statement.execute(sql);
        }
    }

    /** @return CPU time used so far by this server (postmaster and all its processes), ns; -1 when unknown. */
    public long cpuNs()
    {
        try
        {
            return ProcessCpu.postgresNs(Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid")).get(0).trim()));
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
    }

    @Override
    public void close() throws IOException
    {
        postgres.close();
    }
}
