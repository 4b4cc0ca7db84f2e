package dev.tally.coldindex;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.IndexType;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.TtlDB;

/**
 * The cold index: what the ledger no longer holds in memory but must still enforce, on disk, in an embedded RocksDB.
 * Idempotency keys with their stored replies (for their retention), references (for good), transfers (for reversals),
 * each found by one point lookup.
 *
 * <pre>
 *  business thread ─ unit effects ─► cold writer ─ WriteBatch + watermark, WAL synced ─► RocksDB (data/cold)
 *                                                                                          │ point lookups
 *  journal stage ◄── keys the ledger may have let go, references, old reversal targets ◄──┘ (before the business thread)
 * </pre>
 *
 * <p>Every commit writes its items and the watermark (the last journal index whose items are all in) in one batch with a
 * synced write-ahead log, so the watermark never runs ahead of what a crash keeps; a restart replays the journal after
 * it, and rewriting an item writes the same bytes. Memory is RocksDB's block cache and write buffers
 * ({@link ColdIndexConfig}): bounded whatever the index holds on disk, with Bloom filters (10 bits a record) kept in that
 * cache, so a lookup of something absent costs about a microsecond while they stay cached.
 *
 * <p>One writer ({@link #writer()}, one thread); readers ({@link #reader()}) one per thread.
 */
public final class ColdIndex implements AutoCloseable
{
    static
    {
        RocksDB.loadLibrary();
    }

    private static final byte[] WATERMARK_KEY = {'w', 'a', 't', 'e', 'r', 'm', 'a', 'r', 'k'};
    private static final int WATERMARK_BYTES = 16;
    /** RocksDB's TTL for "never expires". */
    private static final int TTL_NONE = 0;

    /** A tenth of each memtable's bytes for its bloom filter. */
    private static final double MEMTABLE_BLOOM_RATIO = 0.1;

    final ColdIndexConfig config;
    final RocksDB db;
    final ColumnFamilyHandle meta;
    final ColumnFamilyHandle keys;
    final ColumnFamilyHandle references;
    final ColumnFamilyHandle transfers;
    /** A transfer's reference text by its journal index: for reads of the transfer once memory let it go. */
    final ColumnFamilyHandle referenceTexts;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private volatile long watermarkIndex;
    private volatile long watermarkTimeNs;

