package dev.tally.server.it;

import dev.tally.ledger.LedgerLimits;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code POST /v1/batch} over real HTTP: atomic batches are all or nothing, non-atomic ones apply each
 * operation on its own, and a large batch goes through in one request.
 */
class BatchOverHttpIT extends OneServerPerTest
{
    private static final long FUNDING = 1;
    private static final long CUSTOMER = 2;
    private static final long MERCHANT = 3;
    private static final long NEW_ACCOUNT = 50;
    private static final int LARGE_BATCH_SIZE = 1000;

    @BeforeEach
    void openAccounts()
    {
        createAccount(FUNDING, false);
        createAccount(CUSTOMER, true);
        createAccount(MERCHANT, true);
        fund(FUNDING, CUSTOMER, "200.00");
    }

    @Test
    void shouldApplyNothingWhenAnAtomicBatchFailsMidway()
    {
        final String customerBefore = client.account(CUSTOMER).body();
        final String merchantBefore = client.account(MERCHANT).body();

        final Reply reply = client.batch(midwayFailingBatch(true));

        assertEquals(200, reply.status(), reply::toString);
        final Json results = reply.json().get("results");
        assertTrue(reply.json().get("atomic").asBoolean());
        assertEquals(5, results.size());
        assertResult(results, 0, 422, "linked-operation-failed");
        assertResult(results, 1, 422, "linked-operation-failed");
        assertResult(results, 2, 422, "linked-operation-failed");
        assertResult(results, 3, 422, "insufficient-funds");
        assertResult(results, 4, 422, "linked-operation-failed");
        assertEquals(customerBefore, client.account(CUSTOMER).body(), "customer untouched");
        assertEquals(merchantBefore, client.account(MERCHANT).body(), "merchant untouched");
        assertEquals(404, client.account(NEW_ACCOUNT).status(), "the account the batch created was rolled back");
    }

    @Test
    void shouldReplayAFailedAtomicBatchWithTheSameOperationBodiesAndStillApplyNothing()
    {
        final Reply first = client.batch(midwayFailingBatch(true));
        assertEquals(200, first.status(), first::toString);

        final Reply again = client.batch(midwayFailingBatch(true));

        assertEquals(200, again.status(), again::toString);
        assertTrue(again.replayed(), "every operation is a replay, so the batch says Idempotent-Replayed: true");
        final Json before = first.json().get("results");
        final Json after = again.json().get("results");
        for (int i = 0; i < before.size(); i++)
        {
            assertEquals(before.at(i).get("status").asLong(), after.at(i).get("status").asLong());
            assertTrue(after.at(i).get("replayed").asBoolean(), "operation " + i + " replayed");
            assertEquals(before.at(i).get("body").toString(), after.at(i).get("body").toString(), "operation " + i + " body");
        }
        assertEquals("200.00", available(CUSTOMER));
        assertEquals(404, client.account(NEW_ACCOUNT).status());
    }

    @Test
    void shouldApplyEachOperationOfANonAtomicBatchOnItsOwn()
    {
        final Reply reply = client.batch(midwayFailingBatch(false));

        assertEquals(200, reply.status(), reply::toString);
        final Json results = reply.json().get("results");
        assertFalse(reply.json().get("atomic").asBoolean());
        assertResult(results, 0, 201, null);
        assertResult(results, 1, 201, null);
        assertResult(results, 2, 201, null);
        assertResult(results, 3, 422, "insufficient-funds");
        assertResult(results, 4, 201, null);
        assertEquals("40.00", available(CUSTOMER), "200 - 100 - 50 - 10; the 5000 was refused alone");
        assertEquals("160.00", available(MERCHANT));
        assertEquals(200, client.account(NEW_ACCOUNT).status());
    }

