package dev.tally.server.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The account lifecycle over HTTP, on one in-process server with its embedded PostgreSQL: freeze (debits, or all),
 * unfreeze and close with their problem types, stored replies replayed byte for byte, tenant isolation, bad input, a
 * batch, and the status in the read model's accounts row and the outbox.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AccountLifecycleOverHttpIT extends OneServerPerClass
{
    private static final String PROBLEM_PREFIX = "https://tally.dev/problems/";
    private static final long FUNDING = 10;
    private static final long ALICE = 11;
    private static final long BOB = 12;
    private static final long CAROL = 13;
    /** The accounts row's status and scope, as {@code "frozen/true"}. */
    private static final String STATUS = "status || '/' || credits_frozen";

    @BeforeAll
    void createAccounts()
    {
        assertEquals(201, client.createAccount(FUNDING, TRY, false).status());
        assertEquals(201, client.createAccount(ALICE, TRY, true).status());
        assertEquals(201, client.createAccount(BOB, TRY, true).status());
        assertEquals(201, client.createAccount(CAROL, TRY, true).status());
        assertEquals(201, client.transfer("fund-alice", FUNDING, ALICE, "100.00", TRY, null).status());
    }

    private static void assertRefusedBy(final Reply reply, final String slug, final long accountId)
    {
        assertProblem(reply, 422, slug);
        assertEquals(accountId, reply.json().get("accountId").asId(), reply::toString);
        assertTrue(reply.json().get("detail").text().contains("account " + accountId), reply::toString);
    }

    private Reply transfer(final String key, final long from, final long to)
    {
        return client.transfer(key, from, to, "1.00", TRY, null);
    }

    @Test
    void shouldFreezeUnfreezeAndCloseWithTheirRulesAndReplayStoredReplies()
    {
        final Reply freeze = client.post("/v1/accounts/" + ALICE + "/freeze", "freeze-1", "");
        assertEquals(200, freeze.status(), freeze::toString);
        assertEquals("frozen", freeze.json().get("status").text());
        assertFalse(freeze.json().get("creditsFrozen").asBoolean());
        assertTrue(freeze.json().has("frozenAt"), freeze::toString);
        final Reply read = client.get("/v1/accounts/" + ALICE);
        assertEquals("frozen", read.json().get("status").text(), read::toString);
        assertEquals("100.00", read.json().get("posted").text(), "reads keep working");

        assertRefusedBy(transfer("out-1", ALICE, BOB), "account-frozen", ALICE);
        assertEquals(201, transfer("in-1", FUNDING, ALICE).status(), "a debit freeze takes credits");
        assertRefusedBy(client.hold("hold-1", ALICE, "1.00", TRY, 60_000), "account-frozen", ALICE);

        final Reply retry = client.post("/v1/accounts/" + ALICE + "/freeze", "freeze-1", "{}");
        assertEquals(200, retry.status());
        assertTrue(retry.replayed());
        assertEquals(freeze.body(), retry.body(), "the stored reply, byte for byte");
        assertProblem(client.post("/v1/accounts/" + ALICE + "/freeze", "freeze-1", "{\"credits\":true}"), 422, "idempotency-key-reused");

        final Reply all = client.post("/v1/accounts/" + ALICE + "/freeze", "freeze-2", "{\"credits\":true}");
        assertEquals(200, all.status(), all::toString);
        assertTrue(all.json().get("creditsFrozen").asBoolean());
        final Reply refusedCredit = transfer("in-2", FUNDING, ALICE);
        assertRefusedBy(refusedCredit, "account-frozen", ALICE);
        final Reply refusedAgain = transfer("in-2", FUNDING, ALICE);
        assertTrue(refusedAgain.replayed());
        assertEquals(refusedCredit.body(), refusedAgain.body(), "a stored rejection, byte for byte");

        final Reply unfreeze = client.post("/v1/accounts/" + ALICE + "/unfreeze", "unfreeze-1", "");
        assertEquals(200, unfreeze.status(), unfreeze::toString);
        assertEquals("active", unfreeze.json().get("status").text());
        assertEquals(201, transfer("out-2", ALICE, FUNDING).status());
        assertRefusedBy(client.post("/v1/accounts/" + ALICE + "/close", "close-alice", ""), "account-not-empty", ALICE);

        final Reply close = client.post("/v1/accounts/" + BOB + "/close", "close-bob", "");
        assertEquals(200, close.status(), close::toString);
        assertEquals("closed", close.json().get("status").text());
        assertEquals("closed", client.get("/v1/accounts/" + BOB).json().get("status").text());
        assertRefusedBy(transfer("in-bob", FUNDING, BOB), "account-closed", BOB);
        assertRefusedBy(client.post("/v1/accounts/" + BOB + "/freeze", "freeze-bob", ""), "account-closed", BOB);
        assertRefusedBy(client.post("/v1/accounts/" + BOB + "/close", "close-bob-2", ""), "account-closed", BOB);
    }

    @Test
    void shouldNotLetAnotherTenantTouchTheAccountAndRefuseBadInput()
    {
        final TallyClient other = client.withApiKey(Servers.OTHER_TENANT_KEY);
        final Reply foreign = other.post("/v1/accounts/" + CAROL + "/freeze", "foreign-1", "");
        assertProblem(foreign, 404, "not-found");
        assertEquals(CAROL, foreign.json().get("accountId").asId());
        assertProblem(other.post("/v1/accounts/" + CAROL + "/close", "foreign-2", ""), 404, "not-found");
        assertEquals("active", client.get("/v1/accounts/" + CAROL).json().get("status").text());
        assertProblem(client.post("/v1/accounts/999/freeze", "unknown-1", ""), 404, "not-found");

        assertProblem(client.post("/v1/accounts/abc/freeze", "bad-1", ""), 400, "invalid-request");
        assertProblem(client.post("/v1/accounts/0/unfreeze", "bad-2", ""), 400, "invalid-request");
        final Reply unknownField = client.post("/v1/accounts/" + CAROL + "/freeze", "bad-3", "{\"debits\":true}");
        assertProblem(unknownField, 400, "invalid-request");
        assertEquals("debits", unknownField.json().get("field").text());
        assertProblem(client.post("/v1/accounts/" + CAROL + "/freeze", "bad-4", "{\"credits\":\"yes\"}"), 400, "invalid-request");
        assertProblem(client.post("/v1/accounts/" + CAROL + "/close", "bad-5", "{\"accountId\":" + CAROL + "}"), 400, "invalid-request");
        assertProblem(client.post("/v1/accounts/" + CAROL + "/unfreeze", "bad-6", "{\"credits\":true}"), 400, "invalid-request");
        assertProblem(client.post("/v1/accounts/" + CAROL + "/freeze", null, ""), 400, "idempotency-key-missing");
        assertEquals("active", client.get("/v1/accounts/" + CAROL).json().get("status").text(), "nothing applied");
    }

    @Test
    void shouldApplyLifecycleOperationsInABatch()
    {
        final Reply batch = client.batch("{\"operations\":[" +
            "{\"op\":\"freeze\",\"idempotencyKey\":\"batch-freeze\",\"body\":{\"accountId\":" + CAROL + ",\"credits\":true}}," +
            "{\"op\":\"transfer\",\"idempotencyKey\":\"batch-in\",\"body\":{\"debitAccountId\":" + FUNDING + ",\"creditAccountId\":" + CAROL +
            ",\"amount\":\"1.00\",\"currency\":\"TRY\"}}," +
            "{\"op\":\"unfreeze\",\"idempotencyKey\":\"batch-unfreeze\",\"body\":{\"accountId\":" + CAROL + "}}]}");
        assertEquals(200, batch.status(), batch::toString);
        final Json results = batch.json().get("results");
        assertEquals(200, results.at(0).get("status").asLong(), batch::toString);
        assertEquals(422, results.at(1).get("status").asLong(), batch::toString);
        assertEquals(PROBLEM_PREFIX + "account-frozen", results.at(1).get("body").get("type").text());
        assertEquals(200, results.at(2).get("status").asLong(), batch::toString);
        assertProblem(client.batch("{\"operations\":[{\"op\":\"close\",\"idempotencyKey\":\"batch-close\"}]}"), 400, "invalid-request");
    }

    @Test
    void shouldShowTheStatusInTheReadModelAndTheOutbox() throws Exception
    {
        final long dave = 14;
        assertEquals(201, client.createAccount(dave, TRY, true).status());
        assertEquals(200, client.post("/v1/accounts/" + dave + "/freeze", "dave-freeze", "{\"credits\":true}").status());
        assertEquals("frozen/true", AccountRows.await(server, dave, STATUS, "frozen/true"));
        assertEquals(200, client.post("/v1/accounts/" + dave + "/unfreeze", "dave-unfreeze", "").status());
        assertEquals(200, client.post("/v1/accounts/" + dave + "/close", "dave-close", "").status());
        assertEquals("closed/false", AccountRows.await(server, dave, STATUS, "closed/false"));

        final List<String> events = AccountRows.outbox(server, dave);
        assertEquals(List.of("AccountCreated", "AccountFrozen", "AccountUnfrozen", "AccountClosed"),
            events.stream().map(e -> e.substring(0, e.indexOf(' '))).toList(), events::toString);
        assertTrue(events.get(1).contains("\"creditsFrozen\": true"), events::toString);
        assertTrue(events.get(3).contains("\"accountId\": \"" + dave + "\""), events::toString);
    }
}
