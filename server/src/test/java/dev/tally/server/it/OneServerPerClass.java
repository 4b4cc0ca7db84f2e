package dev.tally.server.it;

import dev.tally.server.TallyServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One {@link TallyServer} for all the tests of a class, with its embedded PostgreSQL read model and no tick within a
 * minute (the journal holds exactly what the tests sent), and a client of tenant {@value Servers#TENANT}. The tests share
 * it, so each uses accounts of its own; {@link #createAccounts} opens those they share.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OneServerPerClass
{
    static final String TRY = TallyClient.TRY;

    /** A fresh folder for each test class: JUnit sets a static temporary folder before the class's first {@code @BeforeAll}. */
    @TempDir
    static Path dataDir;

    TallyServer server;
    TallyClient client;

    @BeforeAll
    void startServer() throws Exception
    {
        server = Servers.startWithReadModel(dataDir);
        client = Servers.client(server);
        createAccounts();
    }

    /** Opens the accounts the class's tests share, once the server is up: none unless a class says otherwise. */
    void createAccounts() throws Exception
    {
    }

    static void assertProblem(final Reply reply, final int status, final String slug)
    {
        assertEquals(status, reply.status(), reply::toString);
        assertEquals(slug, reply.problemSlug(), reply::toString);
    }

    @AfterAll
    void stopServer()
    {
        if (server != null)
        {
            server.close();
        }
    }
}
