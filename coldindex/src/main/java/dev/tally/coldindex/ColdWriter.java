package dev.tally.coldindex;

import java.io.IOException;
import java.io.UncheckedIOException;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.cold.ColdSink;
import org.agrona.concurrent.UnsafeBuffer;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * Files records into the cold index, a batch at a time: puts accumulate in one RocksDB write batch, and
 * {@link #commit} writes them together with the watermark, the write-ahead log synced to disk before it returns. A
 * crash keeps a commit whole or not at all, so the watermark never claims an item that is not there. Rewriting an item
 * (a replay after a crash) writes the same bytes. One thread; reuses its buffers, allocates nothing per item.
 */
public final class ColdWriter implements ColdSink, AutoCloseable
{
    private final ColdIndex index;
    private final WriteBatch batch = new WriteBatch();
    private final WriteOptions synced = new WriteOptions().setSync(true);
    private final byte[] keyKey = new byte[ColdRecords.DIGEST_BYTES];
    private final byte[] referenceKey = new byte[ColdRecords.DIGEST_BYTES];
    private final byte[] transferKey = new byte[ColdRecords.INDEX_BYTES];
    private final byte[] keyValue = new byte[ColdRecords.KEY_LONGS * 8];
    private final byte[] referenceValue = new byte[ColdRecords.REFERENCE_LONGS * 8];
    private final byte[] transferValue = new byte[ColdRecords.TRANSFER_LONGS * 8];
    private final byte[] watermarkValue = new byte[16];
    private final UnsafeBuffer keyKeyBuffer = new UnsafeBuffer(keyKey);
    private final UnsafeBuffer referenceKeyBuffer = new UnsafeBuffer(referenceKey);
    private final UnsafeBuffer transferKeyBuffer = new UnsafeBuffer(transferKey);
    private final UnsafeBuffer keyValueBuffer = new UnsafeBuffer(keyValue);
    private final UnsafeBuffer referenceValueBuffer = new UnsafeBuffer(referenceValue);
    private final UnsafeBuffer transferValueBuffer = new UnsafeBuffer(transferValue);
    private final UnsafeBuffer watermarkBuffer = new UnsafeBuffer(watermarkValue);
    private final byte[][] referenceTexts = new byte[LedgerLimits.REFERENCE_LENGTH_MAX + 1][];
    private int pending;

    ColdWriter(final ColdIndex index)
    {
        this.index = index;
    }

    /** Files an idempotency key with its record ({@link ColdRecords#KEY_LONGS}): its fingerprint and stored result. */
    @Override
    public void key(final long digestHi, final long digestLo, final long[] record)
    {
        ColdKeys.digestKey(keyKeyBuffer, digestHi, digestLo);
        ColdKeys.encode(keyValueBuffer, record, ColdRecords.KEY_LONGS);
        put(index.keys, keyKey, keyValue);
    }

    /** Files a reference: the journal index and time of the transfer that holds it. */
    @Override
    public void reference(final long digestHi, final long digestLo, final long transferIndex, final long transferTimeNs)
    {
        ColdKeys.digestKey(referenceKeyBuffer, digestHi, digestLo);
        referenceValueBuffer.putLong(0, transferIndex);
        referenceValueBuffer.putLong(8, transferTimeNs);
        put(index.references, referenceKey, referenceValue);
    }

    /** Files (or refiles, with what changed: an amount reversed) a transfer's record ({@link ColdRecords#TRANSFER_LONGS}). */
    @Override
    public void transfer(final long journalIndex, final long[] record)
    {
        ColdKeys.transferKey(transferKeyBuffer, journalIndex);
        ColdKeys.encode(transferValueBuffer, record, ColdRecords.TRANSFER_LONGS);
        put(index.transfers, transferKey, transferValue);
    }

    /** Files a new transfer's reference text, by the transfer's journal index. */
    @Override
    public void transferReference(final long journalIndex, final byte[] text, final int length)
    {
        ColdKeys.transferKey(transferKeyBuffer, journalIndex);
        // RocksJava puts whole arrays: one array per length, made the first time that length is met
        byte[] value = referenceTexts[length];
        if (value == null)
        {
            value = referenceTexts[length] = new byte[length];
        }
        System.arraycopy(text, 0, value, 0, length);
        put(index.referenceTexts, transferKey, value);
    }

    /** @return items waiting for the next {@link #commit}. */
    public int pending()
    {
        return pending;
    }

    /**
     * Writes everything filed since the last commit and the watermark, durably: when this returns, a crash keeps them.
     * When RocksDB refuses, nothing of the batch is kept, and the batch stays filled: a later call tries it again.
     *
     * @param watermarkIndex the last journal index whose items are all filed now.
     * @throws UncheckedIOException when RocksDB refuses (a full or failing disk).
     */
    public void commit(final long watermarkIndex, final long watermarkTimeNs)
    {
        try
        {
            ColdIndex.encodeWatermark(watermarkBuffer, watermarkIndex, watermarkTimeNs);
            batch.put(index.meta, ColdIndex.watermarkKey(), watermarkValue);   // a later put of the same key wins: retries add none
            index.db.write(synced, batch);
        }
        catch (final RocksDBException ex)
        {
            throw failed("commit up to journal index " + watermarkIndex, ex);
        }
        batch.clear();
        pending = 0;
        index.watermark(watermarkIndex, watermarkTimeNs);
    }

    private void put(final org.rocksdb.ColumnFamilyHandle family, final byte[] key, final byte[] value)
    {
        try
        {
            batch.put(family, key, value);
        }
        catch (final RocksDBException ex)
        {
            throw failed("file an item", ex);
        }
        pending++;
    }

    private UncheckedIOException failed(final String what, final RocksDBException ex)
    {
        return new UncheckedIOException(new IOException("cold index in " + index.config.directory() + ": cannot " + what + ": " +
            ex.getMessage(), ex));
    }

    @Override
    public void close()
    {
        batch.close();
        synced.close();
    }
}
