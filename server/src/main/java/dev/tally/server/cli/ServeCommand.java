package dev.tally.server.cli;

import dev.tally.server.config.LogFormat;
import dev.tally.gateway.http.ApiKeys;
import dev.tally.gateway.http.HttpLimits;
import dev.tally.gateway.http.NettyTransport;
import dev.tally.gateway.http.TlsContexts;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.pipeline.WaitStrategyName;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.journal.JournalConfig;
import dev.tally.coldindex.ColdIndexConfig;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.LedgerLimits;
import dev.tally.persistence.db.DataFolderInUseException;
import io.netty.handler.ssl.SslContext;
import dev.tally.persistence.outbox.RelayConfig;
import dev.tally.persistence.outbox.WebhookEndpoint;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.tally.snapshotter.SnapshotConfig;
import picocli.CommandLine;

/**
 * {@code tally serve}: starts the server and runs until SIGTERM / Ctrl-C. Every setting is a flag, an
 * environment variable or a config file key (see {@link dev.tally.server.config.SettingSources}), and
 * every one is checked by {@link #toConfig()} before anything is opened: a bad value exits with status 2
 * and a message naming the flag.
 */
@CommandLine.Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Start the Tally server.%nEvery flag can also be set as TALLY_<FLAG> (e.g. TALLY_PORT) or as a key of --config FILE.")
public final class ServeCommand implements Callable<Integer>
{
    /** Exit status when a second stop signal cuts the graceful stop short: 128 + SIGTERM, as if killed by it. */
    static final int EXIT_FORCED = 143;
    private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    ConfigFileOption configFile = new ConfigFileOption();

    @CommandLine.Option(names = "--log-format", defaultValue = "text",
        description = "text, or json: one JSON object per line on stderr (default: ${DEFAULT-VALUE}).")
    LogFormat logFormat;

    @CommandLine.Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to bind (default: ${DEFAULT-VALUE}).")
    String host;

