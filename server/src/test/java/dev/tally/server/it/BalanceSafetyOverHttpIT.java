package dev.tally.server.it;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The balance half of the failure-first table over real HTTP: concurrent spenders never overdraw a
 * constrained account, and held funds cannot be spent twice.
 */
class BalanceSafetyOverHttpIT extends OneServerPerTest
{
    private static final long FUNDING = 1;
    private static final long CUSTOMER = 2;
    private static final long MERCHANT = 3;
    private static final long HOLD_EXPIRY_WAIT_SECONDS = 10;

    @BeforeEach
    void openAccounts()
    {
        createAccount(FUNDING, false);
        createAccount(CUSTOMER, true);
        createAccount(MERCHANT, true);
    }

    @Test
    void shouldLetExactlyTwoOfFourConcurrentTransfersOf1000Through2000()
        throws Exception
    {
        fund(FUNDING, CUSTOMER, "2000.00");

        final List<Reply> replies = Concurrently.send(4,
            i -> client.transfer("big-" + i, CUSTOMER, MERCHANT, "1000.00", TRY, null));

        assertOutcomes(replies, 2);
        assertEquals("0.00", available(CUSTOMER), "drained to zero, never below");
        assertEquals("0.00", posted(CUSTOMER));
        assertEquals("2000.00", available(MERCHANT));
    }

    @Test
    void shouldLetExactlyTenOfFiftyConcurrentDebitsOf1Through10() throws Exception
    {
        fund(FUNDING, CUSTOMER, "10.00");

        final List<Reply> replies = Concurrently.send(50,
            i -> client.transfer("small-" + i, CUSTOMER, MERCHANT, "1.00", TRY, null));

        assertOutcomes(replies, 10);
        assertEquals("0.00", available(CUSTOMER));
        assertEquals("10.00", available(MERCHANT));
    }

    @Test
    void shouldRejectSpendingHeldFundsThenCaptureInPartAndReleaseTheRest()
    {
        fund(FUNDING, CUSTOMER, "100.00");
        final Reply hold = client.hold("hold-1", CUSTOMER, "50.00", TRY, 60_000);
        assertEquals(201, hold.status(), hold::toString);
        final String holdId = hold.json().get("id").text();
        assertEquals("50.00", held(CUSTOMER));
        assertEquals("50.00", available(CUSTOMER));

        final Reply overSpend = client.transfer("spend-held", CUSTOMER, MERCHANT, "60.00", TRY, null);
        assertEquals(422, overSpend.status(), overSpend::toString);
        assertEquals("insufficient-funds", overSpend.problemSlug());
        assertEquals("50.00", available(CUSTOMER), "the refused transfer moved nothing");

        final Reply capture = client.capture("capture-1", holdId, MERCHANT, "20.00", TRY);
        assertEquals(201, capture.status(), capture::toString);
        assertEquals(holdId, capture.json().get("holdId").text());
        assertEquals("20.00", capture.json().get("amount").text());

        final Json customer = client.accountJson(CUSTOMER);
        assertEquals("80.00", customer.get("posted").text(), "only the captured part left the account");
        assertEquals("0.00", customer.get("held").text(), "the rest of the hold is released");
        assertEquals("80.00", customer.get("available").text());
        assertEquals("20.00", available(MERCHANT));

        final Reply again = client.capture("capture-2", holdId, MERCHANT, "10.00", TRY);
        assertEquals(422, again.status(), again::toString);
        assertEquals("hold-not-active", again.problemSlug(), "a captured hold cannot be captured again");
        assertEquals("80.00", available(CUSTOMER));
    }

    @Test
    void shouldRejectACaptureAboveTheHeldAmountAndKeepTheHold()
    {
        fund(FUNDING, CUSTOMER, "100.00");
        final String holdId = client.hold("hold-1", CUSTOMER, "50.00", TRY, 60_000).json().get("id").text();

        final Reply capture = client.capture("capture-1", holdId, MERCHANT, "50.01", TRY);

        assertEquals(422, capture.status(), capture::toString);
        assertEquals("capture-exceeds-hold", capture.problemSlug());
        assertEquals("50.00", held(CUSTOMER));
        assertEquals("0.00", available(MERCHANT));
    }

