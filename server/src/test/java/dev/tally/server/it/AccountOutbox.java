package dev.tally.server.it;

import dev.tally.server.TallyServer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Reads an account's outbox rows from a server's PostgreSQL read model, as the relay would deliver them. */
final class AccountOutbox
{
    private static final long WAIT_MS = 15_000;

    private AccountOutbox()
    {
    }

    /** @return the account's outbox events in journal order, each as "type payload" (the payload as jsonb prints it). */
    static List<String> events(final TallyServer server, final long accountId) throws SQLException
    {
        final List<String> events = new ArrayList<>();
        try (Connection c = server.readModel().database().dataSource().getConnection();
             PreparedStatement s = c.prepareStatement("SELECT event_type, payload::text FROM outbox WHERE aggregate_type = 'account'" +
                 " AND aggregate_id = ? ORDER BY journal_index, id"))
        {
            s.setString(1, String.valueOf(accountId));
            try (ResultSet rs = s.executeQuery())
            {
                while (rs.next())
                {
                    events.add(rs.getString(1) + " " + rs.getString(2));
                }
            }
        }
        return events;
    }

    /** @return {@link #events} once there are at least {@code count}, or as they stand after 15 s of waiting for the writer. */
    static List<String> await(final TallyServer server, final long accountId, final int count) throws SQLException, InterruptedException
    {
        final long deadline = System.currentTimeMillis() + WAIT_MS;
        List<String> events = events(server, accountId);
        while (events.size() < count && System.currentTimeMillis() < deadline)
        {
            Thread.sleep(50);
            events = events(server, accountId);
        }
        return events;
    }

    /** @return the event types alone, in order. */
    static List<String> types(final List<String> events)
    {
        return events.stream().map(e -> e.substring(0, e.indexOf(' '))).toList();
    }
}