    @CommandLine.Option(names = "--port", defaultValue = "8080", description = "HTTP port, 0..65535; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @CommandLine.Option(names = "--data-dir", defaultValue = "data", description = "Folder for the journal (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @CommandLine.Option(names = "--api-key", split = ",", paramLabel = "TENANT:KEY",
        description = "A tenant's API key, repeatable (in TALLY_API_KEY or the file: comma-separated). The key is never logged; " +
            "webhooks name the tenant by TENANT.")
    List<String> apiKeys = new ArrayList<>();

    @CommandLine.Option(names = "--keys-file", paramLabel = "FILE",
        description = "API keys file of tenant:keyId:sha256hex lines (see `tally keys add`); re-read on SIGHUP.")
    Path keysFile;

    // Read from the environment (TALLY_ADMIN_KEY) or the config file like every setting; the flag works too but
    // shows in ps and shell history. Only its hash is kept; it is never logged.
    @CommandLine.Option(names = "--admin-key", paramLabel = "KEY",
        description = "Key of the admin routes (POST /admin/snapshot), >= 16 characters, distinct from every tenant key; absent: "
            + "the admin routes answer 404. Prefer TALLY_ADMIN_KEY. Never logged.")
    String adminKey;

    @CommandLine.Option(names = "--durability", defaultValue = "async",
        description = "async: survives a process crash; sync: forced to disk before replies, survives power loss (default: ${DEFAULT-VALUE}).")
    Durability durability;

    @CommandLine.Option(names = "--db-url", description = "PostgreSQL JDBC URL of the read model (absent: embedded PostgreSQL under the data folder).")
    String dbUrl;

    @CommandLine.Option(names = "--no-read-model", description = "Run without PostgreSQL (no entry history, no outbox): the journal alone.")
    boolean noReadModel;

    @CommandLine.Option(names = "--io-threads", defaultValue = "1", description = "Netty I/O threads, 1..64 (default: ${DEFAULT-VALUE}).")
    int ioThreads;

    @CommandLine.Option(names = "--transport", defaultValue = "auto", converter = TransportConverter.class,
        description = "How the I/O threads reach the sockets: auto (io_uring where the kernel offers it, else nio), nio or io_uring " +
            "(default: ${DEFAULT-VALUE}).")
    NettyTransport transport;

    @CommandLine.Option(names = "--ring-size", defaultValue = "16384",
        description = "Input ring slots, a power of two >= 2 x the largest batch (default: ${DEFAULT-VALUE}).")
    int ringSize;

    @CommandLine.Option(names = "--wait-strategy", defaultValue = "waking",
        description = "waking, backoff, sleeping, blocking, yielding or busy_spin (default: ${DEFAULT-VALUE}; spinning needs a core per stage).")
    WaitStrategyName waitStrategy;

    @CommandLine.Option(names = "--tick-interval-ms", defaultValue = "1000", description = "Journaled tick period, 1..60000 (default: ${DEFAULT-VALUE}).")
    long tickIntervalMs;

    // Split like --api-key, so TALLY_WEBHOOK_URL and the file can list several; only at a comma that starts the next
    // http(s) URL, since a comma is legal inside one (a query such as ?events=a,b).
    @CommandLine.Option(names = "--webhook-url", split = ",(?=(?i)https?://)", splitSynopsisLabel = ",",
        description = "Endpoint receiving every outbox event as a signed POST, repeatable (in TALLY_WEBHOOK_URL or the file: "
            + "comma-separated) (absent: no relay). See docs/WEBHOOKS.md.")
    List<String> webhookUrls = new ArrayList<>();

    // The default comes from the environment so the secret need not appear on a command line (ps, shell history).
    @CommandLine.Option(names = "--webhook-secret", defaultValue = "${env:TALLY_WEBHOOK_SECRET}",
        description = "HMAC-SHA256 secret signing webhooks, >= 16 bytes (default: env TALLY_WEBHOOK_SECRET, preferred). Never logged.")
    String webhookSecret;

    @CommandLine.Mixin
    LedgerOptions ledgerOptions = new LedgerOptions();

    @CommandLine.Mixin
    SnapshotOptions snapshotOptions = new SnapshotOptions();

    @CommandLine.Option(names = "--tls-cert", paramLabel = "PEM",
        description = "Serve HTTPS with this PEM certificate chain (with --tls-key); absent: plain HTTP.")
    Path tlsCert;

    @CommandLine.Option(names = "--tls-key", paramLabel = "PEM", description = "The certificate's private key, unencrypted PKCS#8 PEM.")
    Path tlsKey;

    @CommandLine.Option(names = "--body-limit-bytes", defaultValue = "4194304",
        description = "Largest request body, >= 1024; larger gets 413 (default: ${DEFAULT-VALUE}).")
    int bodyLimitBytes;

    @CommandLine.Option(names = "--header-limit-bytes", defaultValue = "16384",
        description = "Largest request header block, >= 1024; larger gets 431 (default: ${DEFAULT-VALUE}).")
    int headerLimitBytes;

    @CommandLine.Option(names = "--uri-limit-bytes", defaultValue = "4096",
        description = "Longest request line (method, URI, version), >= 256; longer gets 414 (default: ${DEFAULT-VALUE}).")
    int uriLimitBytes;

    @CommandLine.Option(names = "--idle-timeout-ms", defaultValue = "60000",
        description = "A connection whose client sends nothing this long is closed, >= 100 (default: ${DEFAULT-VALUE}).")
    long idleTimeoutMs;

    @CommandLine.Option(names = "--read-timeout-ms", defaultValue = "30000",
        description = "A request must arrive whole within this long of its first byte, or 408 and close (slow-loris), >= 100 " +
            "(default: ${DEFAULT-VALUE}).")
    long readTimeoutMs;

    @CommandLine.Option(names = "--requests-per-connection-max", defaultValue = "0",
        description = "Close a connection after this many requests, the last reply saying Connection: close; 0: no limit " +
            "(default: ${DEFAULT-VALUE}).")
    int requestsPerConnectionMax;

    @CommandLine.Option(names = "--rate-limit-per-tenant", defaultValue = "0", paramLabel = "N[/s]",
        description = "Requests per second each tenant may send (burst: one second's worth); more get 429 with Retry-After. " +
            "0: off (default: ${DEFAULT-VALUE}).")
    String rateLimitPerTenant;

    @CommandLine.Option(names = "--connections-max", defaultValue = "10000", description = "Open connections, >= 1 (default: ${DEFAULT-VALUE}).")
    int connectionsMax;

    @CommandLine.Option(names = "--async-force-interval-ms", defaultValue = "" + JournalConfig.ASYNC_FORCE_INTERVAL_MS_DEFAULT,
        description = "Under --durability async, force the journal at most this often, 0..60000 ms; 0 leaves write-back to " +
            "the kernel (default: ${DEFAULT-VALUE}).")
    long asyncForceIntervalMs;

    @CommandLine.Option(names = "--cold-cache-mb", defaultValue = "64",
        description = "The cold index's RocksDB block cache (its index and filter blocks included), MiB, >= 1 (default: ${DEFAULT-VALUE}).")
    long coldCacheMb;

    @CommandLine.Option(names = "--cold-lag-max", defaultValue = "" + LedgerLimits.COLD_LAG_MAX,
        description = "Commands the cold index may be behind before requests are refused (503 cold-index-unavailable), " +
            "16380.." + LedgerLimits.COLD_LAG_MAX + "; lowered to the ledger's smallest table less a batch, not below 16380 " +
            "(default: ${DEFAULT-VALUE}).")
    long coldLagMax;

    @CommandLine.Option(names = "--truncate-journal-after-corruption",
        description = "Start even when intact journal records follow a corrupt one: cut the journal at the corrupt record " +
            "(an operator's decision after inspecting it; the cut records are lost).")
    boolean truncateJournalAfterCorruption;

    @Override
    public Integer call() throws Exception
    {
        final ServerConfig config = toConfig();
        final SnapshotConfig snapshots = snapshotConfig();
        logFormat.apply();
        final CountDownLatch stopped = new CountDownLatch(1);
        final TallyServer server;
        try
        {
            server = new TallyServer(config, snapshots);
        }
        catch (final DataFolderInUseException ex)
        {
            return TallyMain.refuse("tally serve", ex);   // before the journal or PostgreSQL was touched
        }
        catch (final java.net.BindException ex)
        {
            // the server has undone its start (PostgreSQL stopped, folder released): say why in one line
            System.err.println("tally serve: cannot listen on " + host + ":" + port + ": " + ex.getMessage());
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            try
            {
                server.close();
            }
            finally
            {
                stopped.countDown();
            }
        }, "tally-shutdown"));
        stopOnSignals();
        reloadKeysOnSighup(config.apiKeys());
        System.out.println("tally listening on " + (config.tls() == null ? "http" : "https") + "://" + host + ":" + server.port() +
            " (durability " + durability.name().toLowerCase(java.util.Locale.ROOT) + ")");
        stopped.await();
        return 0;
    }

