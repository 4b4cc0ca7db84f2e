package dev.tally.coldindex;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * How records are keyed: big-endian, so that RocksDB's byte order is the numbers' order (a key bucket's range, a
 * transfer's journal index), and the digests as the ledger computed them.
 */
final class ColdKeys
{
    private ColdKeys()
    {
    }

    /** @return the bucket of a key stored at {@code timeNs}: buckets are a quarter of the retention wide. */
    static long bucket(final long timeNs, final long bucketNs)
    {
        return Math.floorDiv(timeNs, bucketNs);
    }

    static void keyKey(final UnsafeBuffer into, final long bucket, final long digestHi, final long digestLo)
    {
        into.putLong(0, bucket, java.nio.ByteOrder.BIG_ENDIAN);
        into.putLong(ColdRecords.BUCKET_BYTES, digestHi, java.nio.ByteOrder.BIG_ENDIAN);
        into.putLong(ColdRecords.BUCKET_BYTES + 8, digestLo, java.nio.ByteOrder.BIG_ENDIAN);
    }

    static void bucketStart(final UnsafeBuffer into, final long bucket)
    {
        keyKey(into, bucket, 0, 0);
    }

    static void referenceKey(final UnsafeBuffer into, final long digestHi, final long digestLo)
    {
        into.putLong(0, digestHi, java.nio.ByteOrder.BIG_ENDIAN);
        into.putLong(8, digestLo, java.nio.ByteOrder.BIG_ENDIAN);
    }

    static void transferKey(final UnsafeBuffer into, final long journalIndex)
    {
        into.putLong(0, journalIndex, java.nio.ByteOrder.BIG_ENDIAN);
    }

    /** Copies {@code count} longs into {@code into}, little-endian. */
    static void encode(final UnsafeBuffer into, final long[] record, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            into.putLong(i * 8, record[i]);
        }
    }

    static void decode(final UnsafeBuffer from, final long[] record, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            record[i] = from.getLong(i * 8);
        }
    }
}
