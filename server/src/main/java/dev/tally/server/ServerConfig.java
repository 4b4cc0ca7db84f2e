package dev.tally.server;

import dev.tally.gateway.http.ApiKeys;
import dev.tally.gateway.http.HttpLimits;
import dev.tally.gateway.http.NettyTransport;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.journal.Durability;
import dev.tally.journal.JournalConfig;
import dev.tally.coldindex.ColdIndexConfig;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.LedgerLimits;
import dev.tally.persistence.outbox.RelayConfig;
import io.netty.handler.ssl.SslContext;
import java.nio.file.Path;

/**
 * Everything {@code tally serve} needs, validated before anything starts.
 *
 * @param host       address to bind; loopback by default.
 * @param port       port; 0 picks a free one.
 * @param dataDir    folder holding the journal (and later snapshots and the embedded database).
 * @param durability {@code async} or {@code sync}: see docs/JOURNAL.md.
 * @param apiKeys    tenants and their keys.
 * @param ioThreads  Netty worker threads.
 * @param ledger     ledger capacities and retention windows.
 * @param pipeline   ring size, wait strategy, tick interval.
 * @param http       HTTP limits.
 * @param dbUrl      JDBC URL of the PostgreSQL read model; null starts an embedded PostgreSQL under
 *                   {@code dataDir/pg}.
 * @param persistence false runs without PostgreSQL at all (tests of the pipeline alone, benchmarks).
 * @param tls        the TLS context of the HTTP port, or null for plain HTTP.
 * @param webhooks   the outbox relay's endpoints and settings; null runs no relay (docs/WEBHOOKS.md).
 * @param journal    the journal's operator settings (see {@link JournalOptions}).
 * @param transport  how the HTTP event loops reach the sockets: NIO, io_uring, or auto (io_uring where offered).
 * @param cold       the cold index's memory and how far it may fall behind (see {@link ColdOptions}).
 */