    /**
     * SIGTERM or SIGINT starts the graceful stop (the shutdown hook: drain, flush, close) and exits 0; a
     * second one while that runs halts at once with {@link #EXIT_FORCED}, for an operator who cannot wait.
     * Without this the JVM ignores a second signal during shutdown. The exit runs on its own thread: the
     * JVM's signal thread must stay free to deliver the second signal.
     */
    private static void stopOnSignals()
    {
        final AtomicBoolean stopping = new AtomicBoolean();
        final Runnable onSignal = () ->
        {
            if (stopping.compareAndSet(false, true))
            {
                LOG.info("stopping: draining the ring and closing (signal again to exit at once)");
                new Thread(() -> System.exit(0), "tally-stop").start();
            }
            else
            {
                LOG.warn("second stop signal: exiting without draining; the journal holds every acknowledged command");
                Runtime.getRuntime().halt(EXIT_FORCED);
            }
        };
        Signals.on("TERM", onSignal);
        Signals.on("INT", onSignal);
    }

    /** @return {@code N} of {@code N} or {@code N/s}. */
    private static int perSecond(final String flag, final String rate)
    {
        final String number = rate.endsWith("/s") ? rate.substring(0, rate.length() - 2) : rate;
        try
        {
            return Integer.parseInt(number.strip());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(flag + " must be N or N/s requests per second, was '" + rate + "'", ex);
        }
    }

