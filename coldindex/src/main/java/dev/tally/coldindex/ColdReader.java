package dev.tally.coldindex;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import dev.tally.ledger.cold.ColdAsks;
import dev.tally.ledger.cold.ColdSource;
import org.agrona.concurrent.UnsafeBuffer;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Point lookups in the cold index, for one thread (the journal stage): each reads into a caller's record and reuses its
 * own buffers. What a lookup finds was filed at or before the watermark read before it ({@link ColdIndex#watermarkIndex()}):
 * commits are ordered, and the watermark moves only once its batch is in. {@link #prefetch} asks many keys and references
 * in one {@code multiGet} (one crossing into RocksDB, its filters probed as a batch), and the finds that follow take its
 * answers.
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
    private final PrefetchedAnswers keyAnswers = new PrefetchedAnswers();
    private final PrefetchedAnswers referenceAnswers = new PrefetchedAnswers();
    /** The arrays {@code multiGet} is given: lists reused, one 16-byte digest array per position, made once. */
    private final List<ColumnFamilyHandle> askedFamilies = new ArrayList<>(2 * ColdAsks.CAPACITY);
    private final List<byte[]> askedDigests = new ArrayList<>(2 * ColdAsks.CAPACITY);
    private final byte[][] digestArrays = new byte[2 * ColdAsks.CAPACITY][];
    /** Wraps one digest array, or one value found, at a time. */
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[0]);

    ColdReader(final ColdIndex index)
    {
        this.index = index;
        for (int i = 0; i < digestArrays.length; i++)
        {
            digestArrays[i] = new byte[ColdRecords.DIGEST_BYTES];
        }
    }

    /**
     * Looks up every key and reference of {@code asks} in one {@code multiGet}; the finds that follow take the answers.
     * RocksJava allocates the answers' list and each value found (a retry's key): a few objects a journal batch.
     */
    @Override
    public void prefetch(final ColdAsks asks)
    {
        keyAnswers.clear();
        referenceAnswers.clear();
        final int keys = asks.keyCount();
        final int references = asks.referenceCount();
        if (keys + references == 0)
        {
            return;
        }
        askedFamilies.clear();
        askedDigests.clear();
        for (int i = 0; i < keys; i++)
        {
            keyAnswers.asked(i, asks.keyHi(i), asks.keyLo(i));
            ask(index.keys, asks.keyHi(i), asks.keyLo(i));
        }
        for (int i = 0; i < references; i++)
        {
            referenceAnswers.asked(i, asks.referenceHi(i), asks.referenceLo(i));
            ask(index.references, asks.referenceHi(i), asks.referenceLo(i));
        }
        final List<byte[]> answers;
        try
        {
            answers = index.db.multiGetAsList(options, askedFamilies, askedDigests);
        }
        catch (final RocksDBException ex)
        {
            throw lookupFailed(ex);
        }
        keyAnswers.answered(answers.subList(0, keys), keys);
        referenceAnswers.answered(answers.subList(keys, keys + references), references);
    }

    private void ask(final ColumnFamilyHandle family, final long digestHi, final long digestLo)
    {
        final byte[] digest = digestArrays[askedDigests.size()];
        scratch.wrap(digest);
        ColdKeys.digestKey(scratch, digestHi, digestLo);
        askedFamilies.add(family);
        askedDigests.add(digest);
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
        final int prefetched = keyAnswers.take(digestHi, digestLo);
        if (prefetched >= 0)
        {
            return answer(keyAnswers.value(prefetched), ColdRecords.KEY_LONGS, record);
        }
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
        final int prefetched = referenceAnswers.take(digestHi, digestLo);
        if (prefetched >= 0)
        {
            return answer(referenceAnswers.value(prefetched), ColdRecords.REFERENCE_LONGS, record);
        }
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
            throw lookupFailed(ex);
        }
    }

    private boolean answer(final byte[] found, final int longs, final long[] record)
    {
        if (found == null)
        {
            return false;
        }
        checkLength(found.length, longs);
        scratch.wrap(found);
        ColdKeys.decode(scratch, record, longs);
        return true;
    }

    private void checkLength(final int length, final int longs)
    {
        if (length != longs * 8)
        {
            throw new IllegalStateException("cold index in " + index.config.directory() + ": a record of " + length +
                " bytes where " + longs * 8 + " were filed");
        }
    }

    private UncheckedIOException lookupFailed(final RocksDBException ex)
    {
        return new UncheckedIOException(new IOException("cold index in " + index.config.directory() + ": lookup failed: " +
            ex.getMessage(), ex));
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
            checkLength(length, longs);
            return true;
        }
        catch (final RocksDBException ex)
        {
            throw lookupFailed(ex);
        }
    }

    @Override
    public void close()
    {
        options.close();
    }
}
