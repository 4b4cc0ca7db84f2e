package dev.tally.perf.load;

import dev.tally.gateway.http.ApiKeys;
import dev.tally.gateway.http.HttpLimits;
import dev.tally.gateway.pipeline.LedgerPipeline;
import dev.tally.gateway.pipeline.WaitStrategyName;
import dev.tally.gateway.server.ServerConfig;
import dev.tally.gateway.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * A real {@link TallyServer} in this process, on a free loopback port, with a temporary data folder
 * (deleted on close unless kept) and capacities sized for a load run.
 *
 * <p>Sizing: idempotency keys and transfers stay in memory for the retention window, so the tables
 * must hold {@code rate x window}. A benchmark runs at up to about a million transfers a second, so the
 * window is short (5 s by default) and expired every 100 ms, instead of 24 h.
 */
public final class InProcessServer implements AutoCloseable
{
    private final TallyServer server;
    private final Path dataDir;
    private final boolean deleteOnClose;
    private final String apiKey;

    /**
     * The server's settings.
     *
     * @param durability       async or sync.
     * @param waitStrategy     the pipeline's wait strategy.
     * @param ioThreads        Netty I/O threads.
     * @param ringSize         input ring slots.
     * @param tickIntervalMs   journaled tick period.
     * @param retentionMs      key, reference and reversal window.
     * @param accountsMax      accounts.
     * @param subBalancesMax   sub-balances.
     * @param keysMax          idempotency keys (and transfers) kept in the window.
     * @param dataDir          the data folder; null for a temporary one, deleted on close.
     */
    public record Settings(
        Durability durability, WaitStrategyName waitStrategy, int ioThreads, int ringSize, long tickIntervalMs, long retentionMs,
        int accountsMax, int subBalancesMax, int keysMax, Path dataDir)
    {
        /** @return the ledger's capacities and windows. */
        LedgerConfig ledger()
        {
            final int expiriesPerTickMax = 1_000_000;
            return new LedgerConfig(accountsMax, subBalancesMax, keysMax, 1_024, keysMax, 1_024, retentionMs, retentionMs, retentionMs,
                expiriesPerTickMax);
        }
    }

    public InProcessServer(final Settings settings) throws Exception
    {
        this.deleteOnClose = settings.dataDir() == null;
        this.dataDir = deleteOnClose ? Files.createTempDirectory("tally-load") : settings.dataDir();
        final byte[] secret = new byte[16];
        new SecureRandom().nextBytes(secret);
        this.apiKey = "load-" + HexFormat.of().formatHex(secret);
        final ServerConfig config = new ServerConfig(Target.LOOPBACK, 0, dataDir, settings.durability(),
            ApiKeys.parse(List.of("load:" + apiKey)), settings.ioThreads(), settings.ledger(),
            new LedgerPipeline.PipelineConfig(settings.ringSize(), settings.waitStrategy(), settings.tickIntervalMs()),
            HttpLimits.defaults());
        this.server = new TallyServer(config);
    }

    /** @return where to send load. */
    public Target target()
    {
        return new Target(Target.LOOPBACK, server.port(), apiKey);
    }

    /** @return a one-line description of the server's settings. */
    public static String describe(final Settings settings)
    {
        return String.format(Locale.ROOT,
            "in-process TallyServer: durability %s, wait strategy %s, %d I/O thread(s), ring %,d, tick %d ms, retention %,d ms, " +
                "accounts max %,d, keys/transfers max %,d",
            settings.durability().name().toLowerCase(Locale.ROOT), settings.waitStrategy().name().toLowerCase(Locale.ROOT),
            settings.ioThreads(), settings.ringSize(), settings.tickIntervalMs(), settings.retentionMs(), settings.accountsMax(),
            settings.keysMax());
    }

    /** @return the data folder. */
    public Path dataDir()
    {
        return dataDir;
    }

    @Override
    public void close() throws IOException
    {
        server.close();
        if (deleteOnClose)
        {
            try (Stream<Path> files = Files.walk(dataDir))
            {
                for (final Path file : (Iterable<Path>)files.sorted(Comparator.reverseOrder())::iterator)
                {
                    Files.deleteIfExists(file);
                }
            }
        }
    }
}
