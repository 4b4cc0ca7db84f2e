package dev.tally.persistence.writer;

import java.sql.SQLException;

/**
 * The writer's fault injection, for tests that need PostgreSQL to fail at a chosen point. Read once, when the writer is
 * built; without the property (every server) the check is one comparison that never fires.
 */
final class WriterFaults
{
    /**
     * {@code -Dtally.test.writerLosesCommitReplyOf=N}: the N-th commit looks failed after it went through, as when the
     * connection breaks before the reply arrives (0, the default: never).
     */
    static final String LOSE_COMMIT_REPLY_PROPERTY = "tally.test.writerLosesCommitReplyOf";

    private final long loseCommitReplyOf = Long.getLong(LOSE_COMMIT_REPLY_PROPERTY, 0);

    /** After a commit that went through: throws for the one chosen, on its first try ({@code batchRetries} 0). */
    void afterCommit(final long batchesCommittedBefore, final long batchRetries) throws SQLException
    {
        if (loseCommitReplyOf > 0 && batchesCommittedBefore + 1 == loseCommitReplyOf && batchRetries == 0)
        {
            throw new SQLException("injected: the connection broke before the COMMIT's reply (" + LOSE_COMMIT_REPLY_PROPERTY + ")",
                "08006");
        }
    }
}
