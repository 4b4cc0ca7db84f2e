package dev.tally.server.it;

import com.sun.net.httpserver.HttpServer;
import dev.tally.gateway.api.routing.TenantId;
import dev.tally.persistence.outbox.WebhookSignature;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code tally serve --webhook-url …} as a real process with its embedded PostgreSQL: a transfer posted over
 * HTTP comes out of the outbox as a signed TransferPosted webhook at a receiver on loopback. The secret comes
 * from the environment ({@code TALLY_WEBHOOK_SECRET}), never the command line, and never reaches the log.
 */
class WebhookDeliveryIT
{
    private static final String SECRET = "it-webhook-secret-0123456789";
    /** 2^53 + 1: the first integer a JSON number read through a double cannot hold. */
    private static final long FUNDING = 9_007_199_254_740_993L;

    @TempDir
    Path dataDir;

    @TempDir
    Path logDir;

    /** A request as the receiver saw it. */
    private record Delivery(String eventType, String eventId, String signature, byte[] body)
    {
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldDeliverASignedTransferPostedWebhookAfterATransferIsPosted() throws Exception
    {
        final BlockingQueue<Delivery> deliveries = new LinkedBlockingQueue<>();
        final HttpServer receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        receiver.createContext("/hooks", exchange ->
        {
            try (InputStream in = exchange.getRequestBody())
            {
                deliveries.add(new Delivery(exchange.getRequestHeaders().getFirst("Tally-Event-Type"),
                    exchange.getRequestHeaders().getFirst("Tally-Event-Id"), exchange.getRequestHeaders().getFirst(WebhookSignature.HEADER),
                    in.readAllBytes()));
            }
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        receiver.start();
        final Path log = logDir.resolve("serve.log");
        try (TallyProcess tally = TallyProcess.start(dataDir, "async", log,
            List.of("--webhook-url", "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hooks"),
            Map.of("TALLY_WEBHOOK_SECRET", SECRET)))
        {
            final TallyClient client = tally.client();
            // ids above 2^53, which a JavaScript consumer of a JSON number would round: the payload carries them as strings
            assertEquals(201, client.createAccount(FUNDING, TallyClient.TRY, false).status());
            assertEquals(201, client.createAccount(FUNDING + 1, TallyClient.TRY, true).status());
            final Reply posted = client.transfer("wh-1", FUNDING, FUNDING + 1, "12.50", TallyClient.TRY, "inv-wh-1");
            assertEquals(201, posted.status(), posted.toString());
            final String transferId = posted.json().get("id").text();

            final Delivery delivery = awaitEvent(deliveries, "TransferPosted", 30_000);
            assertNotNull(delivery, () -> "no TransferPosted webhook within 30 s\n" + tally.logTail());
            assertEquals(WebhookSignature.Verification.VALID, WebhookSignature.verify(SECRET.getBytes(StandardCharsets.UTF_8),
                delivery.signature(), delivery.body(), Instant.now().getEpochSecond(), WebhookSignature.TOLERANCE_DEFAULT_S));
            final Json event = Json.parse(new String(delivery.body(), StandardCharsets.UTF_8));
            assertEquals(2, event.get("schemaVersion").asLong());
            assertEquals("t", event.get("tenant").text(), "the tenant by the name its API key was given");
            assertEquals(TenantId.of("t"), event.get("tenantId").asId());
            assertEquals("TransferPosted", event.get("type").text());
            assertEquals(delivery.eventId(), event.get("eventId").text(), "the id header is the payload's eventId");
            assertEquals(transferId, event.get("transferId").text());
            assertEquals("12.50", event.get("amount").text());
            assertEquals("inv-wh-1", event.get("reference").text());
            assertEquals(FUNDING, event.get("debitAccountId").asId());
            assertEquals(FUNDING + 1, event.get("creditAccountId").asId());

            final String metrics = awaitMetric(client, "tally_webhook_deliveries_total");
            assertTrue(metrics.contains("tally_outbox_backlog_events"), metrics);
            assertTrue(metrics.contains("tally_webhook_failures_total"), metrics);
            tally.stop();
        }
        finally
        {
            receiver.stop(0);
        }
        assertFalse(Files.readString(log).contains(SECRET), "the secret never reaches the log");
    }

    private static Delivery awaitEvent(final BlockingQueue<Delivery> deliveries, final String type, final long timeoutMs)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (System.nanoTime() - deadline < 0)
        {
            final Delivery d = deliveries.poll(100, TimeUnit.MILLISECONDS);
            if (d != null && type.equals(d.eventType()))
            {
                return d;
            }
        }
        return null;
    }

    private static String awaitMetric(final TallyClient client, final String name) throws InterruptedException
    {
        String body = "";
        for (int i = 0; i < 100 && !body.contains(name); i++)
        {
            body = client.get("/metrics").body();
            Thread.sleep(50);
        }
        assertTrue(body.contains(name), name + " in /metrics");
        return body;
    }
}
