package dev.tally.coldindex;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * How records are keyed: big-endian, so that RocksDB's byte order is the numbers' order (a transfer's journal index),
 * and the digests as the ledger computed them.
 */
final class ColdKeys
{
    private ColdKeys()
    {
    }

    static void digestKey(final UnsafeBuffer into, final long digestHi, final long digestLo)
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