    /**
     * SIGHUP re-reads the keys file: a deleted line revokes its key at once, without a restart. A file that
     * no longer parses leaves the current keys in force. Counts are logged, never keys or hashes.
     */
    private static void reloadKeysOnSighup(final ApiKeys keys)
    {
        if (keys.keysFile() == null)
        {
            return;
        }
        Signals.on("HUP", () ->
        {
            try
            {
                LOG.info("SIGHUP: {} keys in {} (now {} in force)", keys.reload(), keys.keysFile(), keys.size());
                if (keys.size() == 0)
                {
                    LOG.warn("SIGHUP: no API key in force: every API request gets 401 until a key is added");
                }
            }
            catch (final IllegalArgumentException ex)
            {
                LOG.error("SIGHUP: keys file not reloaded, the previous keys stay in force: {}", ex.getMessage());
            }
        });
    }

    /** The snapshot settings, checked like {@link #toConfig()}'s (exit status 2, naming the flag). */
    SnapshotConfig snapshotConfig()
    {
        try
        {
            return snapshotOptions.toConfig();
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "invalid setting: " + ex.getMessage(), ex);
        }
    }

    /**
     * Builds the server configuration, checking every setting.
     *
     * @throws CommandLine.ParameterException on any invalid setting (picocli exits with status 2), with a
     *                                        message naming it and never echoing an API key.
     */
    ServerConfig toConfig()
    {
        try
        {
            final LedgerConfig ledger = ledgerOptions.toConfig(dataDir);
            final HttpLimits limits = new HttpLimits(bodyLimitBytes, headerLimitBytes, uriLimitBytes, connectionsMax, idleTimeoutMs,
                readTimeoutMs, requestsPerConnectionMax, perSecond("--rate-limit-per-tenant", rateLimitPerTenant));
            final LedgerPipeline.PipelineConfig pipeline = new LedgerPipeline.PipelineConfig(ringSize, waitStrategy, tickIntervalMs);
            pipeline.validate();
            if ((tlsCert == null) != (tlsKey == null))
            {
                throw new IllegalArgumentException("--tls-cert and --tls-key go together");
            }
            final SslContext tls = tlsCert == null ? null : TlsContexts.forServer(tlsCert, tlsKey);
            return new ServerConfig(host, port, dataDir, durability, ApiKeys.load(apiKeys, keysFile, adminKey), ioThreads, ledger, pipeline, limits, dbUrl,
                !noReadModel, tls, webhooks(), new ServerConfig.JournalOptions(truncateJournalAfterCorruption, asyncForceIntervalMs),
                available(transport), new ServerConfig.ColdOptions(coldCacheMb << 20, ColdIndexConfig.WRITE_BUFFER_BYTES_DEFAULT,
                ServerConfig.ColdOptions.RING_BYTES_DEFAULT, coldLagMax));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "invalid setting: " + ex.getMessage(), ex);
        }
    }

    /** Refuses {@code --transport io_uring} where the kernel does not offer it, before anything starts. */
    private static NettyTransport available(final NettyTransport transport)
    {
        if (transport == NettyTransport.IO_URING && !NettyTransport.ioUringAvailable())
        {
            throw new IllegalArgumentException("--transport io_uring: io_uring is not available on this kernel; use auto or nio");
        }
        return transport;
    }

    /** @return the relay's settings, or null without {@code --webhook-url}. One secret signs for every endpoint. */
    private RelayConfig webhooks()
    {
        if (webhookUrls.isEmpty())
        {
            return null;
        }
        if (webhookSecret == null || webhookSecret.isBlank())
        {
            throw new IllegalArgumentException("--webhook-url needs a secret: set TALLY_WEBHOOK_SECRET (or --webhook-secret)");
        }
        final List<WebhookEndpoint> endpoints = new ArrayList<>();
        for (final String url : webhookUrls)
        {
            endpoints.add(WebhookEndpoint.of(url, webhookSecret));
        }
        return RelayConfig.defaults(endpoints);
    }
}
