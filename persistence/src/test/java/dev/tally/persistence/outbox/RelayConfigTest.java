package dev.tally.persistence.outbox;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the relay's limits relate, and the backoff schedule the docs promise. */
class RelayConfigTest
{
    private static final List<WebhookEndpoint> ONE = List.of(WebhookEndpoint.of("https://example.test/hooks", "s".repeat(16)));

    @Test
    void shouldDoubleTheBackoffFromTheBaseUpToTheCap()
    {
        final RelayConfig config = RelayConfig.defaults(ONE);
        final long[] expectedMs = {1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000, 600_000, 600_000};
        for (int failed = 1; failed <= expectedMs.length; failed++)
        {
            assertEquals(expectedMs[failed - 1], config.backoffMs(failed), "after " + failed + " failures");
        }
        assertEquals(600_000, config.backoffMs(Integer.MAX_VALUE), "no overflow however many failures");
        assertEquals(600_000, RetrySchedule.delayMs(86_400_000L - 1, 600_000, 63));
    }

    @Test
    void shouldKeepJitterWithinTenPercentAboveTheDelay()
    {
        for (int i = 0; i < 1_000; i++)
        {
            final long delay = RetrySchedule.jitteredDelayMs(1_000, 600_000, 3);
            assertTrue(delay >= 4_000 && delay <= 4_400, "jittered " + delay);
        }
    }

    @Test
    void shouldRefuseALeaseThatADeliveryCouldOutlast()
    {
        final RelayConfig config = RelayConfig.defaults(ONE);
        assertTrue(config.leaseMs() >= config.requestTimeoutMs() + RelayConfig.LEASE_MARGIN_MS);
        assertThrows(IllegalArgumentException.class, () -> config.withTimings(200, 10_000, 10_000));
    }

    @Test
    void shouldBoundTheRelaysWaitForPostgres()
    {
        final RelayConfig config = RelayConfig.defaults(ONE);
        assertEquals(30_000, config.databaseTimeoutMs());
        assertThrows(IllegalArgumentException.class, () -> config.withDatabaseTimeout(0));
        assertThrows(IllegalArgumentException.class, () -> config.withDatabaseTimeout(RelayConfig.DATABASE_TIMEOUT_MS_MAX + 1));
    }

    @Test
    void shouldRefuseShortSecretsDuplicateUrlsNonHttpUrlsAndUrlsRunTogether()
    {
        assertThrows(IllegalArgumentException.class, () -> WebhookEndpoint.of("https://example.test/hooks", "short"));
        assertThrows(IllegalArgumentException.class, () -> WebhookEndpoint.of("ftp://example.test/hooks", "s".repeat(16)));
        final IllegalArgumentException joined = assertThrows(IllegalArgumentException.class,
            () -> WebhookEndpoint.of("https://example.test/x,https://other.test/y?token=abc123", "s".repeat(16)));
        assertFalse(joined.getMessage().contains("abc123"), joined.getMessage());
        assertThrows(IllegalArgumentException.class, () -> WebhookEndpoint.of("https://example.test/x?a=1,HTTP://other.test/", "s".repeat(16)));
        // a return URL in the query is a legal receiver URL, not two joined
        assertEquals("/in", WebhookEndpoint.of("https://example.test/in?next=https://app.test/done", "s".repeat(16)).url().getPath());
        assertThrows(IllegalArgumentException.class, () -> RelayConfig.defaults(List.of(ONE.get(0), ONE.get(0))));
        assertThrows(IllegalArgumentException.class, () -> RelayConfig.defaults(List.of()));
    }

    @Test
    void shouldNeverPrintTheSecretNorCredentialsInTheUrl()
    {
        final WebhookEndpoint endpoint = WebhookEndpoint.of("https://ops:hunter2@example.test:8443/hooks?token=abc123", "top-secret-value-123");
        assertEquals("https://example.test:8443/hooks?…", endpoint.displayUrl());
        for (final String shown : List.of(endpoint.toString(), RelayConfig.defaults(List.of(endpoint)).toString()))
        {
            assertFalse(shown.contains("top-secret") || shown.contains("hunter2") || shown.contains("abc123"), shown);
        }
        assertEquals("http://example.test/", WebhookEndpoint.of("http://example.test", "s".repeat(16)).displayUrl());
    }

    @Test
    void shouldRefuseEndpointsThatDifferOnlyByCredentials()
    {
        assertThrows(IllegalArgumentException.class, () -> RelayConfig.defaults(List.of(
            WebhookEndpoint.of("https://example.test/hooks?token=a", "s".repeat(16)),
            WebhookEndpoint.of("https://example.test/hooks?token=b", "s".repeat(16)))));
    }
}
