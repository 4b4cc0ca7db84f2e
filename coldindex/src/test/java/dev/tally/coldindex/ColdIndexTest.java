package dev.tally.coldindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

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
