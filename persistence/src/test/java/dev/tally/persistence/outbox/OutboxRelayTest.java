package dev.tally.persistence.outbox;

import dev.tally.ledger.LedgerConfig;
import dev.tally.persistence.LedgerScenario;
import dev.tally.persistence.MixedWorkload;
import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.verify.Verifier;
import dev.tally.persistence.writer.EffectRecorder;
import dev.tally.persistence.writer.LedgerWriter;
import dev.tally.persistence.writer.WriterConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The relay against a real embedded PostgreSQL and a real HTTP receiver on loopback: retries with backoff and
 * a full delivery log, order per aggregate without blocking the others, two relays on one table, cleanup.
 */
class OutboxRelayTest
{
    static final byte[] SECRET = "relay-test-secret-0123456789".getBytes(StandardCharsets.UTF_8);
    static final long REQUEST_TIMEOUT_MS = 400;
    static final long BACKOFF_BASE_MS = 50;
    static final long BACKOFF_CAP_MS = 400;

    static PostgresFixture pg;

    @BeforeAll
    static void startPostgres()
    {
        pg = PostgresFixture.start(OutboxRelayTest.class);
    }

    @AfterEach
    void closeDatabases()
    {
        pg.closeDatabases();   // a test's pool keeps up to 4 connections: 20 tests' worth would exceed max_connections
    }

    @AfterAll
    static void stopPostgres()
    {
        pg.close();
    }

    /** Fast settings: poll every 10 ms, 400 ms per request, retries after 50, 100, 200, 400, 400 … ms. */
    static RelayConfig fastConfig(final WebhookReceiver receiver)
    {
        return fastConfig(receiver.url());
    }

    /** {@link #fastConfig(WebhookReceiver)} for these endpoints, all signed with {@link #SECRET}. */
    static RelayConfig fastConfig(final URI... urls)
    {
        return RelayConfig.defaults(Arrays.stream(urls).map(url -> new WebhookEndpoint(url, SECRET)).toList())
            .withTimings(10, REQUEST_TIMEOUT_MS, 10_000)
            .withBackoff(BACKOFF_BASE_MS, BACKOFF_CAP_MS);
    }

    @Test
    void shouldRetryWithBackoffUntilTheReceiverAcceptsAndLogEveryAttempt() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        final UUID event = rows.insert("tr-1", "TransferPosted");
        // 500, 503, a hang past the request timeout, then 200.
        try (WebhookReceiver receiver = new WebhookReceiver(SECRET, (id, nth) -> switch (nth)
        {
            case 1 -> new WebhookReceiver.Answer(500, 0);
            case 2 -> new WebhookReceiver.Answer(503, 0);
            case 3 -> new WebhookReceiver.Answer(200, REQUEST_TIMEOUT_MS + 300);
            default -> WebhookReceiver.Answer.OK;
        }))
        {
            final OutboxRelay relay = new OutboxRelay(db.dataSource(), fastConfig(receiver)).start();
            try (relay)
            {
                rows.awaitAllPublished(10_000);
            }
            // Counters are read once the thread stopped: a relay counts a round after its commit.
            assertEquals(1, relay.eventsPublished());
            assertEquals(3, relay.deliveriesFailed());
            assertEquals(1, relay.deliveriesSucceeded());

            final List<WebhookReceiver.Received> got = receiver.awaitReceived(4, 2_000);
            assertEquals(4, got.size(), "four requests: " + got);
            for (final WebhookReceiver.Received r : got)
            {
                assertEquals(WebhookSignature.Verification.VALID, r.signature(), "every request is signed");
                assertEquals(event.toString(), r.eventId());
                assertEquals("TransferPosted", r.eventType());
                assertTrue(r.body().contains("\"schemaVersion\": 1"), r.body());
                assertTrue(r.body().startsWith("{\"tenant\": null, \"type\": "), () -> "a relay told no names: " + r.body());
            }
            assertEquals(Set.of(1, 2, 3, 4), Set.copyOf(got.stream().map(WebhookReceiver.Received::attemptHeader).toList()));
        }

