package dev.tally.ledger.idempotency;

import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IdempotencyTableTest
{
    /** A stored result whose fields all derive from {@code n}, stored at {@code timeNs}. */
    private static Result result(final long n, final long timeNs)
    {
        final Result r = new Result();
        r.code = ResultCode.INSUFFICIENT_FUNDS;
        r.type = CommandType.TRANSFER;
        r.originIndex = n;
        r.originTimestampNs = timeNs;
        r.accountA = n + 1;
        r.accountB = n + 2;
        r.amountMinor = n + 3;
        r.extra = n + 4;
        r.extraTimestampNs = n + 5;
        r.currency = (int)(n + 6);
        return r;
    }

    private static void add(final IdempotencyTable table, final long key, final long timeNs)
    {
        table.add(key, ~key, key * 3, key * 5, result(key, timeNs));
    }

    private static boolean stored(final IdempotencyTable table, final long key)
    {
        return table.find(key, ~key) >= 0;
    }

    @Test
    void shouldExpireOldestKeysFirstUpToTheCutoffInclusive()
    {
        final IdempotencyTable table = new IdempotencyTable(8);
        add(table, 1, 10);
        add(table, 2, 20);
        add(table, 3, 30);
        add(table, 4, 40);

        assertEquals(2, table.expire(20, 100));

        assertFalse(stored(table, 1));
        assertFalse(stored(table, 2), "stored exactly at the cutoff: expired");
        assertTrue(stored(table, 3));
        assertTrue(stored(table, 4));
        assertEquals(2, table.size());
        assertEquals(0, table.expire(29, 100));
    }

    @Test
    void shouldExpireAtMostMaxKeysPerCall()
    {
        final IdempotencyTable table = new IdempotencyTable(8);
        for (int key = 1; key <= 5; key++)
        {
            add(table, key, key);
        }

        assertEquals(2, table.expire(100, 2));
        assertFalse(stored(table, 2));
        assertTrue(stored(table, 3), "bounded work per tick: the rest wait for the next one");
        assertEquals(2, table.expire(100, 2));
        assertEquals(1, table.expire(100, 2));
        assertEquals(0, table.size());
    }

    @Test
    void shouldReuseRingSlotsAfterExpiryAndStillReadEveryKeyBack()
    {
        final IdempotencyTable table = new IdempotencyTable(3);
        add(table, 1, 10);
        add(table, 2, 20);
        add(table, 3, 30);
        assertFalse(table.hasRoom());

        table.expire(20, 100);
        add(table, 4, 40);
        add(table, 5, 50);

        assertFalse(table.hasRoom());
        for (long key = 3; key <= 5; key++)
        {
            final Result out = new Result();
            table.read(table.find(key, ~key), out);
            assertEquals(key, out.originIndex, "key " + key + " after the ring wrapped");
        }
        assertEquals(1, table.expire(30, 100), "expiry continues in insertion order across the wrap");
        assertFalse(stored(table, 3));
    }

    @Test
    void shouldReadBackEveryFieldOfTheStoredResultMarkedReplayed()
    {
        final IdempotencyTable table = new IdempotencyTable(4);
        final Result stored = result(7, 70);
        stored.currency = -5;
        final int position = table.add(11, 12, 13, 14, stored);

        final Result out = new Result();
        table.read(position, out);

        assertTrue(out.replayed);
        assertEquals(stored.code, out.code);
        assertEquals(stored.type, out.type);
        assertEquals(stored.originIndex, out.originIndex);
        assertEquals(stored.originTimestampNs, out.originTimestampNs);
        assertEquals(stored.accountA, out.accountA);
        assertEquals(stored.accountB, out.accountB);
        assertEquals(stored.amountMinor, out.amountMinor);
        assertEquals(stored.extra, out.extra);
        assertEquals(stored.extraTimestampNs, out.extraTimestampNs);
        assertEquals(stored.currency, out.currency);
        assertTrue(table.fingerprintMatches(position, 13, 14));
        assertFalse(table.fingerprintMatches(position, 13, 15));
    }

    @Test
    void shouldRewriteAStoredResult()
    {
        final IdempotencyTable table = new IdempotencyTable(4);
        final Result stored = result(7, 70);
        stored.code = ResultCode.OK;
        final int position = table.add(11, 12, 13, 14, stored);

        stored.code = ResultCode.LINKED_OPERATION_FAILED;
        table.write(position, stored);

        final Result out = new Result();
        table.read(position, out);
        assertEquals(ResultCode.LINKED_OPERATION_FAILED, out.code);
    }

    @Test
    void shouldRemoveOnlyTheNewestKey()
    {
        final IdempotencyTable table = new IdempotencyTable(4);
        add(table, 1, 10);
        add(table, 2, 20);

        table.removeNewest();

        assertTrue(stored(table, 1));
        assertFalse(stored(table, 2));
        assertEquals(1, table.size());
        add(table, 3, 30);
        assertTrue(stored(table, 3));
    }
}
