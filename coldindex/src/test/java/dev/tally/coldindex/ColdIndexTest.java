package dev.tally.coldindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import dev.tally.ledger.cold.ColdAsks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cold index on a real RocksDB on disk: what is committed is found, also after a reopen; what expired is not. */
class ColdIndexTest
{
    private static final long T0 = 1_767_225_600_000_000_000L;
    private static final long RETENTION_NS = TimeUnit.HOURS.toNanos(24);

    @TempDir
    Path dir;

    @Test
    void shouldFindEveryKindOfRecordCommittedAlsoAfterAReopen()
    {
        final long[] key = record(ColdRecords.KEY_LONGS, 100);
        final long[] transfer = record(ColdRecords.TRANSFER_LONGS, 200);
        try (ColdIndex index = open(); ColdWriter writer = index.writer())
        {
            writer.key(11, 12, key);
            writer.reference(21, 22, 7, T0 + 5);
            writer.transfer(7, transfer);
            assertEquals(3, writer.pending());
            writer.commit(7, T0 + 5);
            assertEquals(7, index.watermarkIndex());
        }
        try (ColdIndex index = open(); ColdReader reader = index.reader())
        {
            assertEquals(7, index.watermarkIndex());
            assertEquals(T0 + 5, index.watermarkTimeNs());
            final long[] found = new long[ColdRecords.TRANSFER_LONGS];
            assertTrue(reader.findKey(11, 12, found));
            assertArrayEquals(key, java.util.Arrays.copyOf(found, ColdRecords.KEY_LONGS));
            assertTrue(reader.findReference(21, 22, found));
            assertEquals(7, found[0]);
            assertEquals(T0 + 5, found[1]);
            assertTrue(reader.findTransfer(7, found));
            assertArrayEquals(transfer, found);

            assertFalse(reader.findKey(11, 13, found), "another digest");
            assertFalse(reader.findReference(22, 21, found));
            assertFalse(reader.findTransfer(8, found));
        }
    }

    /**
     * A prefetch answers the finds that follow it as single lookups would: filed and absent keys and references, a
     * command passed over (refused before its lookup), and a find it did not ask, which is looked up alone. The next
     * prefetch, even an empty one, drops its answers: read before an older watermark, they must not answer later.
     */
    @Test
    void shouldAnswerFindsFromOnePrefetchAsSingleLookupsWould()
    {
        try (ColdIndex index = open(); ColdReader reader = index.reader(); ColdWriter writer = index.writer())
        {
            writer.key(11, 12, record(ColdRecords.KEY_LONGS, 100));
            writer.key(13, 14, record(ColdRecords.KEY_LONGS, 300));
            writer.reference(21, 22, 7, T0 + 5);
            writer.commit(7, T0 + 5);

            final ColdAsks asks = new ColdAsks();
            asks.addKey(11, 12);
            asks.addReference(21, 22);
            asks.addKey(90, 91);      // never filed
            asks.addReference(92, 93);
            asks.addKey(13, 14);
            asks.addKey(95, 96);
            reader.prefetch(asks);
            writer.key(95, 96, record(ColdRecords.KEY_LONGS, 900));   // filed after the prefetch: not in its answers
            writer.commit(8, T0 + 6);

            final long[] found = new long[ColdRecords.TRANSFER_LONGS];
            assertTrue(reader.findKey(11, 12, found));
            assertEquals(100_000, found[0]);
            assertTrue(reader.findReference(21, 22, found));
            assertEquals(7, found[0]);
            assertEquals(T0 + 5, found[1]);
            // the command of key 90 was refused before its lookup: passed over
            assertTrue(reader.findKey(13, 14, found), "found past a key not asked for");
            assertEquals(300_000, found[0]);
            assertFalse(reader.findReference(92, 93, found));
            assertFalse(reader.findKey(95, 96, found), "the prefetch's answer, read before the key was filed");
            assertTrue(reader.findKey(11, 12, found), "not left in the prefetch (taken already): looked up alone");

            reader.prefetch(new ColdAsks());
            assertTrue(reader.findKey(95, 96, found), "after the next prefetch, looked up anew");
            assertEquals(900_000, found[0]);
        }
    }

    /** A key asked twice in one prefetch (a retry in the same batch) answers both finds. */
    @Test
    void shouldAnswerAKeyAskedTwiceInOnePrefetchTwice()
    {
        try (ColdIndex index = open(); ColdReader reader = index.reader(); ColdWriter writer = index.writer())
        {
            writer.key(11, 12, record(ColdRecords.KEY_LONGS, 100));
            writer.commit(1, T0);
            final ColdAsks asks = new ColdAsks();
            asks.addKey(11, 12);
            asks.addKey(11, 12);
            reader.prefetch(asks);
            final long[] found = new long[ColdRecords.KEY_LONGS];
            assertTrue(reader.findKey(11, 12, found));
            found[0] = 0;
            assertTrue(reader.findKey(11, 12, found));
            assertEquals(100_000, found[0]);
        }
    }

    @Test
    void shouldKeepNothingUncommittedAndRefileTheSameBytes()
    {
        try (ColdIndex index = open(); ColdWriter writer = index.writer())
        {
            writer.transfer(1, record(ColdRecords.TRANSFER_LONGS, 1));
            writer.commit(1, T0);
            writer.transfer(2, record(ColdRecords.TRANSFER_LONGS, 2));   // never committed: a crash would lose it
        }
        try (ColdIndex index = open(); ColdReader reader = index.reader(); ColdWriter writer = index.writer())
        {
            final long[] found = new long[ColdRecords.TRANSFER_LONGS];
            assertEquals(1, index.watermarkIndex());
            assertTrue(reader.findTransfer(1, found));
            assertFalse(reader.findTransfer(2, found));
            final long[] reversed = record(ColdRecords.TRANSFER_LONGS, 1);
            reversed[6] = 55;   // refiled with what changed
            writer.transfer(1, reversed);
            writer.commit(2, T0 + 1);
            assertTrue(reader.findTransfer(1, found));
            assertEquals(55, found[6]);
        }
    }

    @Test
    void shouldGiveKeysATimeToLiveOfTheirRetentionAndADayAndReferencesAndTransfersNone()
    {
        assertEquals(24 * 3600 + 24 * 3600, ColdIndexConfig.of(dir, RETENTION_NS).keyTtlSeconds());
        assertEquals(Integer.MAX_VALUE, ColdIndexConfig.of(dir, Long.MAX_VALUE).keyTtlSeconds(), "capped at what RocksDB takes");
    }

    private ColdIndex open()
    {
        return ColdIndex.open(ColdIndexConfig.of(dir, RETENTION_NS));
    }

    private static long[] record(final int longs, final long seed)
    {
        final long[] record = new long[longs];
        for (int i = 0; i < longs; i++)
        {
            record[i] = seed * 1_000 + i;
        }
        return record;
    }
}
