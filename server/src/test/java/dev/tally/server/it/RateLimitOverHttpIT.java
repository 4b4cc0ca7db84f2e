package dev.tally.server.it;

import dev.tally.gateway.http.HttpLimits;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --rate-limit-per-tenant}: a tenant over its rate gets 429 with Retry-After; others and the probes do not. */
class RateLimitOverHttpIT
{
    private static final int PER_SECOND = 5;

    @TempDir
    Path dataDir;

    @Test
    void shouldAnswer429WithRetryAfterToATenantOverItsRateOnly() throws Exception
    {
        final HttpLimits limits = HttpLimits.defaults().withRateLimit(PER_SECOND);
        try (TallyServer server = Servers.start(Servers.config(dataDir, Durability.ASYNC, limits, LedgerPipeline.PipelineConfig.defaults())))
        {
            final TallyClient client = Servers.client(server);
            int served = 0;
            Reply refused = null;
            // a burst of 5 passes; a quick loop reaches the 6th well within the 200 ms a token takes to return
            for (int i = 0; i < 4 * PER_SECOND && refused == null; i++)
            {
                final Reply reply = client.account(1);
                if (reply.status() == 429)
                {
                    refused = reply;
                }
                else
                {
                    assertEquals(404, reply.status(), reply::toString);
                    served++;
                }
            }
            assertTrue(refused != null, "a tenant over its rate is refused");
            assertTrue(served >= PER_SECOND, "the burst passes first: " + served);
            assertEquals("rate-limited", refused.problemSlug());
            assertTrue(Integer.parseInt(refused.header("Retry-After")) >= 1, refused::toString);

            final TallyClient other = new TallyClient(server.port(), Servers.OTHER_TENANT_KEY);
            assertEquals(404, other.account(1).status(), "another tenant has its own bucket");
            for (int i = 0; i < 4 * PER_SECOND; i++)
            {
                assertEquals(200, client.get("/health").status(), "the probes are not rate limited");
            }
            Thread.sleep(1_100);
            assertEquals(404, client.account(1).status(), "tokens come back");
        }
    }
}