    @Test
    void shouldReleaseTheWholeHoldWhenVoided()
    {
        fund(FUNDING, CUSTOMER, "100.00");
        final String holdId = client.hold("hold-1", CUSTOMER, "70.00", TRY, 60_000).json().get("id").text();
        assertEquals("30.00", available(CUSTOMER));

        final Reply voided = client.voidHold("void-1", holdId);

        assertEquals(201, voided.status(), voided::toString);
        assertEquals("70.00", voided.json().get("releasedAmount").text());
        assertEquals("100.00", available(CUSTOMER));
        assertEquals("0.00", held(CUSTOMER));
        final Reply spend = client.transfer("spend-all", CUSTOMER, MERCHANT, "100.00", TRY, null);
        assertEquals(201, spend.status(), "released funds are spendable again: " + spend);
    }

    @Test
    void shouldCaptureTheWholeHoldWhenNoAmountIsGiven()
    {
        fund(FUNDING, CUSTOMER, "100.00");
        final String holdId = client.hold("hold-1", CUSTOMER, "40.00", TRY, 60_000).json().get("id").text();

        final Reply capture = client.capture("capture-all", holdId, MERCHANT, null, null);

        assertEquals(201, capture.status(), capture::toString);
        assertEquals("40.00", capture.json().get("amount").text());
        assertEquals("60.00", posted(CUSTOMER));
        assertEquals("0.00", held(CUSTOMER));
        assertEquals("40.00", available(MERCHANT));
    }

    @Test
    void shouldReleaseAnExpiredHoldOnAJournaledTick() throws Exception
    {
        fund(FUNDING, CUSTOMER, "100.00");
        final String holdId = client.hold("short-hold", CUSTOMER, "60.00", TRY, 1).json().get("id").text();

        // ticks are journaled every second: the hold expires on one of the next ticks, not on a read
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(HOLD_EXPIRY_WAIT_SECONDS);
        while (!"0.00".equals(held(CUSTOMER)) && System.nanoTime() < deadlineNs)
        {
            Thread.sleep(100);
        }

        assertEquals("0.00", held(CUSTOMER), "expired within " + HOLD_EXPIRY_WAIT_SECONDS + " s");
        assertEquals("100.00", available(CUSTOMER));
        final Reply capture = client.capture("late-capture", holdId, MERCHANT, null, null);
        assertEquals(422, capture.status(), capture::toString);
        assertEquals("hold-not-active", capture.problemSlug());
        assertEquals("0.00", available(MERCHANT));
    }

    @Test
    void shouldRefuseAReversalBeyondWhatIsLeftToReverse()
    {
        fund(FUNDING, CUSTOMER, "100.00");
        final String paid = client.transfer("pay", CUSTOMER, MERCHANT, "60.00", TRY, null).json().get("id").text();
        final Reply part = client.post("/v1/transfers/" + paid + "/reversals", "reverse-1", "{\"amount\":\"50.00\",\"currency\":\"TRY\"}");
        assertEquals(201, part.status(), part::toString);
        assertEquals("reversal", part.json().get("kind").text());

        final Reply tooMuch = client.post("/v1/transfers/" + paid + "/reversals", "reverse-2", "{\"amount\":\"10.01\",\"currency\":\"TRY\"}");

        assertEquals(422, tooMuch.status(), tooMuch::toString);
        assertEquals("reversal-exceeds-remaining", tooMuch.problemSlug());
        assertEquals("90.00", available(CUSTOMER));
        assertEquals("10.00", available(MERCHANT));
        assertEquals("50.00", client.transferById(paid).json().get("reversedAmount").text());
        final Reply rest = client.post("/v1/transfers/" + paid + "/reversals", "reverse-3", "");
        assertEquals(201, rest.status(), "a reversal without amount reverses what is left: " + rest);
        assertEquals("10.00", rest.json().get("amount").text());
        assertEquals("100.00", available(CUSTOMER));
    }

    private static void assertOutcomes(final List<Reply> replies, final int expectedSuccesses)
    {
        int created = 0;
        int refused = 0;
        for (final Reply reply : replies)
        {
            assertFalse(reply.replayed(), "distinct keys are never replays");
            if (reply.status() == 201)
            {
                created++;
            }
            else
            {
                assertEquals(422, reply.status(), reply::toString);
                assertEquals("insufficient-funds", reply.problemSlug());
                refused++;
            }
        }
        assertEquals(expectedSuccesses, created, "successes");
        assertEquals(replies.size() - expectedSuccesses, refused, "insufficient-funds rejections");
    }
}
