package dev.tally.persistence.writer;

import dev.tally.persistence.db.Database;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * One of the writer's two PostgreSQL connections and the batch it carries. The writer alternates between its lanes:
 * while one lane's transaction finishes (updates, watermark, commit) on the commit thread, the next batch fills the
 * other lane and streams its rows in on that lane's connection ({@link LedgerWriter}).
 *
 * <p>Used by one thread at a time: the writer thread, or the commit thread between a hand-off and its completion.
 */
final class WriterLane
{
    final WriteBatch batch = new WriteBatch();
    private final Database database;
    private Connection connection;
    private BatchSql sql;

    WriterLane(final Database database)
    {
        this.database = database;
    }

    /** @return this lane's statements, connecting first when the lane has no connection. */
    BatchSql sql() throws SQLException
    {
        if (sql == null)
        {
            connection = database.openWriterConnection();
            sql = new BatchSql(connection);
        }
        return sql;
    }

    void rollbackQuietly()
    {
        if (connection != null)
        {
            try
            {
                connection.rollback();
            }
            catch (final SQLException ignored)
            {
                // the connection is going away anyway
            }
        }
    }

    void close()
    {
        sql = null;
        if (connection != null)
        {
            try
            {
                connection.close();
            }
            catch (final SQLException ignored)
            {
                // nothing left to do with it
            }
            connection = null;
        }
    }
}
