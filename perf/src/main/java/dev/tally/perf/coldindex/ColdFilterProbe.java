package dev.tally.perf.coldindex;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.IndexType;
import org.rocksdb.LRUCache;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.TtlDB;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * What a cold-index lookup of a key never filed costs (the journal stage's common case) with the two filter layouts
 * RocksDB offers, each asked one key at a time and 100 keys to a {@code multiGet}: partitioned filters (the cold
 * index's: a lookup loads a 4 KB partition, so a lookup stays cheap once the filters outgrow the block cache) against
 * one full filter per file (a lookup needs the file's whole filter in the cache). FILED keys of 16 bytes with 80-byte
 * values go to a TTL database as the cold index's keys, flushed to files, with a memtable still half full; the 64 MiB
 * block cache is the cold index's default. Prints four rounds per layout (docs/BENCHMARKS.md, "Bounded memory").
 *
 * <pre>
 * java -cp perf/target/benchmarks.jar dev.tally.perf.coldindex.ColdFilterProbe 3000000
 * </pre>
 */
public final class ColdFilterProbe
{
    private static final int ROUNDS = 4;
    private static final int LOOKUPS = 200_000;
    private static final int MULTI_GET_KEYS = 100;
    private static final int VALUE_BYTES = 80;
    private static final int DIGEST_BYTES = 16;
    private static final long CACHE_BYTES = 64L << 20;
    private static final long WRITE_BUFFER_BYTES = 64L << 20;
    private static final int TTL_SECONDS = 2 * 86_400;

    private ColdFilterProbe()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        RocksDB.loadLibrary();
        final int filed = Integer.parseInt(args[0]);
        for (final boolean partitioned : new boolean[] {true, false})
        {
            run(filed, partitioned);
        }
    }

    private static void run(final int filed, final boolean partitioned) throws Exception
    {
        final Path dir = Files.createTempDirectory("tally-cold-filter-probe");
        final BlockBasedTableConfig table = new BlockBasedTableConfig()
            .setBlockCache(new LRUCache(CACHE_BYTES))
            .setFilterPolicy(new BloomFilter(10, false))
            .setWholeKeyFiltering(true)
            .setCacheIndexAndFilterBlocks(true)
            .setPinTopLevelIndexAndFilter(true);
        if (partitioned)
        {
            table.setIndexType(IndexType.kTwoLevelIndexSearch).setPartitionFilters(true);
        }
        else
        {
            table.setPinL0FilterAndIndexBlocksInCache(true);
        }
        final ColumnFamilyOptions family = new ColumnFamilyOptions().setTableFormatConfig(table).setWriteBufferSize(WRITE_BUFFER_BYTES)
            .setMaxWriteBufferNumber(2).setCompressionType(CompressionType.NO_COMPRESSION).setLevelCompactionDynamicLevelBytes(true)
            .setMemtablePrefixBloomSizeRatio(0.1).setMemtableWholeKeyFiltering(true);
        final List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true).setMaxBackgroundJobs(1);
            RocksDB db = TtlDB.open(options, dir.toString(), List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, family),
                new ColumnFamilyDescriptor("keys".getBytes(java.nio.charset.StandardCharsets.US_ASCII), family)), handles, List.of(0, TTL_SECONDS), false);
            WriteOptions unsynced = new WriteOptions();
            WriteBatch batch = new WriteBatch();
            ReadOptions read = new ReadOptions())
        {
            final ColumnFamilyHandle keys = handles.get(1);
            final byte[] digest = new byte[DIGEST_BYTES];
            final byte[] value = new byte[VALUE_BYTES];
            for (long i = 1; i <= filed + 200_000L; i++)
            {
                digest(digest, i);
                batch.put(keys, digest, value);
                if (i % 10_000 == 0)
                {
                    db.write(unsynced, batch);
                    batch.clear();
                }
                if (i == filed)
                {
                    db.write(unsynced, batch);
                    batch.clear();
                    db.flush(new FlushOptions().setWaitForFlush(true), keys);   // the rest stays in a memtable
                }
            }
            db.write(unsynced, batch);
            Thread.sleep(3_000);   // let the compaction the flush started settle
            System.out.printf(Locale.ROOT, "%s filters, %,d keys filed, files in L0: %s%n", partitioned ? "partitioned" : "full", filed,
                db.getProperty(keys, "rocksdb.num-files-at-level0"));
            measure(db, keys, read, filed);
            for (final ColumnFamilyHandle handle : handles)
            {
                handle.close();
            }
        }
        try (Stream<Path> paths = Files.walk(dir))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    private static void measure(final RocksDB db, final ColumnFamilyHandle keys, final ReadOptions read, final int filed) throws Exception
    {
        final SplittableRandom random = new SplittableRandom(7);
        final byte[] digest = new byte[DIGEST_BYTES];
        final byte[] value = new byte[VALUE_BYTES + 8];
        final List<byte[]> asked = new ArrayList<>();
        final List<ColumnFamilyHandle> families = new ArrayList<>();
        for (int j = 0; j < MULTI_GET_KEYS; j++)
        {
            asked.add(new byte[DIGEST_BYTES]);
            families.add(keys);
        }
        for (int round = 0; round < ROUNDS; round++)
        {
            int found = 0;
            final long startNs = System.nanoTime();
            for (int i = 0; i < LOOKUPS; i++)
            {
                digest(digest, neverFiled(random, filed));
                found += db.get(keys, read, digest, value) == RocksDB.NOT_FOUND ? 0 : 1;
            }
            final long singleNs = System.nanoTime();
            for (int i = 0; i < LOOKUPS / MULTI_GET_KEYS; i++)
            {
                for (int j = 0; j < MULTI_GET_KEYS; j++)
                {
                    digest(asked.get(j), neverFiled(random, filed));
                }
                for (final byte[] answer : db.multiGetAsList(read, families, asked))
                {
                    found += answer == null ? 0 : 1;
                }
            }
            final long multiNs = System.nanoTime();
            System.out.printf(Locale.ROOT, "  round %d: get %.2f us a key, multiGet of %d %.2f us a key (%d found, expected 0)%n", round + 1,
                (singleNs - startNs) / 1e3 / LOOKUPS, MULTI_GET_KEYS, (multiNs - singleNs) / 1e3 / LOOKUPS, found);
        }
    }

    private static long neverFiled(final SplittableRandom random, final int filed)
    {
        return filed + 1_000_000L + random.nextLong(1L << 40);
    }

    /** A digest as SHA-256 gives them: every bit even. */
    private static void digest(final byte[] into, final long i)
    {
        final long hi = mix(i * 0x9E3779B97F4A7C15L);
        final long lo = mix(i ^ 0xC2B2AE3D27D4EB4FL);
        for (int j = 0; j < 8; j++)
        {
            into[j] = (byte)(hi >>> (56 - 8 * j));
            into[8 + j] = (byte)(lo >>> (56 - 8 * j));
        }
    }

    private static long mix(final long z0)
    {
        long z = (z0 ^ (z0 >>> 33)) * 0xFF51AFD7ED558CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return z ^ (z >>> 33);
    }
}