        final List<Map<String, Object>> log = deliveries(db, event);
        assertEquals(4, log.size(), "one delivery log row per attempt: " + log);
        assertEquals(500, log.get(0).get("status_code"));
        assertEquals(503, log.get(1).get("status_code"));
        assertNull(log.get(2).get("status_code"), "a timeout has no status");
        assertTrue(String.valueOf(log.get(2).get("error")).startsWith("timeout"), String.valueOf(log.get(2).get("error")));
        assertEquals(200, log.get(3).get("status_code"));
        for (int i = 0; i < 4; i++)
        {
            assertEquals(i + 1, log.get(i).get("attempt"));
            assertEquals(i == 3, log.get(i).get("succeeded"));
            assertEquals(i == 3, log.get(i).get("next_attempt_at") == null, "a failed attempt says when the next one is due");
        }
        assertTrue((int)log.get(2).get("duration_ms") >= REQUEST_TIMEOUT_MS - 20, "the timeout took the request timeout");
        // Exponential backoff: attempt n+1 starts no sooner than base × 2^(n−1) after attempt n.
        for (int i = 0; i < 3; i++)
        {
            final long gapMs = Duration.between(((Timestamp)log.get(i).get("attempted_at")).toInstant(),
                ((Timestamp)log.get(i + 1).get("attempted_at")).toInstant()).toMillis();
            final long backoffMs = BACKOFF_BASE_MS << i;
            assertTrue(gapMs >= backoffMs, "gap " + gapMs + " ms after attempt " + (i + 1) + " is at least the " + backoffMs + " ms backoff");
        }
        assertEquals(4, rows.count("SELECT attempts FROM outbox WHERE id = '" + event + "'"));
        assertEquals(0, rows.count("SELECT count(*) FROM outbox WHERE last_error IS NOT NULL OR next_attempt_at IS NOT NULL"));
    }

    @Test
    void shouldKeepOrderPerAggregateWhileAnEarlyEventFailsWithoutBlockingOtherAggregates() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        final UUID a1 = rows.insert("A", "TransferPosted");
        final UUID b1 = rows.insert("B", "TransferPosted");
        final UUID a2 = rows.insert("A", "TransferReversed");
        final UUID c1 = rows.insert("C", "TransferPosted");
        final UUID a3 = rows.insert("A", "TransferReversed");
        final UUID b2 = rows.insert("B", "TransferReversed");
        // a1 fails three times (~350 ms of backoff); everything else is accepted at once.
        try (WebhookReceiver receiver = new WebhookReceiver(SECRET,
            (id, nth) -> id.equals(a1.toString()) && nth <= 3 ? new WebhookReceiver.Answer(500, 0) : WebhookReceiver.Answer.OK))
        {
            try (OutboxRelay relay = new OutboxRelay(db.dataSource(), fastConfig(receiver)).start())
            {
                rows.awaitAllPublished(10_000);
                assertTrue(relay.deliveriesFailed() >= 3, "a1's failures");
            }

            final List<String> accepted = receiver.accepted().stream().map(WebhookReceiver.Received::eventId).toList();
            assertEquals(6, accepted.size(), "each event accepted once: " + accepted);
            assertTrue(accepted.indexOf(a1.toString()) < accepted.indexOf(a2.toString()), "a1 before a2: " + accepted);
            assertTrue(accepted.indexOf(a2.toString()) < accepted.indexOf(a3.toString()), "a2 before a3: " + accepted);
            assertTrue(accepted.indexOf(b1.toString()) < accepted.indexOf(b2.toString()), "b1 before b2: " + accepted);
            // Not blocked by A: B and C were delivered while a1 was still failing.
            final int a1Accepted = accepted.indexOf(a1.toString());
            assertTrue(accepted.indexOf(b2.toString()) < a1Accepted, "B delivered during a1's retries: " + accepted);
            assertTrue(accepted.indexOf(c1.toString()) < a1Accepted, "C delivered during a1's retries: " + accepted);
            // a2 was not even attempted before a1 was accepted.
            final List<String> all = receiver.received().stream().map(WebhookReceiver.Received::eventId).toList();
            assertTrue(all.indexOf(a2.toString()) > all.lastIndexOf(a1.toString()), "no request for a2 before a1 succeeded: " + all);
        }
    }

    @Test
    void shouldNotHoldBackAnotherTenantsAggregateOfTheSameId() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        // Account ids are unique per tenant only: tenant 1's account 42 and tenant 2's account 42 are two aggregates.
        final UUID poison = rows.insert(1, "account", "42", "AccountCreated", Instant.now());
        final UUID other = rows.insert(2, "account", "42", "AccountCreated", Instant.now());
        try (WebhookReceiver receiver = new WebhookReceiver(SECRET,
            (id, nth) -> id.equals(poison.toString()) ? new WebhookReceiver.Answer(500, 0) : WebhookReceiver.Answer.OK))
        {
            final OutboxRelay relay = new OutboxRelay(db.dataSource(), fastConfig(receiver)).start();
            try (relay)
            {
                rows.awaitCount("SELECT count(*) FROM outbox WHERE published_at IS NOT NULL", 1, 5_000);
            }
            assertEquals(List.of(other.toString()), receiver.accepted().stream().map(WebhookReceiver.Received::eventId).toList(),
                "tenant 2's event is delivered while tenant 1's is refused");
            assertTrue(receiver.received().stream().filter(r -> r.eventId().equals(poison.toString())).count() >= 1);
        }
        assertEquals(1, rows.count("SELECT count(*) FROM outbox WHERE published_at IS NULL AND id = '" + poison + "'"));
    }

    @Test
    void shouldDeliverEveryEventExactlyOnceWithTwoRelaysOnTheSameTable() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        final int aggregates = 100;
        final int eventsPerAggregate = 4;
        final Map<String, List<String>> expectedOrder = new HashMap<>();
        for (int e = 0; e < eventsPerAggregate; e++)
        {
            for (int a = 0; a < aggregates; a++)
            {
                final UUID id = rows.insert("agg-" + a, e == 0 ? "TransferPosted" : "TransferReversed");
                expectedOrder.computeIfAbsent("agg-" + a, k -> new ArrayList<>()).add(id.toString());
            }
        }
        try (WebhookReceiver receiver = new WebhookReceiver(SECRET, (id, nth) -> WebhookReceiver.Answer.OK))
        {
            final RelayConfig config = fastConfig(receiver).withBatch(16);
            final OutboxRelay first = new OutboxRelay(db.dataSource(), config).start();
            final OutboxRelay second = new OutboxRelay(db.dataSource(), config).start();
            try (first; second)
            {
                rows.awaitAllPublished(20_000);
            }
            // Read the counters once both threads have stopped: a relay counts a round after its commit.
            assertEquals(aggregates * eventsPerAggregate, first.eventsPublished() + second.eventsPublished());
            assertTrue(first.eventsPublished() > 0 && second.eventsPublished() > 0,
                "both relays worked: " + first.eventsPublished() + " + " + second.eventsPublished());
            final List<WebhookReceiver.Received> got = receiver.received();
            final Set<String> distinct = new HashSet<>();
            got.forEach(r -> assertTrue(distinct.add(r.eventId()), "delivered twice: " + r.eventId()));
            assertEquals(aggregates * eventsPerAggregate, got.size());
            final Map<String, List<String>> actualOrder = new HashMap<>();
            for (final WebhookReceiver.Received r : got)
            {
                final String aggregate = r.body().replaceAll(".*\"aggregateId\": \"([^\"]+)\".*", "$1");
                actualOrder.computeIfAbsent(aggregate, k -> new ArrayList<>()).add(r.eventId());
            }
            assertEquals(expectedOrder, actualOrder, "order per aggregate held across the two relays");
        }
        assertEquals(aggregates * eventsPerAggregate, rows.count("SELECT count(*) FROM webhook_deliveries WHERE succeeded"));
        assertEquals(0, rows.count("SELECT count(*) FROM webhook_deliveries WHERE NOT succeeded"));
    }

    @Test
    void shouldDeliverAfterTheLeaseWhenTheRelayThatClaimedAnEventDied() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        final UUID event = rows.insert("tr-crash", "TransferPosted");
        final UUID later = rows.insert("tr-crash", "TransferReversed");
        // A relay claims the head with a 600 ms lease, then "dies": it never delivers nor records anything.
        final long claimedAtMs = System.currentTimeMillis();
        assertEquals(List.of(event), new OutboxSql(db.dataSource()).claim(2_000, 10, 600).stream().map(OutboxEvent::id).toList());
        try (WebhookReceiver receiver = new WebhookReceiver(SECRET, (id, nth) -> WebhookReceiver.Answer.OK))
        {
            final OutboxRelay relay = new OutboxRelay(db.dataSource(), fastConfig(receiver)).start();
            try (relay)
            {
                rows.awaitAllPublished(10_000);
            }
            final List<WebhookReceiver.Received> got = receiver.received();
            assertEquals(List.of(event.toString(), later.toString()), got.stream().map(WebhookReceiver.Received::eventId).toList(),
                "the claimed event first, once its lease passed, then the next of its aggregate");
            assertTrue(got.get(0).receivedAtMs() >= claimedAtMs + 600, "not before the lease passed");
            assertEquals(2, got.get(0).attemptHeader(), "the dead relay's claim counts as attempt 1");
        }
    }

    @Test
    void shouldRecordARoundOnlyWhileItStillHoldsItsClaim() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        final UUID event = rows.insert("tr-slow", "TransferPosted");
        final UUID later = rows.insert("tr-slow", "TransferReversed");
        final OutboxSql slow = new OutboxSql(db.dataSource());
        final OutboxSql other = new OutboxSql(db.dataSource());

        // A round whose lease passes while it still works (a POST hanging, a database stall) ...
        final OutboxEvent slowClaim = slow.claim(2_000, 10, 1).get(0);
        Thread.sleep(20);
        // ... and another relay that claims the event again meanwhile, with a long lease.
        final OutboxEvent otherClaim = other.claim(2_000, 10, 60_000).get(0);
        assertEquals(event, otherClaim.id());
        assertEquals(slowClaim.attempt() + 1, otherClaim.attempt());
        final String leaseSql = "SELECT count(*) FROM outbox WHERE id = '" + event + "' AND published_at IS NULL" +
            " AND next_attempt_at > now() + interval '50 seconds'";

        // The slow round's late success must not publish the event: its successor would go out while the other
        // relay still delivers it. Its late failure must not cut the other relay's lease short either.
        assertEquals(0, slow.record(List.of(attempt(slowClaim, 200)), List.of(slowClaim), List.of()), "published nothing");
        assertEquals(1, rows.count(leaseSql), "still unpublished, still the other relay's");
        slow.record(List.of(attempt(slowClaim, 500)), List.of(), List.of(new OutboxSql.Retry(slowClaim, 10, "HTTP 500")));
        assertEquals(1, rows.count(leaseSql), "not rescheduled by the round that lost its claim");
        assertTrue(other.claim(2_000, 10, 60_000).isEmpty(), "neither the event nor its successor is claimable");
        assertEquals(2, rows.count("SELECT count(*) FROM webhook_deliveries WHERE event_id = '" + event + "'"),
            "what the slow round did is still logged");

        // The relay that holds the claim records its outcome.
        assertEquals(1, other.record(List.of(attempt(otherClaim, 200)), List.of(otherClaim), List.of()));
        assertEquals(1, rows.count("SELECT count(*) FROM outbox WHERE id = '" + event + "' AND published_at IS NOT NULL"));
        assertEquals(List.of(later), other.claim(2_000, 10, 60_000).stream().map(OutboxEvent::id).toList());
    }

    @Test
    void shouldNotCountAnEventItNoLongerHeldAsPublished() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        final UUID event = rows.insert("tr-lost", "TransferPosted");
        // While the POST is in flight, another relay claims the event again (as after the lease passed): the round's
        // success is logged but publishes nothing, since the round no longer holds the claim.
        try (WebhookReceiver receiver = new WebhookReceiver(SECRET, (id, nth) ->
        {
            try
            {
                rows.update("UPDATE outbox SET attempts = attempts + 1, next_attempt_at = now() + interval '1 minute'");
            }
            catch (final java.sql.SQLException ex)
            {
                throw new IllegalStateException(ex);
            }
            return WebhookReceiver.Answer.OK;
        }))
        {
            final OutboxRelay relay = new OutboxRelay(db.dataSource(), fastConfig(receiver)).start();
            try (relay)
            {
                rows.awaitCount("SELECT count(*) FROM webhook_deliveries WHERE succeeded", 1, 5_000);
            }
            assertEquals(1, relay.deliveriesSucceeded());
            assertEquals(0, relay.eventsPublished(), "the other relay publishes it, not this one");
            assertEquals(1, rows.count("SELECT count(*) FROM outbox WHERE published_at IS NULL AND id = '" + event + "'"));
        }
    }

    private static DeliveryAttempt attempt(final OutboxEvent event, final int status)
    {
        return new DeliveryAttempt(event, "http://127.0.0.1:9/hook", Instant.now(), status, status == 200 ? null : "HTTP " + status, 5);
    }

    @Test
    void shouldNotCallAgainAnEndpointThatAlreadyAcknowledgedARetriedEvent() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        final UUID event = rows.insert("tr-two", "TransferPosted");
        final int[] calls = deliverPastRefusals(db, rows, 2, config -> config);
        assertEquals(1, calls[0], "acknowledged once, not called on the retries");
        assertEquals(3, calls[1], "502, 502, then 200");
        assertEquals(4, rows.count("SELECT count(*) FROM webhook_deliveries WHERE event_id = '" + event + "'"));
        assertEquals(2, rows.count("SELECT count(*) FROM webhook_deliveries WHERE succeeded"));
    }

    @Test
    void shouldNotCallAgainAnEndpointThatAcknowledgedAnEventRetriedPastTheRetention() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        final UUID event = rows.insert("tr-old", "TransferPosted");
        // Six refusals take ~1.2 s of backoff; the retention is 200 ms, the cleanup runs every 50 ms.
        final int[] calls = deliverPastRefusals(db, rows, 6, config -> config.withRetention(200, 50));
        assertEquals(1, calls[0], "acknowledged once, not called again once its log row passed the retention");
        assertEquals(7, calls[1], "six refusals, then 200");
        // Once the event is published, its rows past the retention go like any other.
        Thread.sleep(250);
        new OutboxCleaner(db.dataSource(), 200, 1_000).run();
        assertEquals(0, rows.count("SELECT count(*) FROM webhook_deliveries WHERE event_id = '" + event + "'"));
    }

    /**
     * Delivers the outbox to a healthy endpoint and one that answers 502 {@code refusals} times first.
     *
     * @return {requests the healthy endpoint got, requests the other got}.
     */
    private static int[] deliverPastRefusals(final Database db, final OutboxRows rows, final int refusals,
                                             final UnaryOperator<RelayConfig> settings) throws Exception
    {
        try (WebhookReceiver healthy = new WebhookReceiver(SECRET, (id, nth) -> WebhookReceiver.Answer.OK);
             WebhookReceiver flaky = new WebhookReceiver(SECRET, (id, nth) -> nth <= refusals ? new WebhookReceiver.Answer(502, 0)
                 : WebhookReceiver.Answer.OK))
        {
            // A generous request timeout: the counts below hold only if the healthy endpoint's first 200 is not lost to a
            // timeout on a busy machine (that would be a legitimate redelivery, at least once, and a flaky count here).
            final RelayConfig config = fastConfig(healthy.url(), URI.create(flaky.url() + "?second")).withTimings(10, 10_000, 30_000);
            final OutboxRelay relay = new OutboxRelay(db.dataSource(), settings.apply(config)).start();
            try (relay)
            {
                rows.awaitAllPublished(10_000);
            }
            return new int[] {healthy.received().size(), flaky.received().size()};
        }
    }

    @Test
    void shouldKeepTheSuccessfulDeliveryLogRowsOfUnpublishedEventsPastTheRetention() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        final UUID unpublished = rows.insert("tr-u", "TransferPosted");
        final UUID published = rows.insert("tr-p", "TransferPosted");
        rows.markPublished(published);
        final String columns = "INSERT INTO webhook_deliveries (event_id, tenant_id, endpoint_url, attempt, attempted_at, duration_ms, succeeded) ";
        final String old = "now() - interval '2 days'";
        // In id order: three acknowledgements of the unpublished event (kept), its failure, the published event's
        // success and failure, an event no longer in the outbox (those go), then a row inside the retention (kept).
        rows.update(columns + "VALUES ('" + unpublished + "', 7, 'http://a/', 1, " + old + ", 1, true),"
            + " ('" + unpublished + "', 7, 'http://b/', 1, " + old + ", 1, true),"
            + " ('" + unpublished + "', 7, 'http://c/', 1, " + old + ", 1, true),"
            + " ('" + unpublished + "', 7, 'http://d/', 1, " + old + ", 1, false),"
            + " ('" + published + "', 7, 'http://a/', 1, " + old + ", 1, true),"
            + " ('" + published + "', 7, 'http://b/', 1, " + old + ", 1, false),"
            + " ('" + UUID.randomUUID() + "', 7, 'http://a/', 1, " + old + ", 1, true),"
            + " ('" + published + "', 7, 'http://c/', 1, now() - interval '1 hour', 1, true)");
        // Two-row windows: the kept rows at the head of the log must not stop the cleanup.
        final OutboxCleaner cleaner = new OutboxCleaner(db.dataSource(), Duration.ofDays(1).toMillis(), 2);
        assertEquals(4, cleaner.run()[1]);
        assertEquals(3, rows.count("SELECT count(*) FROM webhook_deliveries WHERE event_id = '" + unpublished + "' AND succeeded"));
        assertEquals(4, rows.count("SELECT count(*) FROM webhook_deliveries"));

        rows.markPublished(unpublished);
        assertEquals(3, cleaner.run()[1], "once the event is published, its acknowledgements go too");
        assertEquals(1, rows.count("SELECT count(*) FROM webhook_deliveries"));

        // More kept rows than a run's windows cover (100 × 2): the next run goes on where the last one stopped.
        rows.update("DELETE FROM webhook_deliveries");
        final UUID stuck = rows.insert("tr-s", "TransferPosted");
        rows.update(columns + "SELECT '" + stuck + "', 7, 'http://e' || g || '/', 1, " + old + ", 1, true FROM generate_series(1, 250) g");
        rows.update(columns + "VALUES ('" + published + "', 7, 'http://a/', 2, " + old + ", 1, true)");
        assertEquals(0, cleaner.run()[1], "the first run only gets through 200 kept rows");
        assertEquals(1, cleaner.run()[1], "the second goes on past them");
        assertEquals(250, rows.count("SELECT count(*) FROM webhook_deliveries"));
    }

    @Test
    void shouldRecordAFailureEvenWhenItsReasonIsLongerThanTheColumnAllows() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        final UUID event = rows.insert("tr-long", "TransferPosted");
        // Port 1 on loopback refuses at once; the URL alone is longer than outbox.last_error may hold.
        final URI refusing = URI.create("http://127.0.0.1:1/" + "x".repeat(1_500));
        final OutboxRelay relay = new OutboxRelay(db.dataSource(), fastConfig(refusing)).start();
        try (relay)
        {
            rows.awaitCount("SELECT count(*) FROM webhook_deliveries", 2, 10_000);
        }
        assertTrue(relay.deliveriesFailed() >= 2, "failed attempts were recorded and retried");
        assertEquals(OutboxSql.LAST_ERROR_LENGTH_MAX, rows.count("SELECT length(last_error) FROM outbox WHERE id = '" + event + "'"));
        assertEquals(0, rows.count("SELECT count(*) FROM webhook_deliveries WHERE succeeded OR status_code IS NOT NULL"));
    }

    @Test
    void shouldKeepDeliveringWhileTheCleanupFailsEveryTime() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        // Every DELETE on outbox fails (as a statement timeout or a blocked partition drop would, every time); the
        // sequence counts the cleanup's tries (nextval is not rolled back with the failed statement).
        rows.update("CREATE SEQUENCE cleanup_tries");
        rows.update("CREATE FUNCTION refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            + " PERFORM nextval('cleanup_tries'); RAISE EXCEPTION 'cleanup refused by the test'; END $$");
        rows.update("CREATE TRIGGER outbox_refuse_delete BEFORE DELETE ON outbox FOR EACH STATEMENT EXECUTE FUNCTION refuse_delete()");
        final UUID first = rows.insert("tr-c1", "TransferPosted");
        try (WebhookReceiver receiver = new WebhookReceiver(SECRET, (id, nth) -> WebhookReceiver.Answer.OK))
        {
            final OutboxRelay relay = new OutboxRelay(db.dataSource(),
                fastConfig(receiver).withRetention(Duration.ofDays(1).toMillis(), 100)).start();
            try (relay)
            {
                rows.awaitAllPublished(5_000);
                // Several failed cleanups later, a new event is still delivered.
                rows.awaitCount("SELECT last_value FROM cleanup_tries", 3, 5_000);
                final UUID second = rows.insert("tr-c2", "TransferPosted");
                rows.awaitAllPublished(5_000);
                assertEquals(List.of(first.toString(), second.toString()),
                    receiver.accepted().stream().map(WebhookReceiver.Received::eventId).toList());
            }
            assertTrue(rows.count("SELECT last_value FROM cleanup_tries") >= 3, "the failing cleanup is retried on its schedule");
            assertEquals(0, relay.rowsCleaned());
        }
    }

    @Test
    void shouldRecordARoundWhoseErrorTextHoldsANulFromTheEndpoint() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        final UUID fine = rows.insert("tr-fine", "TransferPosted");
        final UUID refused = rows.insert("tr-nul", "TransferPosted");
        // The JDK client's error quotes the invalid status line, NUL included; PostgreSQL's text refuses a NUL.
        try (WebhookReceiver healthy = new WebhookReceiver(SECRET, (id, nth) -> WebhookReceiver.Answer.OK);
             RawHttpEndpoint raw = new RawHttpEndpoint(id -> id.equals(refused.toString()) ? "HTTP/1.1 2" + '\0' + "00 OK" : "HTTP/1.1 200 OK"))
        {
            final OutboxRelay relay = new OutboxRelay(db.dataSource(), fastConfig(healthy.url(), raw.url())).start();
            try (relay)
            {
                rows.awaitCount("SELECT count(*) FROM outbox WHERE published_at IS NOT NULL", 1, 5_000);
                rows.awaitCount("SELECT count(*) FROM webhook_deliveries WHERE NOT succeeded", 2, 5_000);
            }
            assertEquals(1, rows.count("SELECT count(*) FROM outbox WHERE published_at IS NOT NULL AND id = '" + fine + "'"),
                "the round was recorded: the event both endpoints took is published");
            assertEquals(Set.of(fine.toString(), refused.toString()), Set.copyOf(healthy.received().stream()
                .map(WebhookReceiver.Received::eventId).toList()));
            assertEquals(2, healthy.received().size(), "the healthy endpoint got each event once: its acknowledgements were recorded");
            assertEquals(1, raw.received().stream().filter(fine.toString()::equals).count(), "the published event was not resent");
        }
        final List<Map<String, Object>> log = deliveries(db, refused);
        final List<Map<String, Object>> failed = log.stream().filter(r -> !(Boolean)r.get("succeeded")).toList();
        assertTrue(failed.size() >= 2, "the refused event's failures are logged: " + log);
        final String error = String.valueOf(failed.get(0).get("error"));
        assertTrue(error.contains("Invalid status line") && error.contains("\\u0000") && error.indexOf('\0') < 0, error);
        final String lastError = text(db, "SELECT last_error FROM outbox WHERE id = '" + refused + "'");
        assertTrue(lastError.contains("\\u0000") && lastError.indexOf('\0') < 0, lastError);
    }

    @Test
    void shouldEscapeControlCharactersInErrorTexts()
    {
        assertEquals("HTTP/1.1 2\\u000000 OK\\u000d\\u000a", OutboxSql.sqlText("HTTP/1.1 2" + '\0' + "00 OK\r\n"));
        final String plain = "ConnectException: refused";
        assertTrue(plain == OutboxSql.sqlText(plain), "text without control characters is passed as is");
        assertNull(OutboxSql.sqlText(null));
        assertEquals(OutboxSql.LAST_ERROR_LENGTH_MAX, OutboxSql.lastError("\0".repeat(OutboxSql.LAST_ERROR_LENGTH_MAX)).length());
    }

    @Test
    void shouldStopWithinItsDatabaseTimeoutWhenPostgresStopsAnswering() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        rows.insert("tr-stall", "TransferPosted");
        // The claim's UPDATE gets no answer for 10 s, as behind a silent network partition (no byte comes back).
        rows.update("CREATE FUNCTION stall() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(10); RETURN NULL; END $$");
        rows.update("CREATE TRIGGER outbox_stall BEFORE UPDATE ON outbox FOR EACH STATEMENT EXECUTE FUNCTION stall()");
        try (WebhookReceiver receiver = new WebhookReceiver(SECRET, (id, nth) -> WebhookReceiver.Answer.OK))
        {
            final OutboxRelay relay = new OutboxRelay(db.dataSource(), fastConfig(receiver).withDatabaseTimeout(300)).start();
            try (relay)
            {
                assertEquals(1, rows.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    + " AND state = 'active' AND query LIKE 'WITH prefix%'", 1, 5_000), "the relay waits in its claim");
                // A socket read cannot be interrupted: without a network timeout, close() waits for the answer.
                final long startNs = System.nanoTime();
                relay.close();
                final long closeMs = (System.nanoTime() - startNs) / 1_000_000;
                assertTrue(closeMs < 3_000, "closed in " + closeMs + " ms, not after the stalled statement");
            }
            assertEquals(0, receiver.received().size());
        }
    }

    @Test
    void shouldBoundOnlyTheRelaysConnectionsNotThePoolsOtherUsers() throws Exception
    {
        final Database db = pg.newDatabase();
        final BoundedWaitDataSource relays = new BoundedWaitDataSource(db.dataSource(), 1_234);
        try (Connection c = relays.getConnection())
        {
            assertEquals(1_234, c.getNetworkTimeout());
        }
        // The pool puts a returned connection's timeout back: every pooled connection, the relay's among them, has none.
        final List<Connection> pooled = new ArrayList<>();
        try
        {
            for (int i = 0; i < Database.POOL_SIZE_MAX; i++)
            {
                pooled.add(db.dataSource().getConnection());
            }
            for (final Connection c : pooled)
            {
                assertEquals(0, c.getNetworkTimeout(), "a pooled connection without the relay's timeout");
            }
        }
        finally
        {
            for (final Connection c : pooled)
            {
                c.close();
            }
        }
    }

    @Test
    void shouldDeletePublishedRowsOlderThanTheRetentionAndKeepUnpublishedOnes() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        final Instant now = Instant.now();
        // A month of its own, two months back: dropped whole rather than deleted row by row.
        text(db, "SELECT tally_ensure_partitions(now() - interval '2 months', 0)::text");
        final String oldMonth = "outbox_" + text(db, "SELECT to_char(now() - interval '2 months', 'YYYYMM')");
        final UUID monthsOld = rows.insert("transfer", "p0", "TransferPosted", now.minus(Duration.ofDays(61)));
        final UUID oldPublished = rows.insert("transfer", "p1", "TransferPosted", now.minus(Duration.ofDays(3)));
        final UUID oldUnpublished = rows.insert("transfer", "u1", "TransferPosted", now.minus(Duration.ofDays(2)));
        final UUID olderThanRetentionAfterIt = rows.insert("transfer", "p2", "TransferPosted", now.minus(Duration.ofDays(2)).plusSeconds(3_600));
        final UUID recentPublished = rows.insert("transfer", "p3", "TransferPosted", now.minus(Duration.ofHours(1)));
        final UUID recentUnpublished = rows.insert("transfer", "u2", "TransferPosted", now);
        for (final UUID published : List.of(monthsOld, oldPublished, olderThanRetentionAfterIt, recentPublished))
        {
            rows.markPublished(published);
        }
        rows.update("INSERT INTO webhook_deliveries (event_id, tenant_id, endpoint_url, attempt, attempted_at, duration_ms, succeeded)"
            + " VALUES ('" + oldPublished + "', 7, 'http://x/', 1, now() - interval '3 days', 1, true),"
            + " ('" + recentPublished + "', 7, 'http://x/', 1, now() - interval '1 hour', 1, true)");

        final RelayConfig config = RelayConfig.defaults(List.of(WebhookEndpoint.of("http://127.0.0.1:9/hooks", new String(SECRET,
            StandardCharsets.UTF_8)))).withRetention(Duration.ofDays(1).toMillis(), 60_000);
        try (OutboxRelay relay = new OutboxRelay(db.dataSource(), config))
        {
            final long[] first = relay.cleanupNow();
            assertTrue(first[2] >= 1, "the old month was dropped whole");
            assertEquals("", text(db, "SELECT coalesce(to_regclass('" + oldMonth + "')::text, '')"));
            assertEquals(1, first[1], "the old delivery log row goes");
            assertEquals(Set.of(oldUnpublished, olderThanRetentionAfterIt, recentPublished, recentUnpublished), ids(db),
                "published rows before the oldest unpublished one go (dropped or deleted); it and everything after stay");
            assertEquals(now.minus(Duration.ofDays(2)).toEpochMilli(), retainedFrom(db).toEpochMilli(),
                "the retained outbox starts at the oldest unpublished event");

            rows.markPublished(oldUnpublished);
            final long[] second = relay.cleanupNow();
            assertEquals(2, second[0], "once published, both rows past the retention go");
            assertEquals(Set.of(recentPublished, recentUnpublished), ids(db), "recent rows and unpublished rows stay");
            final long retainedLagMs = Duration.between(retainedFrom(db), now.minus(Duration.ofDays(1))).toMillis();
            assertTrue(Math.abs(retainedLagMs) < 60_000, "retained from now − retention: " + retainedFrom(db));
            assertEquals(0, relay.cleanupNow()[0], "nothing more to delete");
        }
    }

    @Test
    void shouldLeaveTheVerifierGreenAfterDeliveringAndCleaningUpTheWritersEvents() throws Exception
    {
        final Database db = pg.newDatabase();
        final OutboxRows rows = new OutboxRows(db);
        final LedgerScenario s;
        try (LedgerWriter writer = LedgerWriter.create(db, WriterConfig.defaults().withRing(1 << 20, 100_000)))
        {
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.start();
            s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
            MixedWorkload.run(s, 100);   // journaled at the end of January 2026: far past any retention
            assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(30)));
        }
        final long events = rows.count("SELECT count(*) FROM outbox");
        // One event half-way is refused forever: it and the later events of its aggregate stay unpublished.
        final String poison = text(db, "SELECT id::text FROM outbox ORDER BY id OFFSET " + events / 2 + " LIMIT 1");
        final long blocked = rows.count("SELECT count(*) FROM outbox o, outbox p WHERE p.id = '" + poison + "'"
            + " AND o.tenant_id = p.tenant_id AND o.aggregate_type = p.aggregate_type AND o.aggregate_id = p.aggregate_id AND o.id >= p.id");
        try (WebhookReceiver receiver = new WebhookReceiver(SECRET,
            (id, nth) -> id.equals(poison) ? new WebhookReceiver.Answer(500, 0) : WebhookReceiver.Answer.OK))
        {
            final OutboxRelay relay = new OutboxRelay(db.dataSource(),
                fastConfig(receiver).withBatch(50).withRetention(Duration.ofDays(1).toMillis(), 60_000)).start();
            try (relay)
            {
                final long deadline = System.nanoTime() + 20_000_000_000L;
                while (rows.count("SELECT count(*) FROM outbox WHERE published_at IS NULL") > blocked && System.nanoTime() - deadline < 0)
                {
                    Thread.sleep(10);
                }
                final long[] cleaned = relay.cleanupNow();
                assertTrue(cleaned[0] + cleaned[2] > 0, "published events before the poison went");
            }
        }
        assertEquals(blocked, rows.count("SELECT count(*) FROM outbox WHERE published_at IS NULL"), "no unpublished event deleted");
        assertEquals(0, rows.count("SELECT count(*) FROM outbox WHERE id < '" + poison + "'"), "everything before the poison went");
        assertTrue(rows.count("SELECT count(*) FROM outbox") < events);
        final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        final int status = new Verifier(s.ledger, db.dataSource()).run(new java.io.PrintStream(out, true, StandardCharsets.UTF_8));
        assertEquals(0, status, "verify after delivery and cleanup:\n" + out.toString(StandardCharsets.UTF_8));
    }

    static String text(final Database db, final String sql) throws Exception
    {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql))
        {
            rs.next();
            return rs.getString(1);
        }
    }

    static Set<UUID> ids(final Database db) throws Exception
    {
        final Set<UUID> ids = new HashSet<>();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id FROM outbox"))
        {
            while (rs.next())
            {
                ids.add(rs.getObject(1, UUID.class));
            }
        }
        return ids;
    }

    static Instant retainedFrom(final Database db) throws Exception
    {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT retained_from FROM outbox_retention"))
        {
            rs.next();
            return rs.getTimestamp(1).toInstant();
        }
    }

    static List<Map<String, Object>> deliveries(final Database db, final UUID event) throws Exception
    {
        final List<Map<String, Object>> log = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT attempt, attempted_at, status_code, error, duration_ms, succeeded, next_attempt_at"
                 + " FROM webhook_deliveries WHERE event_id = '" + event + "' ORDER BY attempt"))
        {
            while (rs.next())
            {
                final Map<String, Object> row = new HashMap<>();
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++)
                {
                    row.put(rs.getMetaData().getColumnName(i), rs.getObject(i));
                }
                log.add(row);
            }
        }
        assertNotNull(log);
        return log;
    }
}