    @Test
    void shouldApplyABatchOf1000TransfersInOneRequest()
    {
        final StringBuilder batch = new StringBuilder("{\"atomic\":true,\"operations\":[");
        for (int i = 0; i < LARGE_BATCH_SIZE; i++)
        {
            batch.append(i == 0 ? "" : ",").append(operation("transfer", "bulk-" + i,
                TallyClient.transferJson(FUNDING, MERCHANT, "1.00", TRY, "bulk-ref-" + i)));
        }
        batch.append("]}");

        final Reply reply = client.batch(batch.toString());

        assertEquals(200, reply.status(), () -> reply.body().substring(0, Math.min(500, reply.body().length())));
        final Json results = reply.json().get("results");
        assertEquals(LARGE_BATCH_SIZE, results.size());
        final Set<String> ids = new HashSet<>();
        for (int i = 0; i < LARGE_BATCH_SIZE; i++)
        {
            assertEquals(i, results.at(i).get("index").asLong());
            assertEquals(201, results.at(i).get("status").asLong(), results.at(i)::toString);
            ids.add(results.at(i).get("body").get("id").text());
        }
        assertEquals(LARGE_BATCH_SIZE, ids.size(), "every transfer has its own id");
        assertEquals("1000.00", available(MERCHANT));
        assertEquals("-1200.00", posted(FUNDING));
        final String lastId = results.at(LARGE_BATCH_SIZE - 1).get("body").get("id").text();
        assertEquals("bulk-ref-999", client.transferById(lastId).json().get("reference").text());
    }

    @Test
    void shouldAcceptTheLargestBatchAndRejectOneOperationMore()
    {
        final Reply tooLarge = client.batch(fundingBatch("over", LedgerLimits.BATCH_OPERATIONS_MAX + 1));
        assertEquals(400, tooLarge.status(), tooLarge::toString);
        assertEquals("batch-too-large", tooLarge.problemSlug());
        assertEquals("0.00", available(MERCHANT));

        final Reply largest = client.batch(fundingBatch("max", LedgerLimits.BATCH_OPERATIONS_MAX));

        assertEquals(200, largest.status());
        assertEquals(LedgerLimits.BATCH_OPERATIONS_MAX, largest.json().get("results").size());
        assertEquals("81.90", available(MERCHANT), "8190 transfers of 0.01");
    }

    @Test
    void shouldReplayAKeyRepeatedInsideABatchAndUndoItWhenTheAtomicBatchFails()
    {
        final String transfer = TallyClient.transferJson(CUSTOMER, MERCHANT, "10.00", TRY, null);
        final String repeated = "{\"operations\":[" + operation("transfer", "same", transfer) + "," + operation("transfer", "same", transfer) + "]}";
        final Reply plain = client.batch(repeated);
        assertEquals(201, plain.json().get("results").at(1).get("status").asLong());
        assertTrue(plain.json().get("results").at(1).get("replayed").asBoolean(), "the second use of the key is a replay");
        assertEquals("190.00", available(CUSTOMER), "applied once");

        final String failing = "{\"atomic\":true,\"operations\":[" + operation("transfer", "twice", transfer) + "," +
            operation("transfer", "twice", transfer) + "," +
            operation("transfer", "broke", TallyClient.transferJson(CUSTOMER, MERCHANT, "999.00", TRY, null)) + "]}";
        final Reply atomic = client.batch(failing);

        final Json results = atomic.json().get("results");
        assertResult(results, 0, 422, "linked-operation-failed");
        assertResult(results, 1, 422, "linked-operation-failed");
        assertResult(results, 2, 422, "insufficient-funds");
        assertEquals("190.00", available(CUSTOMER), "nothing of the failed atomic batch stays");
    }

