package dev.tally.coldindex;

import java.io.IOException;
import java.io.UncheckedIOException;

import dev.tally.ledger.cold.ColdSource;
import org.agrona.concurrent.UnsafeBuffer;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Point lookups in the cold index, for one thread (the journal stage): each reads into a caller's record and reuses its
 * own buffers. What a lookup finds was filed at or before the watermark read before it ({@link ColdIndex#watermarkIndex()}):
 * commits are ordered, and the watermark moves only once its batch is in.
 */
public final class ColdReader implements ColdSource, AutoCloseable
{
    private final ColdIndex index;
    private final ReadOptions options = new ReadOptions();
    private final byte[] keyKey = new byte[ColdRecords.DIGEST_BYTES];
    private final byte[] referenceKey = new byte[ColdRecords.DIGEST_BYTES];
    private final byte[] transferKey = new byte[ColdRecords.INDEX_BYTES];
    private final byte[] value = new byte[ColdRecords.TRANSFER_LONGS * 8];
    private final UnsafeBuffer keyKeyBuffer = new UnsafeBuffer(keyKey);
    private final UnsafeBuffer referenceKeyBuffer = new UnsafeBuffer(referenceKey);
    private final UnsafeBuffer transferKeyBuffer = new UnsafeBuffer(transferKey);
    private final UnsafeBuffer valueBuffer = new UnsafeBuffer(value);

    ColdReader(final ColdIndex index)
    {
        this.index = index;
    }

    /**
     * Finds an idempotency key. Whether it is still within its retention is the caller's to decide, by journaled time: a
     * key is deleted only some time after (its TTL, by wall-clock time).
     *
     * @return true when found; {@code record} ({@link ColdRecords#KEY_LONGS} longs) then holds it.
     */
    @Override
    public boolean findKey(final long digestHi, final long digestLo, final long[] record)
    {
        ColdKeys.digestKey(keyKeyBuffer, digestHi, digestLo);
        if (!get(index.keys, keyKey, ColdRecords.KEY_LONGS))
        {
            return false;
        }
        ColdKeys.decode(valueBuffer, record, ColdRecords.KEY_LONGS);
        return true;
    }

    /** @return true when a transfer holds the reference; {@code record} then holds its journal index and time. */
    @Override
    public boolean findReference(final long digestHi, final long digestLo, final long[] record)
    {
        ColdKeys.digestKey(referenceKeyBuffer, digestHi, digestLo);
        if (!get(index.references, referenceKey, ColdRecords.REFERENCE_LONGS))
        {
            return false;
        }
        ColdKeys.decode(valueBuffer, record, ColdRecords.REFERENCE_LONGS);
        return true;
    }

    /** @return true when the transfer created at {@code journalIndex} is filed; {@code record} then holds it. */
    @Override
    public boolean findTransfer(final long journalIndex, final long[] record)
    {
        ColdKeys.transferKey(transferKeyBuffer, journalIndex);
        if (!get(index.transfers, transferKey, ColdRecords.TRANSFER_LONGS))
        {
            return false;
        }
        ColdKeys.decode(valueBuffer, record, ColdRecords.TRANSFER_LONGS);
        return true;
    }

    /** @return the length of the reference text filed with the transfer created at {@code journalIndex} (0: none). */
    @Override
    public int findTransferReference(final long journalIndex, final byte[] into)
    {
        ColdKeys.transferKey(transferKeyBuffer, journalIndex);
        try
        {
            final int length = index.db.get(index.referenceTexts, options, transferKey, into);
            if (length > into.length)
            {
                throw new IllegalStateException("cold index in " + index.config.directory() + ": a reference of " + length +
                    " bytes for transfer " + journalIndex);
            }
            return length == RocksDB.NOT_FOUND ? 0 : length;
        }
        catch (final RocksDBException ex)
        {
            throw new UncheckedIOException(new IOException("cold index in " + index.config.directory() + ": lookup failed: " +
                ex.getMessage(), ex));
        }
    }

    private boolean get(final ColumnFamilyHandle family, final byte[] key, final int longs)
    {
        try
        {
            final int length = index.db.get(family, options, key, value);
            if (length == RocksDB.NOT_FOUND)
            {
                return false;
            }
            if (length != longs * 8)
            {
                throw new IllegalStateException("cold index in " + index.config.directory() + ": a record of " + length +
                    " bytes where " + longs * 8 + " were filed");
            }
            return true;
        }
        catch (final RocksDBException ex)
        {
            throw new UncheckedIOException(new IOException("cold index in " + index.config.directory() + ": lookup failed: " +
                ex.getMessage(), ex));
        }
    }

    @Override
    public void close()
    {
        options.close();
    }
}
