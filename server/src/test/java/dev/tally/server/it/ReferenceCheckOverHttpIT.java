package dev.tally.server.it;

import dev.tally.gateway.http.HttpLimits;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The journaler's check of references against PostgreSQL, over HTTP on an in-process server with its embedded
 * PostgreSQL: when the check cannot answer (here a table lock outlasts its statement timeout), a transfer with a
 * reference is refused with 503 {@code reference-check-unavailable}, unstored; checks pause for a second after the
 * failure, and once the store answers again checking resumes: new referenced transfers are accepted, and so is a
 * retry of the refused one under its own key.
 */
class ReferenceCheckOverHttpIT
{
    private static final String TRY = TallyClient.TRY;
    /** Well past the first pause after a failure (1 s), far short of any longer one. */
    private static final long RESUME_WITHIN_MS = 4_000;

    @TempDir
    Path dataDir;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldCheckReferencesAgainOnceTheStoreAnswersAfterAFailedCheck() throws Exception
    {
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, Servers.apiKeys(), Servers.IO_THREADS,
            LedgerConfig.small(), LedgerPipeline.PipelineConfig.defaults(), HttpLimits.defaults(), null, true);
        try (TallyServer server = new TallyServer(config))
        {
            final TallyClient client = Servers.client(server);
            assertEquals(201, client.createAccount(1, TRY, false).status());
            assertEquals(201, client.createAccount(2, TRY, false).status());

            try (Connection lock = server.readModel().database().dataSource().getConnection();
                 Statement statement = lock.createStatement())
            {
                lock.setAutoCommit(false);
                statement.execute("LOCK TABLE transfers IN ACCESS EXCLUSIVE MODE");   // the check's query waits past its timeout
                final Reply refused = client.transfer("while-locked", 1, 2, "1.00", TRY, "inv-locked");
                assertEquals(503, refused.status(), refused::toString);
                assertEquals("reference-check-unavailable", refused.problemSlug());
                lock.rollback();
            }

            final long releasedNs = System.nanoTime();
            Reply accepted = null;
            for (int attempt = 0; accepted == null && System.nanoTime() - releasedNs < TimeUnit.MILLISECONDS.toNanos(RESUME_WITHIN_MS);
                 attempt++)
            {
                final Reply reply = client.transfer("after-" + attempt, 1, 2, "1.00", TRY, "inv-after-" + attempt);
                if (reply.status() == 201)
                {
                    accepted = reply;
                }
                else
                {
                    assertEquals("reference-check-unavailable", reply.problemSlug(), "refused only while the check pauses");
                    Thread.sleep(100);
                }
            }
            assertNotNull(accepted, "a referenced transfer is accepted again within " + RESUME_WITHIN_MS + " ms of the store answering");

            final Reply retried = client.transfer("while-locked", 1, 2, "1.00", TRY, "inv-locked");
            assertEquals(201, retried.status(), () -> "the refusal was not stored: the retry is decided afresh: " + retried);
            assertFalse(retried.replayed());
            final Reply reused = client.transfer("reuse", 1, 2, "1.00", TRY, "inv-locked");
            assertEquals(409, reused.status(), reused::toString);
            assertEquals("duplicate-reference", reused.problemSlug());
        }
    }
}
