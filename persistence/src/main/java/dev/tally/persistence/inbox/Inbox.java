package dev.tally.persistence.inbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The idempotent-consumer helper: a consumer of Tally's events (or any at-least-once message) marks the
 * message processed IN THE SAME TRANSACTION as its own work, so a redelivery finds the mark and does nothing.
 *
 * <pre>{@code
 * connection.setAutoCommit(false);
 * if (Inbox.markProcessed(connection, "settlement", eventId)) {
 *     ... the consumer's own writes ...
 * }
 * connection.commit();   // the mark and the work, or neither
 * }</pre>
 */
public final class Inbox
{
    private static final String MARK =
        "INSERT INTO processed_messages (consumer, message_id) VALUES (?, ?) ON CONFLICT DO NOTHING";

    private Inbox()
    {
    }

    /**
     * @return true when this is the first time {@code consumer} sees {@code messageId} (do the work), false
     * when it was already processed (acknowledge and do nothing). A concurrent first delivery in another
     * transaction blocks here until that one commits or rolls back, then answers accordingly.
     */
    public static boolean markProcessed(final Connection connection, final String consumer, final String messageId)
        throws SQLException
    {
        try (PreparedStatement s = connection.prepareStatement(MARK))
        {
            s.setString(1, consumer);
            s.setString(2, messageId);
            return s.executeUpdate() == 1;
        }
    }
}
