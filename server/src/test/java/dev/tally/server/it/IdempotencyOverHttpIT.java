package dev.tally.server.it;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SPEC section 4 over real HTTP against a real server and journal: one effect per (tenant, key), replays
 * byte-identical with {@code Idempotent-Replayed: true}, reuse with another payload refused, keys
 * validated, and references unique as the second line of defence.
 */
class IdempotencyOverHttpIT extends OneServerPerTest
{
    private static final long FUNDING = 1;
    private static final long CUSTOMER = 2;
    private static final long MERCHANT = 3;
    private static final int ATTEMPTS = 100;

    @BeforeEach
    void openAccounts()
    {
        createAccount(FUNDING, false);
        createAccount(CUSTOMER, true);
        createAccount(MERCHANT, true);
        fund(FUNDING, CUSTOMER, "2000.00");
    }

    @Test
    void shouldApplyOnceAndReplayByteIdenticalWhenTheSameKeyIsSentHundredTimesInSequence()
    {
        final Reply first = client.transfer("pay-1", CUSTOMER, MERCHANT, "100.00", TRY, "inv-1");
        assertEquals(201, first.status(), first::toString);
        assertFalse(first.replayed(), "the first attempt is not a replay");
        for (int attempt = 2; attempt <= ATTEMPTS; attempt++)
        {
            final Reply again = client.transfer("pay-1", CUSTOMER, MERCHANT, "100.00", TRY, "inv-1");
            assertEquals(201, again.status(), again::toString);
            assertTrue(again.replayed(), "attempt " + attempt + " carries Idempotent-Replayed: true");
            assertEquals(first.body(), again.body(), "attempt " + attempt + " replays the first body byte for byte");
        }
        assertEquals("1900.00", available(CUSTOMER), "the customer paid once");
        assertEquals("100.00", available(MERCHANT), "the merchant was paid once");
    }

    @Test
    void shouldApplyOnceAndReplayByteIdenticalWhenTheSameKeyIsSentHundredTimesInParallel() throws Exception
    {
        final List<Reply> replies = Concurrently.send(ATTEMPTS,
            i -> client.transfer("pay-parallel", CUSTOMER, MERCHANT, "100.00", TRY, "inv-parallel"));

        final String body = replies.get(0).body();
        int firstTimes = 0;
        for (final Reply reply : replies)
        {
            assertEquals(201, reply.status(), reply::toString);
            assertEquals(body, reply.body(), "every reply is byte-identical");
            firstTimes += reply.replayed() ? 0 : 1;
        }
        assertEquals(1, firstTimes, "exactly one reply is the original, all others say Idempotent-Replayed: true");
        assertEquals("1900.00", available(CUSTOMER));
        assertEquals("100.00", available(MERCHANT));
        final Json transfer = client.transferById(Json.parse(body).get("id").text()).json();
        assertEquals("100.00", transfer.get("amount").text(), "the one transfer is readable");
    }

    @Test
    void shouldRejectTheSameKeyWithAnotherPayloadAndKeepTheFirstResult()
    {
        final Reply first = client.transfer("pay-1", CUSTOMER, MERCHANT, "100.00", TRY, "inv-1");
        assertEquals(201, first.status(), first::toString);
        final String customerBefore = client.account(CUSTOMER).body();
        final String merchantBefore = client.account(MERCHANT).body();

        final Reply reused = client.transfer("pay-1", CUSTOMER, MERCHANT, "999.00", TRY, "inv-1");

        assertEquals(422, reused.status(), reused::toString);
        assertEquals("idempotency-key-reused", reused.problemSlug());
        assertFalse(reused.replayed(), "a refused reuse is not a replay");
        assertEquals(customerBefore, client.account(CUSTOMER).body(), "nothing applied to the customer");
        assertEquals(merchantBefore, client.account(MERCHANT).body(), "nothing applied to the merchant");
        final Reply original = client.transfer("pay-1", CUSTOMER, MERCHANT, "100.00", TRY, "inv-1");
        assertEquals(201, original.status());
        assertTrue(original.replayed());
        assertEquals(first.body(), original.body(), "the first result is untouched by the refused reuse");
        assertEquals("100.00", client.transferById(first.json().get("id").text()).json().get("amount").text());
    }

    @Test
    void shouldApplyExactlyOneOfTwoPayloadsRacingUnderOneKey() throws Exception
    {
        final List<Reply> replies = Concurrently.send(ATTEMPTS,
            i -> client.transfer("race", CUSTOMER, MERCHANT, i % 2 == 0 ? "100.00" : "300.00", TRY, null));

        String winner = null;
        int created = 0;
        for (int i = 0; i < replies.size(); i++)
        {
            final Reply reply = replies.get(i);
            if (reply.status() == 201)
            {
                final String amount = reply.json().get("amount").text();
                winner = winner == null ? amount : winner;
                assertEquals(winner, amount, "every 201 is the same transfer");
                assertEquals(i % 2 == 0 ? "100.00" : "300.00", amount, "a 201 only answers the payload that won");
                created++;
            }
            else
            {
                assertEquals(422, reply.status(), reply::toString);
                assertEquals("idempotency-key-reused", reply.problemSlug());
                assertFalse(reply.replayed());
            }
        }
        assertEquals(ATTEMPTS / 2, created, "all requests with the winning payload get its result");
        final String expected = "100.00".equals(winner) ? "1900.00" : "1700.00";
        assertEquals(expected, available(CUSTOMER), "one effect, of the winning payload");
    }

