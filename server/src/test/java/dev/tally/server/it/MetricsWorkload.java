package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A scripted workload with one of each outcome the metrics count: accounts, transfers, an idempotent
 * replay, a key reused with another payload, insufficient funds, a duplicate reference, holds (one voided),
 * reads. Accounts 1 (funding, unconstrained) and 2 (constrained) are created here.
 */
final class MetricsWorkload
{
    private static final String TRY = TallyClient.TRY;

    private MetricsWorkload()
    {
    }

    static void run(final TallyClient client)
    {
        assertEquals(201, client.createAccount(1, TRY, false).status());
        assertEquals(201, client.createAccount(2, TRY, true).status());
        assertEquals(201, client.transfer("w-1", 1, 2, "10.00", TRY, "ref-w-1").status());
        assertEquals(201, client.transfer("w-1", 1, 2, "10.00", TRY, "ref-w-1").status(), "an idempotent replay");
        assertEquals(422, client.transfer("w-1", 1, 2, "99.00", TRY, "ref-w-1").status(), "key reused");
        assertEquals(422, client.transfer("w-2", 2, 1, "1000.00", TRY, null).status(), "insufficient funds");
        assertEquals(409, client.transfer("w-3", 1, 2, "1.00", TRY, "ref-w-1").status(), "duplicate reference");
        final Reply hold = client.hold("w-4", 2, "1.00", TRY, 60_000);
        assertEquals(201, hold.status(), hold::toString);
        assertEquals(201, client.hold("w-5", 2, "1.00", TRY, 60_000).status());
        assertEquals(201, client.voidHold("w-6", hold.json().get("id").text()).status());
        assertEquals(200, client.account(2).status());
    }
}
