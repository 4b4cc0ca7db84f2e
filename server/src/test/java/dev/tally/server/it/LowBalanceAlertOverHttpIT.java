package dev.tally.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Low-balance alerts over HTTP, on one in-process server with its embedded PostgreSQL: a threshold at creation and by
 * {@code PUT}/{@code DELETE /v1/accounts/{id}/low-balance-alert}, stored replies replayed byte for byte, the outbox
 * rows of a crossing (once per crossing, re-armed by a credit), tenant isolation and bad input.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LowBalanceAlertOverHttpIT extends OneServerPerClass
{
    private static final long FUNDING = 20;
    private static final long ALICE = 21;
    private static final long BOB = 22;
    private static final long CAROL = 23;

    @Override
    void createAccounts()
    {
        assertEquals(201, client.createAccount(FUNDING, TRY, false).status());
        assertEquals(201, client.createAccount(BOB, TRY, true).status());
        assertEquals(201, client.createAccount(CAROL, TRY, true).status());
        assertEquals(201, client.transfer("fund-bob", FUNDING, BOB, "100.00", TRY, null).status());
    }

    @Test
    void shouldEmitOneOutboxEventPerCrossingAndRearmOnACredit() throws Exception
    {
        final String create = "{\"id\":" + ALICE + ",\"currency\":\"TRY\",\"lowBalanceAlert\":\"50.00\"}";
        final Reply created = client.post("/v1/accounts", "alice", create);
        assertEquals(201, created.status(), created::toString);
        assertEquals("50.00", created.json().get("lowBalanceAlert").get("threshold").text());
        assertEquals("waiting", created.json().get("lowBalanceAlert").get("state").text(), "a new account is at zero");
        final Reply again = client.post("/v1/accounts", "alice", create);
        assertTrue(again.replayed());
        assertEquals(created.body(), again.body(), "the stored reply, byte for byte");

        assertEquals(201, client.transfer("fund-alice", FUNDING, ALICE, "100.00", TRY, null).status());
        assertEquals("armed", client.get("/v1/accounts/" + ALICE).json().get("lowBalanceAlert").get("state").text());
        assertEquals(201, client.transfer("pay-1", ALICE, FUNDING, "60.00", TRY, null).status());
        assertEquals(201, client.transfer("pay-2", ALICE, FUNDING, "10.00", TRY, null).status());
        final Reply read = client.get("/v1/accounts/" + ALICE);
        assertEquals("fired", read.json().get("lowBalanceAlert").get("state").text(), read::toString);
        assertEquals(201, client.transfer("top-up", FUNDING, ALICE, "20.00", TRY, null).status());
        assertEquals(201, client.transfer("pay-3", ALICE, FUNDING, "0.01", TRY, null).status());

        final List<String> events = AccountRows.awaitOutbox(server, ALICE, 4);
        assertEquals(List.of("AccountCreated", "AccountBalanceLow", "AccountBalanceRecovered", "AccountBalanceLow"), AccountRows.types(events),
            events::toString);
        final String low = events.get(1);
        assertTrue(low.contains("\"accountId\": \"" + ALICE + "\""), low);
        assertTrue(low.contains("\"available\": \"40.00\"") && low.contains("\"availableMinor\": 4000"), low);
        assertTrue(low.contains("\"threshold\": \"50.00\"") && low.contains("\"thresholdMinor\": 5000"), low);
        assertTrue(low.contains("\"journalIndex\": "), low);
        assertTrue(events.get(2).contains("\"availableMinor\": 5000"), "back at the threshold: " + events.get(2));
        assertTrue(events.get(3).contains("\"availableMinor\": 4999"), events.get(3));
    }

    @Test
    void shouldSetChangeAndRemoveAThresholdAndReplayTheStoredReplies()
    {
        final Reply set = put(BOB, "bob-alert", "{\"threshold\":\"150.00\"}");
        assertEquals(200, set.status(), set::toString);
        assertEquals(BOB, set.json().get("id").asId());
        assertEquals("150.00", set.json().get("lowBalanceAlert").get("threshold").text());
        assertEquals("waiting", set.json().get("lowBalanceAlert").get("state").text(), "100.00 is below 150.00: no event");
        assertTrue(set.json().has("changedAt"), set::toString);
        final Reply retry = put(BOB, "bob-alert", "{\"threshold\":\"150.0\",\"currency\":\"TRY\"}");
        assertProblem(retry, 422, "idempotency-key-reused");
        final Reply replay = put(BOB, "bob-alert", "{\"threshold\":\"150.00\"}");
        assertTrue(replay.replayed());
        assertEquals(set.body(), replay.body(), "the stored reply, byte for byte");

        final Reply lower = put(BOB, "bob-alert-2", "{\"threshold\":\"20.00\",\"currency\":\"TRY\"}");
        assertEquals("armed", lower.json().get("lowBalanceAlert").get("state").text(), lower::toString);
        assertEquals("20.00", client.get("/v1/accounts/" + BOB).json().get("lowBalanceAlert").get("threshold").text());

        final Reply removed = delete(BOB, "bob-remove");
        assertEquals(200, removed.status(), removed::toString);
        assertTrue(removed.body().contains("\"lowBalanceAlert\":null"), removed::toString);
        assertFalse(client.get("/v1/accounts/" + BOB).json().has("lowBalanceAlert"));
        final Reply removedAgain = delete(BOB, "bob-remove");
        assertTrue(removedAgain.replayed());
        assertEquals(removed.body(), removedAgain.body());
    }

    @Test
    void shouldNotLetAnotherTenantSetOneAndRefuseBadInput()
    {
        final TallyClient other = client.withApiKey(Servers.OTHER_TENANT_KEY);
        final Reply foreign = other.method("PUT", "/v1/accounts/" + CAROL + "/low-balance-alert", "foreign", "{\"threshold\":\"1.00\"}");
        assertProblem(foreign, 404, "not-found");
        assertEquals(CAROL, foreign.json().get("accountId").asId());
        assertProblem(other.method("DELETE", "/v1/accounts/" + CAROL + "/low-balance-alert", "foreign-2", null), 404, "not-found");
        assertProblem(put(999, "unknown", "{\"threshold\":\"1.00\"}"), 404, "not-found");

        assertProblem(put(CAROL, "zero", "{\"threshold\":\"0\"}"), 400, "invalid-amount");
        assertProblem(put(CAROL, "negative", "{\"threshold\":\"-1.00\"}"), 400, "invalid-amount");
        assertProblem(put(CAROL, "finer", "{\"threshold\":\"1.001\",\"currency\":\"TRY\"}"), 400, "invalid-amount");
        final Reply finerWithoutCurrency = put(CAROL, "finer-2", "{\"threshold\":\"1.001\"}");
        assertProblem(finerWithoutCurrency, 400, "invalid-amount");
        assertFalse(put(CAROL, "finer-2", "{\"threshold\":\"1.001\"}").replayed(), "decided by the ledger, not stored");
        assertProblem(put(CAROL, "missing", "{}"), 400, "invalid-request");
        assertProblem(put(CAROL, "no-body", null), 400, "malformed-json");
        final Reply unknownField = put(CAROL, "unknown-field", "{\"threshold\":\"1.00\",\"below\":true}");
        assertProblem(unknownField, 400, "invalid-request");
        assertEquals("below", unknownField.json().get("field").text());
        assertProblem(put(CAROL, "account-in-body", "{\"threshold\":\"1.00\",\"accountId\":" + CAROL + "}"), 400, "invalid-request");
        assertProblem(client.method("DELETE", "/v1/accounts/" + CAROL + "/low-balance-alert", "delete-body", "{\"threshold\":\"1.00\"}"), 400,
            "invalid-request");
        assertProblem(put(CAROL, null, "{\"threshold\":\"1.00\"}"), 400, "idempotency-key-missing");
        final Reply mismatch = put(CAROL, "usd", "{\"threshold\":\"1.00\",\"currency\":\"USD\"}");
        assertProblem(mismatch, 422, "currency-mismatch");
        assertEquals(CAROL, mismatch.json().get("accountId").asId());
        assertProblem(client.post("/v1/accounts", "bad-create", "{\"id\":99,\"currency\":\"TRY\",\"lowBalanceAlert\":\"0.001\"}"), 400,
            "invalid-amount");
        assertFalse(client.get("/v1/accounts/" + CAROL).json().has("lowBalanceAlert"), "nothing applied");
    }

    @Test
    void shouldSetAndRemoveInABatch()
    {
        final Reply batch = client.batch("{\"operations\":[" +
            "{\"op\":\"setLowBalanceAlert\",\"idempotencyKey\":\"batch-set\",\"body\":{\"accountId\":" + CAROL + ",\"threshold\":\"5.00\"}}," +
            "{\"op\":\"removeLowBalanceAlert\",\"idempotencyKey\":\"batch-remove\",\"body\":{\"accountId\":" + CAROL + "}}]}");
        assertEquals(200, batch.status(), batch::toString);
        final Json results = batch.json().get("results");
        assertEquals(200, results.at(0).get("status").asLong(), batch::toString);
        assertEquals("5.00", results.at(0).get("body").get("lowBalanceAlert").get("threshold").text());
        assertEquals(200, results.at(1).get("status").asLong(), batch::toString);
        assertFalse(client.get("/v1/accounts/" + CAROL).json().has("lowBalanceAlert"));
    }

    private Reply put(final long accountId, final String key, final String json)
    {
        return client.method("PUT", "/v1/accounts/" + accountId + "/low-balance-alert", key, json);
    }

    private Reply delete(final long accountId, final String key)
    {
        return client.method("DELETE", "/v1/accounts/" + accountId + "/low-balance-alert", key, null);
    }
}
