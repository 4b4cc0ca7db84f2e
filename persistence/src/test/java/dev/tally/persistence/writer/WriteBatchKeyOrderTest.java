package dev.tally.persistence.writer;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import static dev.tally.persistence.writer.EffectRecords.BALANCE_ACCOUNT;
import static dev.tally.persistence.writer.EffectRecords.BALANCE_COMMAND_INDEX;
import static dev.tally.persistence.writer.EffectRecords.BALANCE_SUB;
import static dev.tally.persistence.writer.EffectRecords.BALANCE_TENANT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A batch hands its balances to PostgreSQL in primary-key order: every balance once, sorted by (tenant, account, sub). */
class WriteBatchKeyOrderTest
{
    private final UnsafeBuffer record = new UnsafeBuffer(new byte[256]);

    @Test
    void shouldListEveryBalanceOnceInKeyOrderWhateverTheOrderTheyCameIn()
    {
        final SplittableRandom random = new SplittableRandom(11);
        for (final int touches : new int[] {0, 1, 2, 3, 15, 16, 17, 100, 20_000})
        {
            final WriteBatch batch = new WriteBatch();
            for (int t = 0; t < touches; t++)
            {
                // few tenants and subs, many accounts, negative ids too: every comparison of the key is exercised, repeats coalesce
                balance(batch, random.nextInt(3) - 1, random.nextLong(-50, 5_000), random.nextInt(4), t + 1);
            }
            assertSortedPermutation(batch);
        }
    }

    @Test
    void shouldOrderKeysThatDifferOnlyInTheirLastPart()
    {
        final WriteBatch batch = new WriteBatch();
        balance(batch, 2, 7, 3, 1);
        balance(batch, 2, 7, 0, 2);
        balance(batch, 1, 9, 5, 3);
        balance(batch, 2, 6, 9, 4);
        balance(batch, 2, 7, 1, 5);
        final int[] order = batch.balancesInKeyOrder();
        final StringBuilder keys = new StringBuilder();
        for (int k = 0; k < batch.balances; k++)
        {
            final int i = order[k];
            keys.append(batch.balanceTenant[i]).append('/').append(batch.balanceAccount[i]).append('/').append(batch.balanceSub[i]).append(' ');
        }
        assertEquals("1/9/5 2/6/9 2/7/0 2/7/1 2/7/3 ", keys.toString());
    }

    private void balance(final WriteBatch batch, final long tenant, final long account, final int sub, final long command)
    {
        record.putLong(BALANCE_TENANT, tenant);
        record.putLong(BALANCE_ACCOUNT, account);
        record.putInt(BALANCE_SUB, sub);
        record.putLong(BALANCE_COMMAND_INDEX, command);
        batch.addBalance(record, 0);
    }

    private static void assertSortedPermutation(final WriteBatch batch)
    {
        final int[] order = batch.balancesInKeyOrder();
        final Set<Integer> seen = new HashSet<>();
        for (int k = 0; k < batch.balances; k++)
        {
            assertTrue(seen.add(order[k]), "position " + order[k] + " twice");
            assertTrue(order[k] >= 0 && order[k] < batch.balances, "position " + order[k] + " outside the batch");
            if (k > 0)
            {
                final int a = order[k - 1];
                final int b = order[k];
                final int c = Long.compare(batch.balanceTenant[a], batch.balanceTenant[b]) != 0
                    ? Long.compare(batch.balanceTenant[a], batch.balanceTenant[b])
                    : Long.compare(batch.balanceAccount[a], batch.balanceAccount[b]) != 0
                        ? Long.compare(batch.balanceAccount[a], batch.balanceAccount[b])
                        : Integer.compare(batch.balanceSub[a], batch.balanceSub[b]);
                assertTrue(c < 0, "out of order (or a key twice) at " + k);
            }
        }
        assertEquals(batch.balances, seen.size());
    }
}
