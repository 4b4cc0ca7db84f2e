package dev.tally.persistence.outbox;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.Executor;
import java.util.logging.Logger;

/**
 * The relay's view of a shared pool: every connection it hands out has a network timeout, so a statement whose
 * answer does not come (a silent network partition, a dead host) fails after {@code timeoutMs} instead of after the
 * operating system's keep-alive, about two hours. A JDBC socket read cannot be interrupted, so without it a stalled
 * statement would also hold {@link OutboxRelay#close()} for that long.
 *
 * <p>The timeout is set on the borrowed connection, not on the pool: HikariCP puts a connection's network timeout
 * back to the pool's own when it is returned, so the pool's other users (the verifier's long scans) never get it.
 */
final class BoundedWaitDataSource implements DataSource
{
    /** pgjdbc does not use the executor (it sets the socket's read timeout); the JDBC contract wants one. */
    private static final Executor DIRECT = Runnable::run;

    private final DataSource pool;
    private final int timeoutMs;

    BoundedWaitDataSource(final DataSource pool, final long timeoutMs)
    {
        this.pool = pool;
        this.timeoutMs = Math.toIntExact(timeoutMs);
    }

    @Override
    public Connection getConnection() throws SQLException
    {
        return bounded(pool.getConnection());
    }

    @Override
    public Connection getConnection(final String username, final String password) throws SQLException
    {
        return bounded(pool.getConnection(username, password));
    }

    private Connection bounded(final Connection connection) throws SQLException
    {
        try
        {
            connection.setNetworkTimeout(DIRECT, timeoutMs);
            return connection;
        }
        catch (final SQLException | RuntimeException ex)
        {
            try
            {
                connection.close();
            }
            catch (final SQLException closing)
            {
                ex.addSuppressed(closing);
            }
            throw ex;
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException
    {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(final PrintWriter out) throws SQLException
    {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(final int seconds) throws SQLException
    {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException
    {
        return pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException
    {
        return pool.getParentLogger();
    }

    @Override
    public <T> T unwrap(final Class<T> type) throws SQLException
    {
        return type.isInstance(this) ? type.cast(this) : pool.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(final Class<?> type) throws SQLException
    {
        return type.isInstance(this) || pool.isWrapperFor(type);
    }
}