public record ServerConfig(
    String host,
    int port,
    Path dataDir,
    Durability durability,
    ApiKeys apiKeys,
    int ioThreads,
    LedgerConfig ledger,
    LedgerPipeline.PipelineConfig pipeline,
    HttpLimits http,
    String dbUrl,
    boolean persistence,
    SslContext tls,
    RelayConfig webhooks,
    JournalOptions journal,
    NettyTransport transport,
    ColdOptions cold)
{
    /**
     * The cold index (docs/ARCHITECTURE.md, "Bounded memory"): where memory's keys, references and transfers go once the
     * ledger lets them go, in {@code data/cold}.
     *
     * @param blockCacheBytes  RocksDB's block cache (index and filter blocks included).
     * @param writeBufferBytes one RocksDB memtable.
     * @param ringBytes        the ring from the business thread to the cold index's writer, a power of two.
     * @param lagMax           the most commands the cold index may be behind a journaled command before requests are
     *                         refused (503 {@code cold-index-unavailable}); lowered to what the ledger's tables hold
     *                         ({@link #lagMaxFor}).
     */
    public record ColdOptions(long blockCacheBytes, long writeBufferBytes, int ringBytes, long lagMax)
    {
        /** The smallest lag bound: two full batches, so that one passes while the index files the one before. */
        public static final long LAG_MAX_MIN = 2L * LedgerLimits.BATCH_OPERATIONS_MAX;

        /** 16 MiB: about 65,000 transfers recorded ahead of the writer (some 250 bytes each). */
        public static final int RING_BYTES_DEFAULT = 16 << 20;

        public ColdOptions
        {
            if (ringBytes < (64 << 10) || ringBytes > (1 << 30) || Integer.bitCount(ringBytes) != 1)
            {
                throw new IllegalArgumentException("the cold index ring must be a power of two from 64 KiB to 1 GiB, was " + ringBytes);
            }
            if (lagMax < LAG_MAX_MIN || lagMax > LedgerLimits.COLD_LAG_MAX)
            {
                throw new IllegalArgumentException("--cold-lag-max must be " + LAG_MAX_MIN + ".." + LedgerLimits.COLD_LAG_MAX +
                    " (two full batches at least, so that a batch always passes), was " + lagMax);
            }
            new ColdIndexConfig(Path.of("."), 1, blockCacheBytes, writeBufferBytes);   // checks the two sizes
        }

        public static ColdOptions defaults()
        {
            return new ColdOptions(ColdIndexConfig.BLOCK_CACHE_BYTES_DEFAULT, ColdIndexConfig.WRITE_BUFFER_BYTES_DEFAULT,
                RING_BYTES_DEFAULT, LedgerLimits.COLD_LAG_MAX);
        }

        /**
         * @return the lag bound under {@code ledger}'s tables: each must hold every item the cold index does not hold yet
         * (at most one per command behind) and a whole batch more, or memory could have nothing it may let go. Never
         * below {@link #LAG_MAX_MIN}, so that a full batch always passes once the index is a batch behind: tables
         * smaller than that and a batch (24,570) may then answer capacity-exceeded while the index catches up, never
         * refuse a batch for good.
         */
        public long lagMaxFor(final LedgerConfig ledger)
        {
            final long smallest = Math.min(ledger.idempotencyKeysMax(), Math.min(ledger.referencesMax(), ledger.transfersMax()));
            return Math.max(LAG_MAX_MIN, Math.min(lagMax, smallest - LedgerLimits.BATCH_OPERATIONS_MAX));
        }

        /** @return the cold index's RocksDB settings for {@code directory}, keys kept as long as {@code ledger} keeps them. */
        public ColdIndexConfig indexConfig(final Path directory, final LedgerConfig ledger)
        {
            return new ColdIndexConfig(directory, ledger.keyRetentionMs() * 1_000_000L, blockCacheBytes, writeBufferBytes);
        }
    }


    /**
     * What an operator sets on the journal beyond the data folder and durability.
     *
     * @param truncateAfterCorruption cut the journal at a corrupt record that intact records follow (docs/JOURNAL.md,
     *                                "Open, torn tails and recovery"); false refuses to start.
     * @param asyncForceIntervalMs    under {@code async}, how often at most the journal is forced (0: the kernel writes back).
     */
    public record JournalOptions(boolean truncateAfterCorruption, long asyncForceIntervalMs)
    {
        public JournalOptions
        {
            if (asyncForceIntervalMs < 0 || asyncForceIntervalMs > JournalConfig.ASYNC_FORCE_INTERVAL_MS_MAX)
            {
                throw new IllegalArgumentException("--async-force-interval-ms must be 0.." + JournalConfig.ASYNC_FORCE_INTERVAL_MS_MAX +
                    ", was " + asyncForceIntervalMs);
            }
        }

        /** {@code tally serve}'s defaults: no cut, the journal's default force interval. */
        public static JournalOptions defaults()
        {
            return new JournalOptions(false, JournalConfig.ASYNC_FORCE_INTERVAL_MS_DEFAULT);
        }

        /** @return {@code config} with these settings. */
        public JournalConfig applyTo(final JournalConfig config)
        {
            return config.withTruncateAfterCorruption(truncateAfterCorruption).withAsyncForceIntervalMs(asyncForceIntervalMs);
        }
    }

    public ServerConfig
    {
        if (port < 0 || port > 65_535)
        {
            throw new IllegalArgumentException("--port must be 0..65535, was " + port);
        }
        if (apiKeys.size() == 0)
        {
            throw new IllegalArgumentException("at least one key is required: --api-key TENANT:KEY or a --keys-file holding one");
        }
        if (ioThreads < 1 || ioThreads > 64)
        {
            throw new IllegalArgumentException("--io-threads must be 1..64, was " + ioThreads);
        }
        if (webhooks != null && !persistence)
        {
            throw new IllegalArgumentException("webhooks are delivered from the PostgreSQL outbox: --webhook-url needs the read model");
        }
    }

    /** With the cold index's defaults. */
    public ServerConfig(
        final String host, final int port, final Path dataDir, final Durability durability, final ApiKeys apiKeys, final int ioThreads,
        final LedgerConfig ledger, final LedgerPipeline.PipelineConfig pipeline, final HttpLimits http, final String dbUrl,
        final boolean persistence, final SslContext tls, final RelayConfig webhooks, final JournalOptions journal,
        final NettyTransport transport)
    {
        this(host, port, dataDir, durability, apiKeys, ioThreads, ledger, pipeline, http, dbUrl, persistence, tls, webhooks, journal,
            transport, ColdOptions.defaults());
    }

    /** With the transport chosen by {@link NettyTransport#AUTO}. */
    public ServerConfig(
        final String host, final int port, final Path dataDir, final Durability durability, final ApiKeys apiKeys, final int ioThreads,
        final LedgerConfig ledger, final LedgerPipeline.PipelineConfig pipeline, final HttpLimits http, final String dbUrl,
        final boolean persistence, final SslContext tls, final RelayConfig webhooks, final JournalOptions journal)
    {
        this(host, port, dataDir, durability, apiKeys, ioThreads, ledger, pipeline, http, dbUrl, persistence, tls, webhooks, journal,
            NettyTransport.AUTO);
    }

    /** With the journal's default settings. */
    public ServerConfig(
        final String host, final int port, final Path dataDir, final Durability durability, final ApiKeys apiKeys, final int ioThreads,
        final LedgerConfig ledger, final LedgerPipeline.PipelineConfig pipeline, final HttpLimits http, final String dbUrl,
        final boolean persistence, final SslContext tls, final RelayConfig webhooks)
    {
        this(host, port, dataDir, durability, apiKeys, ioThreads, ledger, pipeline, http, dbUrl, persistence, tls, webhooks,
            JournalOptions.defaults());
    }

    /** Plain HTTP, no webhooks. */
    public ServerConfig(
        final String host, final int port, final Path dataDir, final Durability durability, final ApiKeys apiKeys, final int ioThreads,
        final LedgerConfig ledger, final LedgerPipeline.PipelineConfig pipeline, final HttpLimits http, final String dbUrl,
        final boolean persistence)
    {
        this(host, port, dataDir, durability, apiKeys, ioThreads, ledger, pipeline, http, dbUrl, persistence, null, null);
    }

    /** Without PostgreSQL: the pipeline and journal alone. */
    public ServerConfig(
        final String host, final int port, final Path dataDir, final Durability durability, final ApiKeys apiKeys, final int ioThreads,
        final LedgerConfig ledger, final LedgerPipeline.PipelineConfig pipeline, final HttpLimits http)
    {
        this(host, port, dataDir, durability, apiKeys, ioThreads, ledger, pipeline, http, null, false);
    }

    /** @return this configuration serving HTTPS with {@code tls}. */
    public ServerConfig withTls(final SslContext tls)
    {
        return new ServerConfig(host, port, dataDir, durability, apiKeys, ioThreads, ledger, pipeline, http, dbUrl, persistence, tls,
            webhooks, journal, transport, cold);
    }

    /** @return this configuration delivering the outbox to {@code webhooks}. */
    public ServerConfig withWebhooks(final RelayConfig webhooks)
    {
        return new ServerConfig(host, port, dataDir, durability, apiKeys, ioThreads, ledger, pipeline, http, dbUrl, persistence, tls,
            webhooks, journal, transport, cold);
    }

    /** @return this configuration with other journal settings. */
    public ServerConfig withJournal(final JournalOptions journal)
    {
        return new ServerConfig(host, port, dataDir, durability, apiKeys, ioThreads, ledger, pipeline, http, dbUrl, persistence, tls,
            webhooks, journal, transport, cold);
    }

    /** @return this configuration serving HTTP on {@code transport}. */
    public ServerConfig withTransport(final NettyTransport transport)
    {
        return new ServerConfig(host, port, dataDir, durability, apiKeys, ioThreads, ledger, pipeline, http, dbUrl, persistence, tls,
            webhooks, journal, transport, cold);
    }

    /** @return this configuration with other cold index settings. */
    public ServerConfig withCold(final ColdOptions cold)
    {
        return new ServerConfig(host, port, dataDir, durability, apiKeys, ioThreads, ledger, pipeline, http, dbUrl, persistence, tls,
            webhooks, journal, transport, cold);
    }

    /** @return where the cold index keeps what the ledger's memory let go. */
    public Path coldIndexDir()
    {
        return dataDir.resolve("cold");
    }

    /** @return where the embedded PostgreSQL keeps its data. */
    public Path embeddedDatabaseDir()
    {
        return dataDir.resolve("pg");
    }

    /** @return where the journal lives. */
    public Path journalDir()
    {
        return dataDir.resolve("journal");
    }
}
