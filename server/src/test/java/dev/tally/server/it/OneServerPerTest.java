package dev.tally.server.it;

import dev.tally.server.TallyServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Each test gets a fresh {@link TallyServer} with its own journal folder, and a client of tenant
 * {@value Servers#TENANT}; accounts are created by the test itself.
 */
abstract class OneServerPerTest
{
    static final String TRY = TallyClient.TRY;

    @TempDir
    Path dataDir;

    TallyServer server;
    TallyClient client;

    @BeforeEach
    void startServer() throws Exception
    {
        server = Servers.start(dataDir);
        client = Servers.client(server);
    }

    @AfterEach
    void stopServer()
    {
        if (server != null)
        {
            server.close();
        }
    }

    /** Creates an account of tenant {@value Servers#TENANT} and checks the 201. */
    void createAccount(final long id, final boolean debitsMustNotExceedCredits)
    {
        final Reply reply = client.createAccount(id, TRY, debitsMustNotExceedCredits);
        assertEquals(201, reply.status(), () -> "create account " + id + ": " + reply);
    }

    /** Moves {@code amount} from {@code from} to {@code to} under a fresh key and checks the 201. */
    void fund(final long from, final long to, final String amount)
    {
        final Reply reply = client.transfer("fund-" + from + "-" + to + "-" + System.nanoTime(), from, to, amount, TRY, null);
        assertEquals(201, reply.status(), () -> "fund " + to + ": " + reply);
    }

    /** @return the account's available total as the API writes it, e.g. {@code "1900.00"}. */
    String available(final long accountId)
    {
        return client.accountJson(accountId).get("available").text();
    }

    /** @return the account's posted total as the API writes it, e.g. {@code "1900.00"}. */
    String posted(final long accountId)
    {
        return client.accountJson(accountId).get("posted").text();
    }

    /** @return the account's held total as the API writes it, e.g. {@code "1900.00"}. */
    String held(final long accountId)
    {
        return client.accountJson(accountId).get("held").text();
    }
}