    private ColdIndex(final ColdIndexConfig config) throws RocksDBException
    {
        this.config = config;
        final LRUCache cache = keep(new LRUCache(config.blockCacheBytes()));
        final BloomFilter filter = keep(new BloomFilter(10, false));
        final BlockBasedTableConfig table = new BlockBasedTableConfig()
            .setBlockCache(cache)
            .setFilterPolicy(filter)
            .setWholeKeyFiltering(true)
            .setCacheIndexAndFilterBlocks(true)            // bounded by the cache, not by the data on disk
            .setPinTopLevelIndexAndFilter(true)
            .setIndexType(IndexType.kTwoLevelIndexSearch)
            .setPartitionFilters(true);
        final ColumnFamilyOptions families = keep(new ColumnFamilyOptions()
            .setTableFormatConfig(table)
            .setWriteBufferSize(config.writeBufferBytes())
            .setMaxWriteBufferNumber(2)
            .setCompressionType(CompressionType.NO_COMPRESSION)   // digests and ids: nothing to compress
            .setLevelCompactionDynamicLevelBytes(true)
            // Most lookups are of keys never filed: a bloom filter over each memtable's keys turns them away without
            // searching its skip list (docs/BENCHMARKS.md, "Bounded memory": its gain is not measured apart yet)
            .setMemtablePrefixBloomSizeRatio(MEMTABLE_BLOOM_RATIO)
            .setMemtableWholeKeyFiltering(true));
        final DBOptions options = keep(new DBOptions()
            .setCreateIfMissing(true)
            .setCreateMissingColumnFamilies(true)
            .setMaxBackgroundJobs(1)                       // two cores: one background flush or compaction at a time
            .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
            .setKeepLogFileNum(2)
            .setMaxLogFileSize(1L << 20));
        final List<ColumnFamilyDescriptor> descriptors = List.of(
            new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, families),
            new ColumnFamilyDescriptor(bytes("keys"), families),
            new ColumnFamilyDescriptor(bytes("references"), families),
            new ColumnFamilyDescriptor(bytes("transfers"), families),
            new ColumnFamilyDescriptor(bytes("referenceTexts"), families));
        final List<ColumnFamilyHandle> handles = new ArrayList<>();
        // Keys are deleted physically once their retention (and a day more) has passed since they were filed, by
        // RocksDB's TTL compaction; whether a key found is still within its retention is the ledger's to say, by
        // journaled time. References stay for good; transfers too (a reversal window may be months).
        db = TtlDB.open(options, config.directory().toString(), descriptors, handles,
            List.of(TTL_NONE, config.keyTtlSeconds(), TTL_NONE, TTL_NONE, TTL_NONE), false);
        meta = handles.get(0);
        keys = handles.get(1);
        references = handles.get(2);
        transfers = handles.get(3);
        referenceTexts = handles.get(4);
        readWatermark();
    }

    /**
     * Opens (creating when absent) the cold index in {@code config.directory()}.
     *
     * @throws UncheckedIOException when the folder cannot be created or RocksDB refuses to open it.
     */
    public static ColdIndex open(final ColdIndexConfig config)
    {
        try
        {
            Files.createDirectories(config.directory());
            return new ColdIndex(config);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create the cold index folder " + config.directory(), ex);
        }
        catch (final RocksDBException ex)
        {
            throw new UncheckedIOException(new IOException("cannot open the cold index in " + config.directory() + ": " +
                ex.getMessage(), ex));
        }
    }

    /** @return the last journal index whose items are all in the index, durably; 0 for an empty one. Any thread. */
    public long watermarkIndex()
    {
        return watermarkIndex;
    }

    /** @return the journaled time of {@link #watermarkIndex()}. */
    public long watermarkTimeNs()
    {
        return watermarkTimeNs;
    }

    /** @return the configuration it was opened with. */
    public ColdIndexConfig config()
    {
        return config;
    }

    /** @return a new writer; the index has one writer thread, which uses it alone. */
    public ColdWriter writer()
    {
        return new ColdWriter(this);
    }

    /** @return a new reader for one thread (its buffers are reused from lookup to lookup). */
    public ColdReader reader()
    {
        return new ColdReader(this);
    }

    /** Called by the writer once a batch and its watermark are durable. */
    void watermark(final long index, final long timeNs)
    {
        watermarkTimeNs = timeNs;
        watermarkIndex = index;
    }

    static byte[] watermarkKey()
    {
        return WATERMARK_KEY;
    }

    static void encodeWatermark(final UnsafeBuffer into, final long index, final long timeNs)
    {
        into.putLong(0, index);
        into.putLong(8, timeNs);
    }

    private void readWatermark() throws RocksDBException
    {
        final byte[] value = new byte[WATERMARK_BYTES];
        if (db.get(meta, WATERMARK_KEY, value) == WATERMARK_BYTES)
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(value);
            watermark(buffer.getLong(0), buffer.getLong(8));
        }
    }

    private <T extends AutoCloseable> T keep(final T resource)
    {
        resources.add(resource);
        return resource;
    }

    private static byte[] bytes(final String name)
    {
        return name.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** Closes the database (its write-ahead log already holds every commit) and releases its native memory. */
    @Override
    public void close()
    {
        meta.close();
        keys.close();
        references.close();
        transfers.close();
        referenceTexts.close();
        db.close();
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            try
            {
                resources.get(i).close();
            }
            catch (final Exception ignored)
            {
                // native handles: nothing more to release
            }
        }
    }
}
