package dev.tally.persistence.inbox;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.outbox.OutboxRelay;
import dev.tally.persistence.outbox.OutboxRows;
import dev.tally.persistence.outbox.RelayConfig;
import dev.tally.persistence.outbox.WebhookEndpoint;
import dev.tally.persistence.outbox.WebhookSignature;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An idempotent consumer of Tally's webhooks, built the way docs/WEBHOOKS.md tells consumers to: verify the
 * signature, then in ONE transaction of its own mark the event processed with {@link Inbox} and do its work.
 * Its work here is an INSERT into a table with no unique key, so only the inbox stands between a redelivery
 * and a second effect.
 */
class InboxOverHttpTest
{
    private static final byte[] SECRET = "inbox-test-secret-0123456789".getBytes(StandardCharsets.UTF_8);
    private static final String CONSUMER = "settlement-mirror";

    static PostgresFixture pg;

    @BeforeAll
    static void startPostgres()
    {
        pg = PostgresFixture.start(InboxOverHttpTest.class);
    }

    @AfterAll
    static void stopPostgres()
    {
        pg.close();
    }

    @Test
    void shouldApplyOnceAMessageTheRelayDeliversTenTimes() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        final UUID event = rows.insert("tr-10", "TransferPosted");
        try (Consumer consumer = new Consumer(db))
        {
            final RelayConfig config = RelayConfig.defaults(List.of(new WebhookEndpoint(consumer.url(), SECRET)))
                .withTimings(10, 2_000, 10_000);
            final OutboxRelay relay = new OutboxRelay(db.dataSource(), config).start();
            try (relay)
            {
                rows.awaitAllPublished(10_000);
                // At least once means again: the relay resends whatever is unpublished (a crash before the mark).
                for (int redelivery = 0; redelivery < 9; redelivery++)
                {
                    rows.update("UPDATE outbox SET published_at = NULL WHERE id = '" + event + "'");
                    rows.awaitAllPublished(10_000);
                }
            }
            assertEquals(10, relay.deliveriesSucceeded(), "counted once the relay stopped (it counts after its commit)");
            assertEquals(10, consumer.requests.get(), "delivered ten times");
            assertEquals(1, rows.count("SELECT count(*) FROM consumer_effects WHERE event_id = '" + event + "'"), "applied once");
            assertEquals(1, rows.count("SELECT count(*) FROM processed_messages"));
        }
    }

    @Test
    void shouldApplyOnceWhenTwentyDeliveriesOfOneMessageRace() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        final String eventId = UUID.randomUUID().toString();
        final byte[] body = ("{\"schemaVersion\": 1, \"eventId\": \"" + eventId + "\"}").getBytes(StandardCharsets.UTF_8);
        final int deliveries = 20;
        try (Consumer consumer = new Consumer(db))
        {
            final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            final ExecutorService threads = Executors.newFixedThreadPool(deliveries);
            final CountDownLatch go = new CountDownLatch(1);
            final List<Future<Integer>> statuses = new ArrayList<>();
            for (int i = 0; i < deliveries; i++)
            {
                statuses.add(threads.submit(() ->
                {
                    go.await();
                    final HttpRequest request = HttpRequest.newBuilder(consumer.url())
                        .header("Tally-Event-Id", eventId)
                        .header(WebhookSignature.HEADER, new WebhookSignature(SECRET).header(Instant.now().getEpochSecond(), body))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
                    return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                }));
            }
            go.countDown();
            for (final Future<Integer> status : statuses)
            {
                assertEquals(200, status.get(), "every delivery is acknowledged, duplicates included");
            }
            threads.shutdown();
            assertEquals(deliveries, consumer.requests.get());
            assertEquals(1, rows.count("SELECT count(*) FROM consumer_effects WHERE event_id = '" + eventId + "'"), "one effect");
            assertEquals(1, rows.count("SELECT count(*) FROM processed_messages WHERE consumer = '" + CONSUMER + "'"));
        }
    }

    /**
     * The consumer: its own HTTP server (20 handler threads) and its own connection per request (no pool to
     * serialise them), so the deliveries really race inside PostgreSQL.
     */
    static final class Consumer implements AutoCloseable
    {
        final AtomicInteger requests = new AtomicInteger();
        private final String jdbcUrl;
        private final HttpServer server;
        private final ExecutorService executor = Executors.newFixedThreadPool(20);

        Consumer(final Database db) throws IOException, SQLException
        {
            jdbcUrl = db.jdbcUrl();
            try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement())
            {
                s.execute("CREATE TABLE IF NOT EXISTS consumer_effects (id bigserial PRIMARY KEY, event_id text NOT NULL)");
            }
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            server.createContext("/hooks", this::handle);
            server.setExecutor(executor);
            server.start();
        }

        URI url()
        {
            return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hooks");
        }

        private void handle(final HttpExchange exchange) throws IOException
        {
            requests.incrementAndGet();
            final byte[] body;
            try (InputStream in = exchange.getRequestBody())
            {
                body = in.readAllBytes();
            }
            final WebhookSignature.Verification verification = WebhookSignature.verify(SECRET,
                exchange.getRequestHeaders().getFirst(WebhookSignature.HEADER), body, Instant.now().getEpochSecond(),
                WebhookSignature.TOLERANCE_DEFAULT_S);
            int status = 400;
            if (verification == WebhookSignature.Verification.VALID)
            {
                try
                {
                    apply(exchange.getRequestHeaders().getFirst("Tally-Event-Id"));
                    status = 200;
                }
                catch (final SQLException | InterruptedException ex)
                {
                    status = 500;   // not applied: the sender retries
                }
            }
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        }

        /** The consumer's transaction: the inbox mark and the work commit together, or neither does. */
        private void apply(final String eventId) throws SQLException, InterruptedException
        {
            try (Connection c = DriverManager.getConnection(jdbcUrl))
            {
                c.setAutoCommit(false);
                if (Inbox.markProcessed(c, CONSUMER, eventId))
                {
                    try (PreparedStatement s = c.prepareStatement("INSERT INTO consumer_effects (event_id) VALUES (?)"))
                    {
                        s.setString(1, eventId);
                        s.executeUpdate();
                    }
                    Thread.sleep(20);   // widen the window in which the other deliveries arrive
                }
                c.commit();
            }
        }

        @Override
        public void close()
        {
            server.stop(0);
            executor.shutdownNow();
        }
    }
}