    @Test
    void shouldRejectAKeyReusedForAnotherOperation()
    {
        final Reply hold = client.hold("shared", CUSTOMER, "100.00", TRY, 60_000);
        assertEquals(201, hold.status(), hold::toString);

        final Reply transfer = client.transfer("shared", CUSTOMER, MERCHANT, "100.00", TRY, null);

        assertEquals(422, transfer.status(), transfer::toString);
        assertEquals("idempotency-key-reused", transfer.problemSlug());
        assertEquals("1900.00", available(CUSTOMER), "only the hold took effect");
        assertEquals("0.00", available(MERCHANT));
    }

    @Test
    void shouldReplayWhenTheSamePayloadIsWrittenInAnotherMemberOrderSpacingAndNumberFormat()
    {
        final Reply first = client.post("/v1/transfers", "pay-format",
            "{\"debitAccountId\":2,\"creditAccountId\":3,\"amount\":\"10.50\",\"currency\":\"TRY\"}");
        assertEquals(201, first.status(), first::toString);

        final Reply again = client.post("/v1/transfers", "pay-format",
            "{ \"currency\" : \"TRY\",\n \"amount\": 10.5, \"creditAccountId\": 3, \"debitAccountId\": 2 }");

        assertEquals(201, again.status(), again::toString);
        assertTrue(again.replayed(), "the canonical payload is the same, so it is a replay");
        assertEquals(first.body(), again.body());
        assertEquals("1989.50", available(CUSTOMER));
    }

    @Test
    void shouldStoreAndReplayABusinessRejectionLikeASuccess()
    {
        final Reply refused = client.transfer("too-much", CUSTOMER, MERCHANT, "5000.00", TRY, null);
        assertEquals(422, refused.status(), refused::toString);
        assertEquals("insufficient-funds", refused.problemSlug());
        assertFalse(refused.replayed());
        fund(FUNDING, CUSTOMER, "5000.00");

        final Reply again = client.transfer("too-much", CUSTOMER, MERCHANT, "5000.00", TRY, null);

        assertEquals(422, again.status(), "the stored rejection comes back, even though funds now suffice");
        assertTrue(again.replayed());
        assertEquals(refused.body(), again.body());
        assertEquals("0.00", available(MERCHANT));
    }

    @Test
    void shouldRejectATransferWithoutIdempotencyKeyWith400AndApplyNothing()
    {
        final String customerBefore = client.account(CUSTOMER).body();

        final Reply reply = client.post("/v1/transfers", null, TallyClient.transferJson(CUSTOMER, MERCHANT, "100.00", TRY, null));

        assertEquals(400, reply.status(), reply::toString);
        assertEquals("idempotency-key-missing", reply.problemSlug());
        assertEquals(customerBefore, client.account(CUSTOMER).body());
    }

    @Test
    void shouldRejectAnIdempotencyKeyOf256CharactersAndAcceptOneOf255()
    {
        final String customerBefore = client.account(CUSTOMER).body();

        final Reply tooLong = client.transfer("k".repeat(256), CUSTOMER, MERCHANT, "100.00", TRY, null);

        assertEquals(400, tooLong.status(), tooLong::toString);
        assertEquals("idempotency-key-invalid", tooLong.problemSlug());
        assertEquals(customerBefore, client.account(CUSTOMER).body(), "nothing applied");
        final Reply longest = client.transfer("k".repeat(255), CUSTOMER, MERCHANT, "100.00", TRY, null);
        assertEquals(201, longest.status(), longest::toString);
        assertEquals("1900.00", available(CUSTOMER));
    }

    @Test
    void shouldRejectAnIdempotencyKeyWithASpace()
    {
        final Reply reply = client.transfer("two words", CUSTOMER, MERCHANT, "100.00", TRY, null);

        assertEquals(400, reply.status(), reply::toString);
        assertEquals("idempotency-key-invalid", reply.problemSlug());
        assertEquals("2000.00", available(CUSTOMER));
    }

    @Test
    void shouldAnswerDuplicateReferenceUnderANewKeyWith409NamingTheExistingTransfer()
    {
        final Reply first = client.transfer("pay-1", CUSTOMER, MERCHANT, "100.00", TRY, "inv-45982");
        assertEquals(201, first.status(), first::toString);

        final Reply duplicate = client.transfer("pay-2", CUSTOMER, MERCHANT, "100.00", TRY, "inv-45982");

        assertEquals(409, duplicate.status(), duplicate::toString);
        assertEquals("duplicate-reference", duplicate.problemSlug());
        assertEquals(first.json().get("id").text(), duplicate.json().get("existingTransferId").text());
        assertEquals("1900.00", available(CUSTOMER), "only the first transfer moved money");
    }

    @Test
    void shouldKeepKeysOfTwoTenantsApart()
    {
        final TallyClient other = client.withApiKey(Servers.OTHER_TENANT_KEY);
        final Reply otherAccount = other.post("/v1/accounts", "shared-key", TallyClient.accountJson(900, TRY, true));
        assertEquals(201, otherAccount.status(), otherAccount::toString);

        final Reply mine = client.post("/v1/accounts", "shared-key", TallyClient.accountJson(901, TRY, true));

        assertEquals(201, mine.status(), "the same key of another tenant is another key");
        assertFalse(mine.replayed());
        assertEquals(901, mine.json().get("id").asId());
    }
}
