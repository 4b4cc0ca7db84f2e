package dev.tally.ledger;

import dev.tally.ledger.id.Uuid7;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    void shouldRejectEveryCapacityWhoseTableWouldNotFitJavaArraysNamingItsLargestValue()
    {
        // 86,400,000 x 64 bytes of reference text wrapped to a 1.2 GB array: the ledger started, then failed in a transfer
        assertEquals("transfersMax must be <= 33554431 (their reference texts fill one array), was 86400000",
            rejection(10, 10, 10, 10, 86_400_000, 10, DAY, DAY, DAY, 10));
        assertEquals("idempotencyKeysMax must be <= 178956969 (its records fill one array), was 178956970",
            rejection(10, 10, 178_956_970, 10, 10, 10, DAY, DAY, DAY, 10));
        assertEquals("referencesMax must be <= 536870909 (its records fill one array), was 536870910",
            rejection(10, 10, 10, 536_870_910, 10, 10, DAY, DAY, DAY, 10));
        assertEquals("holdsMax must be <= 268435456 (its index fills one array), was 268435457",
            rejection(10, 10, 10, 10, 10, (1 << 28) + 1, DAY, DAY, DAY, 10));
        assertEquals("accountsMax must be <= 214748358 (its records and sub-balances fill one array), was 214748359",
            rejection(214_748_359, 214_748_359, 10, 10, 10, 10, DAY, DAY, DAY, 10));
        new LedgerConfig(214_748_358, 214_748_358, 178_956_969, 536_870_909, 33_554_431, 1 << 28, DAY, DAY, DAY, 10);
    }

    @Test
    void shouldSetEachLimitByTheWidestArrayOfItsTable()
    {
        final long arrays = LedgerLimits.ARRAY_LENGTH_MAX;
        assertLargest(LedgerConfig.TRANSFERS_MAX_LIMIT, LedgerLimits.REFERENCE_LENGTH_MAX, arrays);   // bytes of reference text
        assertTrue(LedgerConfig.TRANSFERS_MAX_LIMIT * 11L <= arrays, "the 11 longs of fields fit too");
        assertLargest(LedgerConfig.IDEMPOTENCY_KEYS_MAX_LIMIT, 12, arrays);
        assertLargest(LedgerConfig.REFERENCES_MAX_LIMIT, 4, arrays);
        assertTrue(LedgerConfig.REFERENCES_MAX_LIMIT <= dev.tally.ledger.table.Digest128Index.CAPACITY_MAX);
        assertLargest(LedgerConfig.ACCOUNTS_MAX_LIMIT, 8 + 2, LedgerConfig.ACCOUNT_CELLS_MAX);
        // the holds' map: 2 x capacity buckets, rounded up to a power of two, of 2 longs in one array
        assertTrue(holdMapLongs(LedgerConfig.HOLDS_MAX_LIMIT) <= arrays);
        assertTrue(holdMapLongs(LedgerConfig.HOLDS_MAX_LIMIT + 1) > Integer.MAX_VALUE);
    }

    private static void assertLargest(final int limit, final int width, final long arrayLength)
    {
        assertTrue((long)limit * width <= arrayLength, limit + " entries of " + width + " fit");
        assertTrue((limit + 1L) * width > arrayLength, "one more would not");
    }

    private static long holdMapLongs(final int holds)
    {
        return 2 * (Long.highestOneBit(2L * holds - 1) << 1);
    }

    @Test
    void shouldRejectMoreAccountsAndSubBalancesThanOneArrayOfRecordsHolds()
    {
        final int accounts = 200_000_000;

        assertEquals("subBalancesMax must be <= 273741791 with accountsMax 200000000, was 300000000: accountsMax x 8 + " +
            "subBalancesMax x 2 longs must fit one array (2147483583), the account records and sub-balance pairs share it",
            rejection(accounts, 300_000_000, 10, 10, 10, 10, DAY, DAY, DAY, 10));
        new LedgerConfig(accounts, 273_741_791, 10, 10, 10, 10, DAY, DAY, DAY, 10);
    }

    @Test
    void shouldRejectMoreExpiriesPerTickThanEventIdsHaveOrdinals()
    {
        // above 16,384 expired holds in one tick, two HOLD_EXPIRED events would share an id (the outbox drops one)
        assertEquals("expiriesPerTickMax must be <= 16384 (a tick's expired holds are told apart by a 14-bit ordinal in " +
            "their event ids), was 16385", rejection(10, 10, 10, 10, 10, 10, DAY, DAY, DAY, 16_385));
        assertEquals(Uuid7.ORDINAL_MAX + 1, LedgerConfig.EXPIRIES_PER_TICK_MAX_LIMIT);
        new LedgerConfig(10, 10, 10, 10, 10, 10, DAY, DAY, DAY, 16_384);
    }

    @Test
    void shouldRejectWindowsWhoseNanosecondsWouldOverflow()
    {
        final long largest = Long.MAX_VALUE / 1_000_000;

        assertEquals("keyRetentionMs must be <= 9223372036854 (its nanoseconds fit a long), was 9223372036855",
            rejection(10, 10, 10, 10, 10, 10, largest + 1, DAY, DAY, 10));
        assertEquals("referenceRetentionMs must be <= 9223372036854 (its nanoseconds fit a long), was " + Long.MAX_VALUE,
            rejection(10, 10, 10, 10, 10, 10, DAY, Long.MAX_VALUE, DAY, 10));
        assertEquals("reversalWindowMs must be <= 9223372036854 (its nanoseconds fit a long), was 9223372036855",
            rejection(10, 10, 10, 10, 10, 10, DAY, DAY, largest + 1, 10));
        new LedgerConfig(10, 10, 10, 10, 10, 10, largest, largest, largest, 10);
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
