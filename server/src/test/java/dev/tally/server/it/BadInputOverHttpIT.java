package dev.tally.server.it;

import dev.tally.gateway.http.HttpLimits;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpRequest;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile and clumsy input over real HTTP: every bad request gets its RFC 9457 problem, changes no
 * balance, and leaves the server serving (a good request right after succeeds).
 */
class BadInputOverHttpIT extends OneServerPerTest
{
    private static final long FUNDING = 1;
    private static final long CUSTOMER = 2;
    private static final long MERCHANT = 3;
    private static final long OTHER_TENANT_ACCOUNT = 10;
    private static final int SMALL_BODY_LIMIT_BYTES = 1024;

    private String customerBefore;
    private String merchantBefore;
    private int goodRequests;

    @BeforeEach
    void openAccounts()
    {
        createAccount(FUNDING, false);
        createAccount(CUSTOMER, true);
        createAccount(MERCHANT, true);
        fund(FUNDING, CUSTOMER, "100.00");
        customerBefore = client.account(CUSTOMER).body();
        merchantBefore = client.account(MERCHANT).body();
    }

    // ---- bodies ----

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "{", "{\"debitAccountId\":2,", "[]", "\"text\"", "not json", "{}x", "{\"a\" 1}", "{\"debitAccountId\":2}}"})
    void shouldAnswerMalformedJsonWith400(final String body)
    {
        final Reply reply = client.post("/v1/transfers", "malformed", body);

        assertEquals(400, reply.status(), reply::toString);
        assertEquals("malformed-json", reply.problemSlug());
        assertUnchangedAndStillServing();
    }

    @Test
    void shouldAnswerAnEmptyTransferBodyWith400()
    {
        final Reply reply = client.post("/v1/transfers", "empty", "");

        assertEquals(400, reply.status(), reply::toString);
        assertEquals("malformed-json", reply.problemSlug());
        assertUnchangedAndStillServing();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "debitAccountId not digits    | {\"debitAccountId\":\"02\",\"creditAccountId\":3,\"amount\":\"1.00\",\"currency\":\"TRY\"}        | debitAccountId",
        "debitAccountId a fraction    | {\"debitAccountId\":2.5,\"creditAccountId\":3,\"amount\":\"1.00\",\"currency\":\"TRY\"}           | debitAccountId",
        "debitAccountId zero          | {\"debitAccountId\":0,\"creditAccountId\":3,\"amount\":\"1.00\",\"currency\":\"TRY\"}             | debitAccountId",
        "creditAccountId null         | {\"debitAccountId\":2,\"creditAccountId\":null,\"amount\":\"1.00\",\"currency\":\"TRY\"}          | creditAccountId",
        "currency a number            | {\"debitAccountId\":2,\"creditAccountId\":3,\"amount\":\"1.00\",\"currency\":949}                 | currency",
        "reference an object          | {\"debitAccountId\":2,\"creditAccountId\":3,\"amount\":\"1.00\",\"currency\":\"TRY\",\"reference\":{}} | reference",
        "an unknown field             | {\"debitAccountId\":2,\"creditAccountId\":3,\"amount\":\"1.00\",\"currency\":\"TRY\",\"color\":\"red\"} | color",
        "a field of another operation | {\"debitAccountId\":2,\"creditAccountId\":3,\"amount\":\"1.00\",\"currency\":\"TRY\",\"expiresInMs\":5} | expiresInMs",
        "a duplicate field            | {\"debitAccountId\":2,\"debitAccountId\":2,\"creditAccountId\":3,\"amount\":\"1.00\",\"currency\":\"TRY\"} | debitAccountId",
        "a missing field              | {\"debitAccountId\":2,\"creditAccountId\":3,\"amount\":\"1.00\"}                                    | currency",
        "the same account twice       | {\"debitAccountId\":2,\"creditAccountId\":2,\"amount\":\"1.00\",\"currency\":\"TRY\"}             | creditAccountId",
    })
    void shouldAnswerASchemaViolationWith400NamingTheField(final String what, final String body, final String field)
    {
        final Reply reply = client.post("/v1/transfers", "schema", body);

        assertEquals(400, reply.status(), () -> what + ": " + reply);
        assertEquals("invalid-request", reply.problemSlug(), what);
        assertEquals(field, reply.json().get("field").text(), what);
        assertUnchangedAndStillServing();
    }

    @ParameterizedTest(name = "amount {0}")
    @ValueSource(strings = {
        "\"-1.00\"", "\"0\"", "\"0.00\"", "\"1.001\"", "\"99999999999999999999.00\"", "\"92233720368547758.08\"", "\"1e3\"",
        "\" 5\"", "\"+5\"", "\"05\"", "\".5\"", "\"5.\"", "\"\"", "\"abc\"", "-1", "1e3", "true", "[]"})
    void shouldAnswerABadAmountWith400(final String amount)
    {
        final Reply reply = client.post("/v1/transfers", "amount",
            "{\"debitAccountId\":2,\"creditAccountId\":3,\"amount\":" + amount + ",\"currency\":\"TRY\"}");

        assertEquals(400, reply.status(), reply::toString);
        assertEquals("invalid-amount", reply.problemSlug(), amount);
        assertUnchangedAndStillServing();
    }

    /** This server runs without the PostgreSQL read model: the history reads say so, and the account now still answers. */
    @Test
    void shouldAnswerHistoryReadsWithoutAReadModelWithAProblemNamingIt()
    {
        for (final String path : java.util.List.of("/v1/accounts/2?at=2026-12-01T00:00:00Z", "/v1/accounts/2?atIndex=1",
            "/v1/accounts/2/statement?from=2026-12-01T00:00:00Z&to=2026-12-02T00:00:00Z"))
        {
            final Reply reply = client.get(path);

            assertEquals(503, reply.status(), reply::toString);
            assertEquals("service-unavailable", reply.problemSlug());
            assertTrue(reply.json().get("detail").text().contains("--no-read-model"), reply::toString);
        }
        assertUnchangedAndStillServing();
    }

    @Test
    void shouldAcceptTheLargestAmountThatFitsButRefuseItForLackOfFunds()
    {
        final Reply reply = client.transfer("largest", CUSTOMER, MERCHANT, "92233720368547758.07", TRY, null);

        assertEquals(422, reply.status(), reply::toString);
        assertEquals("insufficient-funds", reply.problemSlug());
        assertUnchangedAndStillServing();
    }

    @ParameterizedTest(name = "currency {0}")
    @ValueSource(strings = {"try", "XXX", "TR", "TRYY", ""})
    void shouldAnswerAnUnsupportedCurrencyWith400(final String currency)
    {
        final Reply reply = client.transfer("currency", CUSTOMER, MERCHANT, "1.00", currency, null);

        assertEquals(400, reply.status(), reply::toString);
        assertEquals("unsupported-currency", reply.problemSlug());
        assertUnchangedAndStillServing();
    }

    // ---- business rejections ----

    @Test
    void shouldRejectATransferToAnUnknownAccountWith422()
    {
        final Reply reply = client.transfer("unknown", CUSTOMER, 999, "1.00", TRY, null);

        assertEquals(422, reply.status(), reply::toString);
        assertEquals("account-not-found", reply.problemSlug());
        assertUnchangedAndStillServing();
    }

    @Test
    void shouldRejectATransferInAnotherCurrencyThanTheAccountsWith422()
    {
        final Reply reply = client.transfer("usd", CUSTOMER, MERCHANT, "1.00", "USD", null);

        assertEquals(422, reply.status(), reply::toString);
        assertEquals("currency-mismatch", reply.problemSlug());
        assertUnchangedAndStillServing();
    }

    @Test
    void shouldRejectATransferBetweenAccountsOfTwoCurrenciesWith422()
    {
        final Reply usd = client.createAccount(20, "USD", true);
        assertEquals(201, usd.status(), usd::toString);

        final Reply reply = client.transfer("cross", CUSTOMER, 20, "1.00", TRY, null);

        assertEquals(422, reply.status(), reply::toString);
        assertEquals("currency-mismatch", reply.problemSlug());
        assertUnchangedAndStillServing();
    }

    @Test
    void shouldHideAnotherTenantsAccount()
    {
        final TallyClient other = client.withApiKey(Servers.OTHER_TENANT_KEY);
        assertEquals(201, other.createAccount(OTHER_TENANT_ACCOUNT, TRY, false).status());

        final Reply read = other.account(CUSTOMER);
        final Reply debit = other.transfer("steal", CUSTOMER, OTHER_TENANT_ACCOUNT, "1.00", TRY, null);
        final Reply credit = other.transfer("push", OTHER_TENANT_ACCOUNT, CUSTOMER, "1.00", TRY, null);

        assertEquals(404, read.status(), read::toString);
        assertEquals("not-found", read.problemSlug());
        assertEquals(422, debit.status(), debit::toString);
        assertEquals("account-not-found", debit.problemSlug());
        assertEquals(422, credit.status(), credit::toString);
        assertEquals("account-not-found", credit.problemSlug());
        assertEquals(404, client.account(OTHER_TENANT_ACCOUNT).status(), "and the other way round");
        assertEquals("0.00", other.accountJson(OTHER_TENANT_ACCOUNT).get("posted").text());
        assertUnchangedAndStillServing();
    }

    @Test
    void shouldNotRevealAnotherTenantsAccountWhenCreatingAnAccountWithTheSameId()
    {
        final TallyClient other = client.withApiKey(Servers.OTHER_TENANT_KEY);

        final Reply reply = other.createAccount(CUSTOMER, TRY, true);

        // SPEC 3: a tenant sees only its own accounts, so ids are per tenant: a 409 account-exists here
        // would tell tenant u that tenant t has an account 2.
        assertEquals(201, reply.status(), () -> "account ids are client-chosen per tenant; got " + reply);
        assertEquals("0.00", other.accountJson(CUSTOMER).get("posted").text());
        assertUnchangedAndStillServing();
    }

    @Test
    void shouldKeepReferencesOfTwoTenantsApart()
    {
        final TallyClient other = client.withApiKey(Servers.OTHER_TENANT_KEY);
        assertEquals(201, other.createAccount(OTHER_TENANT_ACCOUNT, TRY, false).status());
        assertEquals(201, other.createAccount(OTHER_TENANT_ACCOUNT + 1, TRY, true).status());
        assertEquals(201, client.transfer("ref-mine", FUNDING, MERCHANT, "1.00", TRY, "inv-shared").status());

        final Reply theirs = other.transfer("ref-theirs", OTHER_TENANT_ACCOUNT, OTHER_TENANT_ACCOUNT + 1, "1.00", TRY, "inv-shared");

        assertEquals(201, theirs.status(), () -> "a reference is unique per tenant only: " + theirs);
    }

    @Test
    void shouldHideAnotherTenantsTransfer()
    {
        final Reply mine = client.transfer("mine", CUSTOMER, MERCHANT, "1.00", TRY, null);
        assertEquals(201, mine.status(), mine::toString);

        final Reply read = client.withApiKey(Servers.OTHER_TENANT_KEY).transferById(mine.json().get("id").text());

        assertEquals(404, read.status(), read::toString);
        assertEquals(200, client.transferById(mine.json().get("id").text()).status());
    }

    // ---- authentication ----

    @Test
    void shouldAnswer401WithoutAuthorization()
    {
        final TallyClient anonymous = client.withApiKey(null);

        final Reply write = anonymous.transfer("anon", CUSTOMER, MERCHANT, "1.00", TRY, null);
        final Reply read = anonymous.account(CUSTOMER);

        assertEquals(401, write.status(), write::toString);
        assertEquals("unauthorized", write.problemSlug());
        assertEquals(401, read.status(), read::toString);
        assertUnchangedAndStillServing();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"Bearer wrong-key-123", "Bearer ", "Basic dDp0ZW5hbnQta2V5LTE=", "tenant-key-1", "Bearer tenant-key-1x"})
    void shouldAnswer401ForABadAuthorization(final String authorization)
    {
        final TallyClient anonymous = client.withApiKey(null);
        final HttpRequest.Builder request = anonymous.request("/v1/transfers")
            .header("Authorization", authorization)
            .header("Idempotency-Key", "bad-auth")
            .POST(HttpRequest.BodyPublishers.ofString(TallyClient.transferJson(CUSTOMER, MERCHANT, "1.00", TRY, null)));

        final Reply reply = anonymous.send(request);

        assertEquals(401, reply.status(), reply::toString);
        assertEquals("unauthorized", reply.problemSlug());
        assertUnchangedAndStillServing();
    }

    @Test
    void shouldAnswer401ForARepeatedAuthorizationEvenWhenOneOfThemIsValid()
    {
        final TallyClient anonymous = client.withApiKey(null);
        final HttpRequest.Builder request = anonymous.request("/v1/transfers")
            .header("Authorization", "Bearer " + Servers.TENANT_KEY)
            .header("Authorization", "Bearer someone-elses-key")
            .header("Idempotency-Key", "twice-auth")
            .POST(HttpRequest.BodyPublishers.ofString(TallyClient.transferJson(CUSTOMER, MERCHANT, "1.00", TRY, null)));

        final Reply reply = anonymous.send(request);

        assertEquals(401, reply.status(), reply::toString);
        assertEquals("unauthorized", reply.problemSlug());
        assertUnchangedAndStillServing();
    }

    @Test
    void shouldAnswer400ForARepeatedIdempotencyKeyAndApplyNothing()
    {
        final HttpRequest.Builder request = client.request("/v1/transfers")
            .header("Idempotency-Key", "first-value")
            .header("Idempotency-Key", "second-value")
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(TallyClient.transferJson(CUSTOMER, MERCHANT, "1.00", TRY, null)));

        final Reply reply = client.send(request);

        assertEquals(400, reply.status(), reply::toString);
        assertEquals("idempotency-key-invalid", reply.problemSlug());
        assertUnchangedAndStillServing();
    }

    // ---- HTTP limits ----

    @Test
    void shouldAnswer413ForABodyOverTheLimit(@TempDir final Path smallLimitDir) throws Exception
    {
        final HttpLimits limits = new HttpLimits(SMALL_BODY_LIMIT_BYTES, 16 * 1024, 4 * 1024, 100, 10_000);
        try (TallyServer small = Servers.start(Servers.config(smallLimitDir, Durability.ASYNC, limits, LedgerPipeline.PipelineConfig.defaults())))
        {
            final TallyClient smallClient = Servers.client(small);
            assertEquals(201, smallClient.createAccount(FUNDING, TRY, false).status());
            assertEquals(201, smallClient.createAccount(CUSTOMER, TRY, true).status());
            final String before = smallClient.account(CUSTOMER).body();
            final String padded = "{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1.00\",\"currency\":\"TRY\",\"reference\":\"" +
                "r".repeat(SMALL_BODY_LIMIT_BYTES) + "\"}";

            final Reply reply = smallClient.post("/v1/transfers", "too-big", padded);

            assertEquals(413, reply.status(), reply::toString);
            assertEquals("body-too-large", reply.problemSlug());
            assertEquals(before, smallClient.account(CUSTOMER).body(), "nothing applied");
            final Reply good = smallClient.transfer("small-enough", FUNDING, CUSTOMER, "1.00", TRY, null);
            assertEquals(201, good.status(), "still serving: " + good);
        }
        assertUnchangedAndStillServing();
    }

    @Test
    void shouldAnswer431ForHeadersOverTheLimit()
    {
        final HttpRequest.Builder request = client.request("/v1/accounts/" + CUSTOMER)
            .header("X-Padding", "p".repeat(20 * 1024))
            .GET();

        final Reply reply = client.send(request);

        assertEquals(431, reply.status(), reply::toString);
        assertEquals("headers-too-large", reply.problemSlug());
        assertUnchangedAndStillServing();
    }

    @Test
    void shouldAnswer414ForARequestLineOverTheLimit()
    {
        final Reply reply = client.get("/v1/accounts/" + "9".repeat(5 * 1024));

        assertEquals(414, reply.status(), reply::toString);
        assertEquals("request-line-too-long", reply.problemSlug());
        assertUnchangedAndStillServing();
    }

    // ---- routing and probes ----

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/v1/nothing", "/v2/accounts/2", "/v1/accounts/2/", "/v1/accounts//2", "/", "/v1/accounts/abc",
        "/v1/accounts/-2", "/v1/accounts/999", "/v1/transfers/not-a-uuid", "/v1/transfers/00000000-0000-7000-8000-000000000000"})
    void shouldAnswer404ForAnUnknownResource(final String path)
    {
        final Reply reply = client.get(path);

        assertEquals(404, reply.status(), reply::toString);
        assertEquals("not-found", reply.problemSlug());
        assertUnchangedAndStillServing();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"DELETE, /v1/accounts/2, GET", "PUT, /v1/transfers, 'POST, GET'", "DELETE, /v1/accounts, 'POST, GET'", "GET, /v1/batch, POST",
        "POST, /health, GET"})
    void shouldAnswer405WithAllowForAWrongMethod(final String method, final String path, final String allowed)
    {
        final Reply reply = client.method(method, path, "wrong-method", "{}");

        assertEquals(405, reply.status(), reply::toString);
        assertEquals("method-not-allowed", reply.problemSlug());
        assertEquals(allowed, reply.json().get("allow").text());
        assertEquals(allowed, reply.header("Allow"), "RFC 9110 15.5.6: a 405 MUST carry an Allow header");
        assertUnchangedAndStillServing();
    }

    @Test
    void shouldAnswerHealthAndReadinessWithoutAuthorization()
    {
        final TallyClient anonymous = client.withApiKey(null);

        final Reply health = anonymous.get("/health");
        final Reply ready = anonymous.get("/ready");

        assertEquals(200, health.status(), health::toString);
        assertEquals("UP", health.json().get("status").text());
        assertEquals(200, ready.status(), ready::toString);
        assertEquals("READY", ready.json().get("status").text());
        final Reply metrics = anonymous.get("/metrics");
        assertEquals(200, metrics.status());
        assertTrue(metrics.body().contains("tally_ready 1"), metrics::toString);
    }

    /** Balances are as {@link #openAccounts} left them, and a good request still succeeds. */
    private void assertUnchangedAndStillServing()
    {
        assertEquals(customerBefore, client.account(CUSTOMER).body(), "customer balance unchanged");
        assertEquals(merchantBefore, client.account(MERCHANT).body(), "merchant balance unchanged");
        final Reply good = client.transfer("good-" + goodRequests++, FUNDING, MERCHANT, "0.01", TRY, null);
        assertEquals(201, good.status(), () -> "a good request after the bad one: " + good);
        assertNotNull(good.json().get("id").text());
        merchantBefore = client.account(MERCHANT).body();
    }
}
