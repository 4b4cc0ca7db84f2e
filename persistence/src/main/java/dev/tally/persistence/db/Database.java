package dev.tally.persistence.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * Tally's PostgreSQL database: a small HikariCP pool for reads (the gateway's entry pages and old
 * transfers, the verifier, the outbox relay) and dedicated connections for the batched writer, plus
 * the Flyway migration run at startup.
 *
 * <p>Pool size: PostgreSQL's own rule of thumb is about {@code 2 × cores} active connections; on the
 * 2-core machines Tally targets that is {@value #POOL_SIZE_MAX}. The writer does not borrow from the
 * pool: it holds one connection of its own (session settings, temporary staging tables) and reconnects
 * after a failure, so a slow read can never starve it.
 */
public final class Database implements AutoCloseable
{
    /** Pooled connections at most (reads); the writer's own connection comes on top. */
    public static final int POOL_SIZE_MAX = 4;
    /** How long a caller waits for a pooled connection before failing. */
    public static final long CONNECTION_TIMEOUT_MS = 5_000;
    /** Socket connect timeout of every connection, seconds. */
    private static final int CONNECT_TIMEOUT_S = 5;
    /**
     * The writer's socket timeout: a batch's statements take milliseconds, so a minute without a byte from the server
     * means the connection is gone (a partition, a dead host) and the batch is retried on a new one; without it the
     * writer would wait for the operating system's keep-alive (about two hours) while writes are refused.
     */
    static final int WRITER_SOCKET_TIMEOUT_S = 60;
    private static final Logger LOG = LoggerFactory.getLogger(Database.class);

    private final String jdbcUrl;
    private final HikariDataSource pool;

    private Database(final String jdbcUrl, final HikariDataSource pool)
    {
        this.jdbcUrl = jdbcUrl;
        this.pool = pool;
    }

    /**
     * Opens a pool on {@code jdbcUrl} ({@code jdbc:postgresql://host:port/db?user=..&password=..}). The
     * database need not be reachable yet: connections are made on demand.
     */
    public static Database connect(final String jdbcUrl)
    {
        if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql:"))
        {
            throw new IllegalArgumentException("not a PostgreSQL JDBC URL: " + jdbcUrl);
        }
        final HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setPoolName("tally-pg");
        config.setMaximumPoolSize(POOL_SIZE_MAX);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(CONNECTION_TIMEOUT_MS);
        // Do not fail construction when the server is down: reads fail (and the writer retries) until it is back.
        config.setInitializationFailTimeout(-1);
        config.setDataSourceProperties(connectionProperties());
        return new Database(jdbcUrl, new HikariDataSource(config));
    }

    /** Opens a pool on the embedded server's Tally database. */
    public static Database connect(final EmbeddedDatabase embedded)
    {
        return connect(embedded.jdbcUrl());
    }

    /** @return the pool, for reads. */
    public DataSource dataSource()
    {
        return pool;
    }

    public String jdbcUrl()
    {
        return jdbcUrl;
    }

    /**
     * Applies pending Flyway migrations ({@code classpath:db/migration}) and returns how many ran. Call once
     * at startup, before the writer starts. Needs the server reachable.
     */
    public int migrate()
    {
        requireUtf8();
        final MigrateResult result = Flyway.configure()
            .dataSource(pool)
            .locations("classpath:db/migration")
            .load()
            .migrate();
        LOG.info("schema at version {} ({} migration(s) applied)", result.targetSchemaVersion, result.migrationsExecuted);
        return result.migrationsExecuted;
    }

    /**
     * Refuses a database whose encoding is not UTF-8: transfer metadata is Unicode text, and a server that cannot
     * hold some character of it would refuse that transfer's rows in the writer again on every retry and replay,
     * which stops the read model for good. Checked before anything is written.
     */
    void requireUtf8()
    {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SHOW server_encoding"))
        {
            final String encoding = rs.next() ? rs.getString(1) : "unknown";
            if (!"UTF8".equalsIgnoreCase(encoding))
            {
                throw new IllegalStateException("the read model's database must use the UTF8 encoding, not " + encoding +
                    " (create it with ENCODING 'UTF8')");
            }
        }
        catch (final SQLException ex)
        {
            throw new IllegalStateException("cannot read the read model's database encoding", ex);
        }
    }

    /**
     * Opens a connection outside the pool, for the writer: autocommit off, a {@value #WRITER_SOCKET_TIMEOUT_S} s socket
     * timeout, {@code synchronous_commit = on} whatever the server's default: once a batch commits, the writer lets go of
     * its effects, so a commit PostgreSQL took back in a crash of its own (a killed postmaster, restarted under a running
     * Tally) would leave the read model short until Tally itself restarted and replayed the journal. One WAL flush per
     * batch (a few milliseconds against batches of up to 50,000 rows) buys that.
     */
    public Connection openWriterConnection() throws SQLException
    {
        final Properties properties = connectionProperties();
        properties.setProperty("socketTimeout", Integer.toString(WRITER_SOCKET_TIMEOUT_S));
        final Connection connection = DriverManager.getConnection(jdbcUrl, properties);
        try (Statement s = connection.createStatement())
        {
            s.execute("SET synchronous_commit = on");
            s.execute("SET application_name = 'tally-writer'");
        }
        connection.setAutoCommit(false);
        return connection;
    }

    /**
     * Opens a connection outside the pool for a caller that must not wait long, nor for the pool: autocommit,
     * connect and socket timeouts of {@code timeoutSeconds} (the journaler's reference check).
     */
    public Connection openDedicatedConnection(final String applicationName, final int timeoutSeconds) throws SQLException
    {
        final Properties properties = connectionProperties();
        properties.setProperty("ApplicationName", applicationName);
        properties.setProperty("connectTimeout", Integer.toString(timeoutSeconds));
        properties.setProperty("socketTimeout", Integer.toString(timeoutSeconds));
        properties.setProperty("loginTimeout", Integer.toString(timeoutSeconds));
        return DriverManager.getConnection(jdbcUrl, properties);
    }

    @Override
    public void close()
    {
        pool.close();
    }

    private static Properties connectionProperties()
    {
        final Properties properties = new Properties();
        properties.setProperty("ApplicationName", "tally");
        properties.setProperty("connectTimeout", Integer.toString(CONNECT_TIMEOUT_S));
        properties.setProperty("tcpKeepAlive", "true");
        properties.setProperty("reWriteBatchedInserts", "true");
        return properties;
    }
}