    @Test
    void shouldAnswerABatchOfOneOperationInTheBatchShape()
    {
        final String one = "{\"operations\":[" +
            operation("transfer", "only-1", TallyClient.transferJson(CUSTOMER, MERCHANT, "5.00", TRY, null)) + "]}";

        final Reply reply = client.batch(one);
        final Reply again = client.batch(one);

        assertEquals(200, reply.status(), reply::toString);
        assertFalse(reply.json().get("atomic").asBoolean());
        assertEquals(1, reply.json().get("results").size());
        assertResult(reply.json().get("results"), 0, 201, null);
        assertEquals(200, again.status(), again::toString);
        assertTrue(again.json().get("results").at(0).get("replayed").asBoolean());
        assertEquals(reply.json().get("results").at(0).get("body").toString(), again.json().get("results").at(0).get("body").toString());

        final Reply refused = client.batch("{\"atomic\":true,\"operations\":[" +
            operation("transfer", "only-2", TallyClient.transferJson(CUSTOMER, MERCHANT, "5000.00", TRY, null)) + "]}");

        assertEquals(200, refused.status(), refused::toString);
        assertResult(refused.json().get("results"), 0, 422, "insufficient-funds");
        assertEquals("195.00", available(CUSTOMER));
    }

    @Test
    void shouldRejectABatchWithAnInvalidOperationWith400AndApplyNothing()
    {
        final String batch = "{\"operations\":[" +
            operation("transfer", "ok-1", TallyClient.transferJson(CUSTOMER, MERCHANT, "1.00", TRY, null)) + "," +
            operation("transfer", "bad-2", TallyClient.transferJson(CUSTOMER, MERCHANT, "-1.00", TRY, null)) + "]}";

        final Reply reply = client.batch(batch);

        assertEquals(400, reply.status(), reply::toString);
        assertEquals("invalid-amount", reply.problemSlug());
        assertEquals(1, reply.json().get("operationIndex").asLong());
        assertEquals("200.00", available(CUSTOMER));
    }

    /** @return a non-atomic batch of {@code count} transfers of 0.01 from the funding account to the merchant. */
    private static String fundingBatch(final String keyPrefix, final int count)
    {
        final StringBuilder batch = new StringBuilder("{\"operations\":[");
        for (int i = 0; i < count; i++)
        {
            batch.append(i == 0 ? "" : ",").append(operation("transfer", keyPrefix + "-" + i,
                TallyClient.transferJson(FUNDING, MERCHANT, "0.01", TRY, null)));
        }
        return batch.append("]}").toString();
    }

    /**
     * Creates an account, pays 100, 50, then asks for 5000 (insufficient), then pays 10: the failure sits
     * between successes.
     */
    private static String midwayFailingBatch(final boolean atomic)
    {
        return "{\"atomic\":" + atomic + ",\"operations\":[" +
            operation("account", "b-account", TallyClient.accountJson(NEW_ACCOUNT, TRY, true)) + "," +
            operation("transfer", "b-1", TallyClient.transferJson(CUSTOMER, MERCHANT, "100.00", TRY, null)) + "," +
            operation("transfer", "b-2", TallyClient.transferJson(CUSTOMER, MERCHANT, "50.00", TRY, null)) + "," +
            operation("transfer", "b-3", TallyClient.transferJson(CUSTOMER, MERCHANT, "5000.00", TRY, null)) + "," +
            operation("transfer", "b-4", TallyClient.transferJson(CUSTOMER, MERCHANT, "10.00", TRY, null)) + "]}";
    }

    private static String operation(final String op, final String key, final String body)
    {
        return "{\"op\":\"" + op + "\",\"idempotencyKey\":\"" + key + "\",\"body\":" + body + "}";
    }

    /** @param slug the problem slug, or null for a 201 */
    private static void assertResult(final Json results, final int index, final int status, final String slug)
    {
        final Json result = results.at(index);
        assertEquals(index, result.get("index").asLong());
        assertEquals(status, result.get("status").asLong(), () -> "operation " + index + ": " + result);
        if (slug != null)
        {
            assertEquals(Reply.PROBLEM_PREFIX + slug, result.get("body").get("type").text(), "operation " + index);
            assertEquals(status, result.get("body").get("status").asLong());
        }
    }
}
