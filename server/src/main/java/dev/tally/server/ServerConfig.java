package dev.tally.server;

import dev.tally.gateway.http.ApiKeys;
import dev.tally.gateway.http.HttpLimits;
import dev.tally.gateway.http.NettyTransport;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.journal.Durability;
import dev.tally.journal.JournalConfig;
import dev.tally.ledger.LedgerConfig;
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
    NettyTransport transport)
{
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
            webhooks, journal, transport);
    }

    /** @return this configuration delivering the outbox to {@code webhooks}. */
    public ServerConfig withWebhooks(final RelayConfig webhooks)
    {
        return new ServerConfig(host, port, dataDir, durability, apiKeys, ioThreads, ledger, pipeline, http, dbUrl, persistence, tls,
            webhooks, journal, transport);
    }

    /** @return this configuration with other journal settings. */
    public ServerConfig withJournal(final JournalOptions journal)
    {
        return new ServerConfig(host, port, dataDir, durability, apiKeys, ioThreads, ledger, pipeline, http, dbUrl, persistence, tls,
            webhooks, journal, transport);
    }

    /** @return this configuration serving HTTP on {@code transport}. */
    public ServerConfig withTransport(final NettyTransport transport)
    {
        return new ServerConfig(host, port, dataDir, durability, apiKeys, ioThreads, ledger, pipeline, http, dbUrl, persistence, tls,
            webhooks, journal, transport);
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
