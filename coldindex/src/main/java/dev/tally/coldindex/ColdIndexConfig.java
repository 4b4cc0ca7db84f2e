package dev.tally.coldindex;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the cold index lives and how much memory it may use; every limit checked here, once.
 *
 * @param directory        the RocksDB folder (created when absent): {@code data/cold} in a data folder.
 * @param keyRetentionNs   how long an idempotency key is kept, in journaled time: RocksDB deletes a key a day after its
 *                         retention has passed since it was filed (its TTL).
 * @param blockCacheBytes  RocksDB's block cache, which holds the index and filter blocks too: with the write buffers,
 *                         the memory the cold index uses, whatever it holds on disk.
 * @param writeBufferBytes one memtable; RocksDB keeps at most two per column family (four families).
 */
public record ColdIndexConfig(Path directory, long keyRetentionNs, long blockCacheBytes, long writeBufferBytes)
{
    /** 64 MiB: the filter and index blocks of some hundred million records, and the hot data blocks. */
    public static final long BLOCK_CACHE_BYTES_DEFAULT = 64L << 20;
    public static final long BLOCK_CACHE_BYTES_MIN = 1L << 20;
    /** 16 MiB: a memtable holds about 150,000 keys before it is flushed to a file. */
    public static final long WRITE_BUFFER_BYTES_DEFAULT = 16L << 20;
    public static final long WRITE_BUFFER_BYTES_MIN = 1L << 20;
    /** What a key's TTL adds to its retention: the ledger decides by journaled time, RocksDB deletes by wall-clock time. */
    static final long KEY_TTL_MARGIN_SECONDS = 24 * 60 * 60;

    public ColdIndexConfig
    {
        Objects.requireNonNull(directory, "directory");
        if (keyRetentionNs < 1)
        {
            throw new IllegalArgumentException("keyRetentionNs must be > 0: " + keyRetentionNs);
        }
        if (blockCacheBytes < BLOCK_CACHE_BYTES_MIN)
        {
            throw new IllegalArgumentException("blockCacheBytes must be >= " + BLOCK_CACHE_BYTES_MIN + ": " + blockCacheBytes);
        }
        if (writeBufferBytes < WRITE_BUFFER_BYTES_MIN)
        {
            throw new IllegalArgumentException("writeBufferBytes must be >= " + WRITE_BUFFER_BYTES_MIN + ": " + writeBufferBytes);
        }
    }

    /** @return the defaults for a data folder's cold index. */
    public static ColdIndexConfig of(final Path directory, final long keyRetentionNs)
    {
        return new ColdIndexConfig(directory, keyRetentionNs, BLOCK_CACHE_BYTES_DEFAULT, WRITE_BUFFER_BYTES_DEFAULT);
    }

    /** @return the TTL of the keys' column family, in seconds (RocksDB's unit, an {@code int}). */
    int keyTtlSeconds()
    {
        return (int)Math.min(Integer.MAX_VALUE, keyRetentionNs / 1_000_000_000L + KEY_TTL_MARGIN_SECONDS);
    }
}
