package dev.tally.ledger;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LedgerConfigTest
{
    private static final long DAY = LedgerConfig.DAY_MS;

    private static String rejection(
        final int accounts, final int subBalances, final int keys, final int references, final int transfers, final int holds,
        final long keyRetentionMs, final long referenceRetentionMs, final long reversalWindowMs, final int expiriesPerTick)
    {
        return assertThrows(IllegalArgumentException.class, () -> new LedgerConfig(accounts, subBalances, keys, references,
            transfers, holds, keyRetentionMs, referenceRetentionMs, reversalWindowMs, expiriesPerTick)).getMessage();
    }

    @Test
    void shouldNameTheLimitThatIsNotPositiveAndItsValue()
    {
        assertEquals("accountsMax must be > 0, was 0", rejection(0, 10, 10, 10, 10, 10, DAY, DAY, DAY, 10));
        assertEquals("subBalancesMax must be > 0, was -1", rejection(10, -1, 10, 10, 10, 10, DAY, DAY, DAY, 10));
        assertEquals("idempotencyKeysMax must be > 0, was 0", rejection(10, 10, 0, 10, 10, 10, DAY, DAY, DAY, 10));
        assertEquals("referencesMax must be > 0, was 0", rejection(10, 10, 10, 0, 10, 10, DAY, DAY, DAY, 10));
        assertEquals("transfersMax must be > 0, was 0", rejection(10, 10, 10, 10, 0, 10, DAY, DAY, DAY, 10));
        assertEquals("holdsMax must be > 0, was 0", rejection(10, 10, 10, 10, 10, 0, DAY, DAY, DAY, 10));
        assertEquals("keyRetentionMs must be > 0, was 0", rejection(10, 10, 10, 10, 10, 10, 0, DAY, DAY, 10));
        assertEquals("referenceRetentionMs must be > 0, was -5", rejection(10, 10, 10, 10, 10, 10, DAY, -5, DAY, 10));
        assertEquals("reversalWindowMs must be > 0, was 0", rejection(10, 10, 10, 10, 10, 10, DAY, DAY, 0, 10));
        assertEquals("expiriesPerTickMax must be > 0, was 0", rejection(10, 10, 10, 10, 10, 10, DAY, DAY, DAY, 0));
    }

    @Test
    void shouldRequireASubBalanceForEveryAccount()
    {
        assertEquals("subBalancesMax (9) must be >= accountsMax (10): every account has one",
            rejection(10, 9, 10, 10, 10, 10, DAY, DAY, DAY, 10));
        new LedgerConfig(10, 10, 10, 10, 10, 10, DAY, DAY, DAY, 10);
    }

    @Test
    void shouldRejectCapacitiesBeyondWhatTheHashIndexesAddress()
    {
        final int tooMany = (1 << 29) + 1;

        assertEquals("a capacity exceeds 536870912", rejection(10, 10, tooMany, 10, 10, 10, DAY, DAY, DAY, 10));
        assertEquals("a capacity exceeds 536870912", rejection(10, 10, 10, 10, 10, tooMany, DAY, DAY, DAY, 10));
    }

    @Test
    void shouldRejectMoreAccountsAndSubBalancesThanOneArrayOfRecordsHolds()
    {
        final int accounts = 200_000_000;

        assertEquals("accountsMax x 8 + subBalancesMax x 2 longs must fit one array (2147483583): the account records and " +
            "sub-balance pairs share it", rejection(accounts, 300_000_000, 10, 10, 10, 10, DAY, DAY, DAY, 10));
        new LedgerConfig(accounts, accounts, 10, 10, 10, 10, DAY, DAY, DAY, 10);
    }

    @Test
    void shouldProvideValidDefaultsWithTheSpecsKeyRetention()
    {
        assertEquals(DAY, LedgerConfig.defaults().keyRetentionMs(), "24 h of journaled time");
        assertEquals(10_000, LedgerConfig.small().accountsMax());
    }

    @Test
    void shouldCopyWithOtherRetentionOrCapacityAndKeepTheRest()
    {
        final LedgerConfig base = LedgerConfig.small();

        final LedgerConfig retention = base.withRetention(1, 2, 3);
        assertEquals(new LedgerConfig(base.accountsMax(), base.subBalancesMax(), base.idempotencyKeysMax(), base.referencesMax(),
            base.transfersMax(), base.holdsMax(), 1, 2, 3, base.expiriesPerTickMax()), retention);

        final LedgerConfig capacity = base.withCapacity(5, 6, 7, 8, 9);
        assertEquals(5, capacity.accountsMax());
        assertEquals(6, capacity.subBalancesMax());
        assertEquals(7, capacity.idempotencyKeysMax());
        assertEquals(8, capacity.transfersMax());
        assertEquals(9, capacity.holdsMax());
        assertEquals(base.keyRetentionMs(), capacity.keyRetentionMs());
        assertThrows(IllegalArgumentException.class, () -> base.withCapacity(5, 4, 7, 8, 9), "validated like any config");
    }
}
