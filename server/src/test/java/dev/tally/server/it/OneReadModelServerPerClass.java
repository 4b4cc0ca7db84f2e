package dev.tally.server.it;

import dev.tally.server.TallyServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One {@link TallyServer} with its embedded PostgreSQL read model for the whole test class (starting PostgreSQL takes
 * seconds), no ticks, and a client of tenant {@value Servers#TENANT}; {@link #createAccounts} opens what the tests share.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OneReadModelServerPerClass
{
    static final String TRY = TallyClient.TRY;

    /** Made before {@code @BeforeAll} and shared by the class's tests, as the server is (static: a per-class directory). */
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

    @AfterAll
    void stopServer()
    {
        if (server != null)
        {
            server.close();
        }
    }

    /** Opens the accounts the class's tests share; the server is up. */
    abstract void createAccounts();

    static void assertProblem(final Reply reply, final int status, final String slug)
    {
        assertEquals(status, reply.status(), reply::toString);
        assertEquals(slug, reply.problemSlug(), reply::toString);
    }
}
