package dev.tally.server.it;

import dev.tally.gateway.api.routing.Route;
import dev.tally.server.TallyServer;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a new user meets first, over real HTTP on loopback: a 401 says how to authenticate ({@code WWW-Authenticate}), every
 * reply carries a {@code Request-Id} (the client's own when it sent a sane one, pipelined and batched replies included),
 * a transfer's, a hold's or a capture's {@code account-not-found} and {@code currency-mismatch} name the account at fault, the
 * same on a replay, account ids go out as strings (exact above 2^53) and come in as either, and a read of an account gives
 * the creation time its creation gave.
 */
class ApiErgonomicsOverHttpIT extends OneServerPerTest
{
    private static final String CHALLENGE = "Bearer realm=\"tally\"";
    /** A server-made request id: process tag, I/O thread, count, in lower-case hex. */
    private static final Pattern SERVER_MADE_ID = Pattern.compile("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{12}$");
    private static final String ADMIN_KEY = "admin-key-for-the-it-4567";
    private static final long FUNDING = 1;
    private static final long CUSTOMER = 2;
    private static final long DOLLARS = 3;
    private static final long MISSING = 99;

    @TempDir
    Path adminDataDir;

    // ---- 401 ----

    @Test
    void shouldChallengeWithBearerOnEveryRouteThatNeedsAKey() throws Exception
    {
        final TallyClient anonymous = client.withApiKey(null);
        final TallyClient wrongKey = client.withApiKey("not-a-key-of-anyone");
        int routes = 0;
        for (final Route route : Route.values())
        {
            if (route == Route.HEALTH || route == Route.READY || route == Route.METRICS || route.isAdmin())
            {
                continue;
            }
            routes++;
            final String path = route.template().replace("{id}", "1");
            for (final TallyClient unauthenticated : List.of(anonymous, wrongKey))
            {
                final Reply reply = unauthenticated.method(route.method(), path, "k-" + routes, "GET".equals(route.method()) ? null : "{}");
                assertEquals(401, reply.status(), () -> route + ": " + reply);
                assertEquals("unauthorized", reply.problemSlug(), route::toString);
                assertEquals(CHALLENGE, reply.header("WWW-Authenticate"), route::toString);
            }
        }
        assertEquals(21, routes, "every tenant route");
        assertEquals(null, client.get("/health").header("WWW-Authenticate"), "no challenge where no key is needed");
        assertEquals(null, client.account(MISSING).header("WWW-Authenticate"), "nor on an authenticated request's 404");

        try (TallyServer admin = Servers.start(Servers.config(adminDataDir, Servers.apiKeys().withAdminKey(ADMIN_KEY))))
        {
            final Reply tenantKey = Servers.client(admin).post("/admin/snapshot", null, "");
            assertEquals(401, tenantKey.status(), tenantKey::toString);
            assertEquals(CHALLENGE, tenantKey.header("WWW-Authenticate"), "the admin route challenges too");
        }
    }

    // ---- Request-Id ----

    @Test
    void shouldEchoTheClientsRequestIdOnEveryKindOfReply()
    {
        createAccount(FUNDING, false);
        final String id = "req-7f3a:support/ticket_42";

        assertEquals(id, withRequestId("Request-Id", id, client.request("/v1/accounts/" + FUNDING).GET()).header("Request-Id"));
        final Reply created = withRequestId("Request-Id", id, client.request("/v1/accounts")
            .header("Idempotency-Key", "acct-" + CUSTOMER)
            .POST(HttpRequest.BodyPublishers.ofString(TallyClient.accountJson(CUSTOMER, TRY, true))));
        assertEquals(201, created.status(), created::toString);
        assertEquals(id, created.header("Request-Id"), "a 201");
        final Reply rejected = withRequestId("Request-Id", id, client.request("/v1/transfers")
            .header("Idempotency-Key", "overdraw")
            .POST(HttpRequest.BodyPublishers.ofString(TallyClient.transferJson(CUSTOMER, FUNDING, "5.00", TRY, null))));
        assertEquals("insufficient-funds", rejected.problemSlug());
        assertEquals(id, rejected.header("Request-Id"), "a stored rejection");
        final Reply invalid = withRequestId("Request-Id", id, client.request("/v1/transfers")
            .header("Idempotency-Key", "bad")
            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":")));
        assertEquals(400, invalid.status(), invalid::toString);
        assertEquals(id, invalid.header("Request-Id"), "a 400 of validation");
        final Reply notFound = withRequestId("Request-Id", id, client.request("/v1/nothing").GET());
        assertEquals(404, notFound.status());
        assertEquals(id, notFound.header("Request-Id"), "an unknown path");
        final TallyClient anonymous = client.withApiKey(null);
        final Reply unauthorized = withRequestId(anonymous, "Request-Id", id, anonymous.request("/v1/accounts/1").GET());
        assertEquals(401, unauthorized.status());
        assertEquals(id, unauthorized.header("Request-Id"), "a 401");
        assertEquals(id, withRequestId("Request-Id", id, client.request("/health").GET()).header("Request-Id"), "a probe");

        final Reply alternative = withRequestId("X-Request-Id", "from-a-proxy", client.request("/v1/accounts/" + FUNDING).GET());
        assertEquals("from-a-proxy", alternative.header("Request-Id"), "X-Request-Id when there is no Request-Id");
        final Reply both = withRequestId("X-Request-Id", "second", client.request("/v1/accounts/" + FUNDING).header("Request-Id", "first").GET());
        assertEquals("first", both.header("Request-Id"), "Request-Id first");
    }

    @Test
    void shouldMakeAUniqueIdWhenTheClientSentNoneOrOneThatIsNotASaneToken() throws Exception
    {
        createAccount(FUNDING, false);
        final Set<String> seen = new HashSet<>();
        for (int i = 0; i < 50; i++)
        {
            final String made = client.account(FUNDING).header("Request-Id");
            assertNotNull(made, "every reply has one");
            assertTrue(SERVER_MADE_ID.matcher(made).matches(), made);
            assertTrue(seen.add(made), () -> "made twice: " + made);
        }
        final Reply tooLong = withRequestId("Request-Id", "x".repeat(129), client.request("/v1/accounts/" + FUNDING).GET());
        assertTrue(SERVER_MADE_ID.matcher(tooLong.header("Request-Id")).matches(), "129 characters are ignored");
        assertEquals("y".repeat(128), withRequestId("Request-Id", "y".repeat(128), client.request("/v1/accounts/" + FUNDING).GET())
            .header("Request-Id"), "128 are echoed");
        final Reply spaced = withRequestId("Request-Id", "two words", client.request("/v1/accounts/" + FUNDING).GET());
        assertTrue(SERVER_MADE_ID.matcher(spaced.header("Request-Id")).matches(), "a space is not a token's");
        final Reply insaneButAlternative = withRequestId("X-Request-Id", "fine", client.request("/v1/accounts/" + FUNDING)
            .header("Request-Id", "not fine").GET());
        assertEquals("fine", insaneButAlternative.header("Request-Id"), "a sane X-Request-Id when Request-Id is not");

        try (RawConnection raw = new RawConnection(server.port()))
        {
            // what Java's client will not send: a byte outside ASCII (written as ISO-8859-1) and an empty value
            raw.write(rawGet("/v1/accounts/" + FUNDING, "Request-Id: caf\u00e9\r\n") + rawGet("/v1/accounts/" + FUNDING, "Request-Id:\r\n"));
            for (int i = 0; i < 2; i++)
            {
                final RawConnection.RawResponse response = raw.read();
                assertEquals(200, response.status(), response::toString);
                assertTrue(SERVER_MADE_ID.matcher(response.headers().get("request-id")).matches(), response.headers()::toString);
            }
        }
    }

    @Test
    void shouldGiveEachPipelinedReplyItsOwnRequestsIdBatchesAndImmediateProblemsIncluded() throws Exception
    {
        createAccount(FUNDING, false);
        createAccount(CUSTOMER, true);
        final StringBuilder requests = new StringBuilder();
        final List<String> ids = new ArrayList<>();
        final List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 20; i++)
        {
            final String transfer = TallyClient.transferJson(FUNDING, CUSTOMER, "1.00", TRY, null);
            requests.append(RawConnection.withRequestId(RawConnection.request("POST", "/v1/transfers", "pipe-" + i, transfer), "t-" + i));
            ids.add("t-" + i);
            statuses.add(201);
            requests.append(RawConnection.withRequestId(RawConnection.request("GET", "/v1/accounts/" + CUSTOMER, null, null), "g-" + i));
            ids.add("g-" + i);
            statuses.add(200);
            requests.append(RawConnection.withRequestId(RawConnection.request("POST", "/v1/transfers", "broken-" + i, "{\"amount\":"), "e-" + i));
            ids.add("e-" + i);
            statuses.add(400);
            final String batch = "{\"operations\":[{\"op\":\"transfer\",\"idempotencyKey\":\"b-" + i + "-1\",\"body\":" + transfer + "}," +
                "{\"op\":\"transfer\",\"idempotencyKey\":\"b-" + i + "-2\",\"body\":" + transfer + "}]}";
            requests.append(RawConnection.withRequestId(RawConnection.request("POST", "/v1/batch", null, batch), "b-" + i));
            ids.add("b-" + i);
            statuses.add(200);
            requests.append(RawConnection.request("GET", "/v1/accounts/" + FUNDING, null, null));   // no id: the server makes one
            ids.add(null);
            statuses.add(200);
        }
        final Set<String> made = new HashSet<>();
        try (RawConnection raw = new RawConnection(server.port()))
        {
            raw.write(requests.toString());
            for (int i = 0; i < ids.size(); i++)
            {
                final RawConnection.RawResponse response = raw.read();
                final int n = i;
                assertEquals(statuses.get(i), response.status(), () -> "reply " + n + ": " + response);
                final String id = response.headers().get("request-id");
                if (ids.get(i) == null)
                {
                    assertTrue(SERVER_MADE_ID.matcher(id).matches(), id);
                    assertTrue(made.add(id), id);
                }
                else
                {
                    assertEquals(ids.get(i), id, "reply " + i + " in request order, with its request's id");
                }
            }
        }
    }

    // ---- which account ----

    @Test
    void shouldNameTheAccountAHoldOrACaptureFoundMissingAndSayItAgainOnAReplay()
    {
        createAccount(FUNDING, false);
        createAccount(CUSTOMER, true);

        final Reply first = client.hold("hold-nowhere", MISSING, "1.00", TRY, 60_000);
        assertAccountProblem(first, "account-not-found", MISSING);
        createAccount(MISSING, true);
        final Reply replayed = client.hold("hold-nowhere", MISSING, "1.00", TRY, 60_000);
        assertTrue(replayed.replayed(), replayed::toString);
        assertEquals(first.body(), replayed.body(), "the stored rejection names the same account, whatever exists now");

        final Reply hold = client.hold("try-hold", FUNDING, "2.00", TRY, 60_000);
        assertEquals(201, hold.status(), hold::toString);
        assertAccountProblem(client.capture("cap-missing", hold.json().get("id").text(), MISSING + 1, null, null), "account-not-found",
            MISSING + 1);

        final Reply batch = client.batch("{\"operations\":[{\"op\":\"hold\",\"idempotencyKey\":\"in-batch\",\"body\":" +
            "{\"accountId\":" + (MISSING + 2) + ",\"amount\":\"1.00\",\"currency\":\"TRY\",\"expiresInMs\":60000}}]}");
        assertEquals(200, batch.status(), batch::toString);
        final Json body = batch.json().get("results").at(0).get("body");
        assertEquals("https://tally.dev/problems/account-not-found", body.get("type").text());
        assertEquals(MISSING + 2, body.get("accountId").asId(), "a batch operation's problem names it too");
    }

    @Test
    void shouldNameTheAccountInAnotherCurrencyThanTheHold()
    {
        createAccount(FUNDING, false);
        createAccount(CUSTOMER, true);
        assertEquals(201, client.createAccount(DOLLARS, "USD", false).status());

        final Reply inDollars = client.hold("usd-hold", CUSTOMER, "1.00", "USD", 60_000);
        assertAccountProblem(inDollars, "currency-mismatch", CUSTOMER);
        assertTrue(inDollars.json().get("detail").text().contains("USD"), inDollars::toString);

        final Reply hold = client.hold("try-hold", FUNDING, "2.00", TRY, 60_000);
        assertEquals(201, hold.status(), hold::toString);
        final String holdId = hold.json().get("id").text();
        assertAccountProblem(client.capture("cap-usd", holdId, DOLLARS, null, null), "currency-mismatch", DOLLARS);
        final Reply askedInUsd = client.capture("cap-in-usd", holdId, CUSTOMER, "1.00", "USD");
        assertEquals("currency-mismatch", askedInUsd.problemSlug());
        assertFalse(askedInUsd.json().has("accountId"), () -> "the request's currency is not an account's: " + askedInUsd);
    }

    @Test
    void shouldNameTheAccountATransferFoundMissingOrInAnotherCurrencyAndSayItAgainOnAReplay()
    {
        createAccount(FUNDING, false);
        createAccount(CUSTOMER, true);
        assertEquals(201, client.createAccount(DOLLARS, "USD", false).status());

        final Reply toMissing = client.transfer("to-missing", FUNDING, MISSING, "1.00", TRY, null);
        assertAccountProblem(toMissing, "account-not-found", MISSING);
        assertAccountProblem(client.transfer("from-missing", MISSING + 1, CUSTOMER, "1.00", TRY, null), "account-not-found", MISSING + 1);
        createAccount(MISSING, true);
        final Reply replayed = client.transfer("to-missing", FUNDING, MISSING, "1.00", TRY, null);
        assertTrue(replayed.replayed(), replayed::toString);
        assertEquals(toMissing.body(), replayed.body(), "the stored rejection names the same account, whatever exists now");

        final Reply toDollars = client.transfer("to-dollars", FUNDING, DOLLARS, "1.00", TRY, null);
        assertAccountProblem(toDollars, "currency-mismatch", DOLLARS);
        assertTrue(toDollars.json().get("detail").text().contains("not in TRY, the currency of the transfer"), toDollars::toString);
        assertAccountProblem(client.transfer("from-dollars", DOLLARS, CUSTOMER, "1.00", TRY, null), "currency-mismatch", DOLLARS);

        final Reply batch = client.batch("{\"operations\":[{\"op\":\"transfer\",\"idempotencyKey\":\"batch-missing\",\"body\":" +
            TallyClient.transferJson(FUNDING, MISSING + 2, "1.00", TRY, null) + "},{\"op\":\"transfer\",\"idempotencyKey\":" +
            "\"batch-dollars\",\"body\":" + TallyClient.transferJson(DOLLARS, FUNDING, "1.00", TRY, null) + "}]}");
        assertEquals(200, batch.status(), batch::toString);
        final Json missing = batch.json().get("results").at(0).get("body");
        assertEquals("https://tally.dev/problems/account-not-found", missing.get("type").text());
        assertEquals(MISSING + 2, missing.get("accountId").asId(), "a batch operation's problem names it too");
        final Json dollars = batch.json().get("results").at(1).get("body");
        assertEquals("https://tally.dev/problems/currency-mismatch", dollars.get("type").text());
        assertEquals(DOLLARS, dollars.get("accountId").asId());
    }

    // ---- ids as strings ----

    @Test
    void shouldGiveBackAnAccountIdAbove2To53ExactlyAsAStringWhereverItAppears()
    {
        // 2^63 - 1 and 2^53 + 1: a JavaScript client reading a JSON number through a double would change both
        final long big = Long.MAX_VALUE;
        final long other = 9_007_199_254_740_993L;
        final Reply created = client.post("/v1/accounts", "big-1", "{\"id\":\"" + big + "\",\"currency\":\"TRY\"," +
            "\"debitsMustNotExceedCredits\":false}");
        assertEquals(201, created.status(), created::toString);
        assertTrue(created.body().contains("\"id\":\"9223372036854775807\""), created::toString);
        assertEquals(big, created.json().get("id").asId());
        final Reply numbered = client.post("/v1/accounts", "big-2", "{\"id\":" + other + ",\"currency\":\"TRY\"}");
        assertEquals(201, numbered.status(), "an id as a JSON number is taken too: " + numbered);
        assertEquals(other, numbered.json().get("id").asId());

        final Reply read = client.account(big);
        assertEquals(200, read.status(), read::toString);
        assertEquals(big, read.json().get("id").asId());
        final Reply moved = client.post("/v1/transfers", "big-move", "{\"debitAccountId\":\"" + big + "\",\"creditAccountId\":" + other +
            ",\"amount\":\"3.00\",\"currency\":\"TRY\"}");
        assertEquals(201, moved.status(), moved::toString);
        assertEquals(big, moved.json().get("debitAccountId").asId());
        assertEquals(other, moved.json().get("creditAccountId").asId());
        final Reply byId = client.transferById(moved.json().get("id").text());
        assertEquals(big, byId.json().get("debitAccountId").asId());
        assertEquals(other, byId.json().get("creditAccountId").asId());
        final Reply hold = client.post("/v1/holds", "big-hold", "{\"accountId\":\"" + other + "\",\"amount\":\"1.00\"," +
            "\"currency\":\"TRY\",\"expiresInMs\":60000}");
        assertEquals(201, hold.status(), hold::toString);
        assertEquals(other, hold.json().get("accountId").asId());
        final Reply missing = client.transfer("big-missing", big, big - 1, "1.00", TRY, null);
        assertAccountProblem(missing, "account-not-found", big - 1);
    }

    @Test
    void shouldTakeAnIdAsANumberOrAsAStringAsTheSameRequest()
    {
        createAccount(FUNDING, false);
        createAccount(CUSTOMER, true);
        final Reply asNumbers = client.post("/v1/transfers", "either", "{\"debitAccountId\":" + FUNDING + ",\"creditAccountId\":" + CUSTOMER +
            ",\"amount\":\"2.00\",\"currency\":\"TRY\"}");
        assertEquals(201, asNumbers.status(), asNumbers::toString);
        final Reply asStrings = client.post("/v1/transfers", "either", "{\"debitAccountId\":\"" + FUNDING + "\",\"creditAccountId\":\"" +
            CUSTOMER + "\",\"amount\":\"2.00\",\"currency\":\"TRY\"}");
        assertTrue(asStrings.replayed(), () -> "the same fingerprint: a retry, not a reused key: " + asStrings);
        assertEquals(asNumbers.body(), asStrings.body());
        final Reply freeze = client.batch("{\"operations\":[{\"op\":\"freeze\",\"idempotencyKey\":\"f\",\"body\":{\"accountId\":\"" +
            CUSTOMER + "\"}},{\"op\":\"unfreeze\",\"idempotencyKey\":\"u\",\"body\":{\"accountId\":" + CUSTOMER + "}}]}");
        assertEquals(200, freeze.status(), freeze::toString);
        assertEquals(CUSTOMER, freeze.json().get("results").at(0).get("body").get("id").asId());
        assertEquals(CUSTOMER, freeze.json().get("results").at(1).get("body").get("id").asId());

        final String[] invalid = {"\"0\"", "\"-1\"", "\"01\"", "\"1.0\"", "\" 1\"", "\"9223372036854775808\"", "\"\"", "1.5", "true", "null"};
        for (int i = 0; i < invalid.length; i++)
        {
            final String bad = invalid[i];
            final Reply refused = client.post("/v1/transfers", "bad-" + i, "{\"debitAccountId\":" + bad + ",\"creditAccountId\":" +
                CUSTOMER + ",\"amount\":\"2.00\",\"currency\":\"TRY\"}");
            assertEquals(400, refused.status(), () -> bad + ": " + refused);
            assertEquals("debitAccountId", refused.json().get("field").text(), bad);
        }
    }

    // ---- createdAt ----

    @Test
    void shouldGiveTheCreationTimeOnAReadAsTheCreationReplyGaveIt()
    {
        final Reply created = client.createAccount(FUNDING, TRY, false);
        assertEquals(201, created.status(), created::toString);
        final Reply read = client.account(FUNDING);
        assertEquals(200, read.status(), read::toString);
        assertEquals(created.json().get("createdAt").text(), read.json().get("createdAt").text());
        final Reply retried = client.createAccount(FUNDING, TRY, false);
        assertEquals(created.json().get("createdAt").text(), retried.json().get("createdAt").text(), "a retry's too");
    }

    private static void assertAccountProblem(final Reply reply, final String slug, final long accountId)
    {
        assertEquals(422, reply.status(), reply::toString);
        assertEquals(slug, reply.problemSlug());
        assertEquals(accountId, reply.json().get("accountId").asId(), reply::toString);
        assertTrue(reply.json().get("detail").text().contains("account " + accountId), reply::toString);
    }

    private Reply withRequestId(final String header, final String value, final HttpRequest.Builder request)
    {
        return withRequestId(client, header, value, request);
    }

    private static Reply withRequestId(final TallyClient sender, final String header, final String value, final HttpRequest.Builder request)
    {
        return sender.send(request.header(header, value));
    }

    private static String rawGet(final String path, final String extraHeaders)
    {
        return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + Servers.TENANT_KEY + "\r\n" + extraHeaders + "\r\n";
    }
}
