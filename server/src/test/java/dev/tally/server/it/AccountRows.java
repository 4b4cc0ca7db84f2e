package dev.tally.server.it;

import dev.tally.server.TallyServer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

/** What the read model of an in-process server holds about an account: a column of its row, its outbox events. */
final class AccountRows
{
    private static final long WAIT_MS = 15_000;

    private AccountRows()
    {
    }

    /**
     * @param expression one text expression over the {@code accounts} row, such as {@code status || '/' || credits_frozen}.
     * @return its value for the account once it reads {@code expected} (the writer has caught up), or as it stands after
     *         15 s; null when there is no row.
     */
    static String await(final TallyServer server, final long accountId, final String expression, final String expected) throws Exception
    {
        final long deadline = System.currentTimeMillis() + WAIT_MS;
        String value = null;
        while (System.currentTimeMillis() < deadline)
        {
            try (Connection c = server.readModel().database().dataSource().getConnection();
                 PreparedStatement s = c.prepareStatement("SELECT " + expression + " FROM accounts WHERE account_id = ?"))
            {
                s.setLong(1, accountId);
                try (ResultSet rs = s.executeQuery())
                {
                    value = rs.next() ? rs.getString(1) : null;
                }
            }
            if (expected.equals(value))
            {
                break;
            }
            Thread.sleep(50);
        }
        return value;
    }

    /** @return the account's outbox events in journal order, each as "type payload". */
    static List<String> outbox(final TallyServer server, final long accountId) throws Exception
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

    /** @return {@link #outbox} once it holds at least {@code count} events, or as it stands after 15 s of waiting for the writer. */
    static List<String> awaitOutbox(final TallyServer server, final long accountId, final int count) throws Exception
    {
        final long deadline = System.currentTimeMillis() + WAIT_MS;
        List<String> events = outbox(server, accountId);
        while (events.size() < count && System.currentTimeMillis() < deadline)
        {
            Thread.sleep(50);
            events = outbox(server, accountId);
        }
        return events;
    }

    /** @return the event types of {@link #outbox}'s events alone, in order. */
    static List<String> types(final List<String> events)
    {
        return events.stream().map(e -> e.substring(0, e.indexOf(' '))).toList();
    }
}
