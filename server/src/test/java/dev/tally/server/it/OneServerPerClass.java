package dev.tally.server.it;

import dev.tally.gateway.http.HttpLimits;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * One {@link TallyServer} for all the tests of a class, with its embedded PostgreSQL read model and no tick within a
 * minute (the journal holds exactly what the tests sent), and a client of tenant {@value Servers#TENANT}. The tests share
 * it, so each uses accounts of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OneServerPerClass
{
    /** A fresh folder for each test class: JUnit sets a static temporary folder before the class's first {@code @BeforeAll}. */
    @TempDir
    static Path dataDir;

    TallyServer server;
    TallyClient client;

    @BeforeAll
    void startServer() throws Exception
    {
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, Servers.apiKeys(), Servers.IO_THREADS,
            LedgerConfig.small(), Servers.withoutTicks(), HttpLimits.defaults(), null, true);
        server = new TallyServer(config);
        client = Servers.client(server);
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
