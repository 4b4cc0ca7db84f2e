package dev.tally.persistence.db;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A real PostgreSQL server (the binaries ship inside a Maven artifact, io.zonky.test.postgres) whose data
 * directory lives under Tally's data folder, e.g. {@code data/pg}. The default read model when no
 * {@code --db-url} is given, so {@code tally serve} needs no setup.
 *
 * <ul>
 *   <li>The data directory is kept across restarts (only the first start runs {@code initdb}).</li>
 *   <li>The server listens on loopback only ({@code listen_addresses = localhost}).</li>
 *   <li>{@code fsync} is on (zonky turns it off by default): the read model survives an OS crash without
 *   corruption. {@code synchronous_commit} is off: a crash may lose the last few commits, and with them
 *   the watermark they moved, so replay from the journal fills them in again.</li>
 *   <li>A postmaster left running by a process that was killed (the JVM's shutdown hook never ran) is
 *   stopped before the new one starts, only when the caller holds the data folder's {@link DataFolderLock}: then no
 *   live Tally uses the folder and the postmaster is an orphan. Without the lock a running postmaster may belong to a
 *   live server, and the start fails instead.</li>
 *   <li>Running as root works: zonky starts the binaries under {@code unshare -U} (PostgreSQL refuses
 *   to run as root).</li>
 * </ul>
 *
 * <p>Usage: {@code try (EmbeddedDatabase pg = EmbeddedDatabase.start(lock, dataDir.resolve("pg"))) { Database.connect(pg.jdbcUrl()) ... }}
 */
public final class EmbeddedDatabase implements AutoCloseable
{
    /** The database Tally's tables live in (created on first start). */
    public static final String DATABASE_NAME = "tally";
    /** How long to wait for the server to accept connections. */
    public static final Duration STARTUP_WAIT_MAX = Duration.ofSeconds(60);
    /** How long a stale postmaster gets to shut down before it is killed. */
    private static final Duration ORPHAN_STOP_WAIT_MAX = Duration.ofSeconds(20);
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabase.class);

    private final EmbeddedPostgres postgres;
    private final Path dataDirectory;

    private EmbeddedDatabase(final EmbeddedPostgres postgres, final Path dataDirectory)
    {
        this.postgres = postgres;
        this.dataDirectory = dataDirectory;
    }

    /** Starts the server on a free loopback port. */
    public static EmbeddedDatabase start(final Path dataDirectory)
    {
        return start(dataDirectory, 0);
    }

    /**
     * Tally's start: the server on a free loopback port, with its data in {@code dataDirectory} inside the data folder
     * that {@code lock} holds, so that a postmaster still running there is an orphan of a killed process, and stopped.
     *
     * @throws IllegalArgumentException when {@code lock} is released or does not cover {@code dataDirectory}.
     */
    public static EmbeddedDatabase start(final DataFolderLock lock, final Path dataDirectory)
    {
        return start(dataDirectory, 0, true, java.util.Objects.requireNonNull(lock, "lock"));
    }

    /**
     * Starts the server with its data under {@code dataDirectory} (created when missing, reused otherwise).
     *
     * @param port a loopback port, or 0 to pick a free one.
     */
    public static EmbeddedDatabase start(final Path dataDirectory, final int port)
    {
        return start(dataDirectory, port, true);
    }

    /**
     * As {@link #start(Path, int)}, choosing {@code fsync}. {@code fsync = false} is for tests and throwaway
     * benchmark databases only: an operating-system crash or power loss can then corrupt the cluster (a process
     * crash cannot), and a corrupt read model must be rebuilt from the journal.
     */
    public static EmbeddedDatabase start(final Path dataDirectory, final int port, final boolean fsync)
    {
        return start(dataDirectory, port, fsync, null);
    }

    /** @param lock the data folder's lock, held by this process, or null: see {@link #stopOrphanedPostmaster}. */
    private static EmbeddedDatabase start(final Path dataDirectory, final int port, final boolean fsync, final DataFolderLock lock)
    {
        final Path directory = dataDirectory.toAbsolutePath().normalize();
        try
        {
            Files.createDirectories(directory);
            if (lock != null && !lock.covers(directory))
            {
                throw new IllegalArgumentException(directory + " is not inside a data folder this process holds locked (" +
                    lock.folder() + ")");
            }
            stopOrphanedPostmaster(directory, lock);
            final EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                .setDataDirectory(directory)
                .setCleanDataDirectory(false)
                // The owner stops the server, after the writer has drained: zonky's own shutdown hook would
                // stop PostgreSQL concurrently with Tally's and cut the drain short.
                .setRegisterShutdownHook(false)
                .setPort(port)
                .setPGStartupWait(STARTUP_WAIT_MAX)
                .setServerConfig("listen_addresses", "localhost")
                .setServerConfig("fsync", fsync ? "on" : "off")
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("max_connections", "50")
                .setServerConfig("shared_buffers", "256MB")
                .setServerConfig("max_wal_size", "2GB")
                .setServerConfig("checkpoint_timeout", "5min")
                .start();
            final EmbeddedDatabase database = new EmbeddedDatabase(postgres, directory);
            database.ensureDatabase(DATABASE_NAME);
            LOG.info("embedded PostgreSQL on 127.0.0.1:{}, data in {}", postgres.getPort(), directory);
            return database;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("could not start embedded PostgreSQL in " + directory, ex);
        }
    }

    /** @return JDBC URL of Tally's database on this server (user {@code postgres}, trust authentication on loopback). */
    public String jdbcUrl()
    {
        return jdbcUrl(DATABASE_NAME);
    }

    /** @return JDBC URL of another database on this server (tests create one per test). */
    public String jdbcUrl(final String databaseName)
    {
        return "jdbc:postgresql://localhost:" + postgres.getPort() + "/" + databaseName + "?user=postgres";
    }

    public int port()
    {
        return postgres.getPort();
    }

    public Path dataDirectory()
    {
        return dataDirectory;
    }

    /** Creates a database on this server unless it exists (tests: one fresh database per test). */
    public void ensureDatabase(final String databaseName)
    {
        if (!databaseName.matches("[a-z][a-z0-9_]{0,62}"))
        {
            throw new IllegalArgumentException("database name must be a lower-case identifier: " + databaseName);
        }
        try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement())
        {
            try (ResultSet rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + databaseName + "'"))
            {
                if (rs.next())
                {
                    return;
                }
            }
            s.execute("CREATE DATABASE " + databaseName);
        }
        catch (final SQLException ex)
        {
            throw new IllegalStateException("could not create database " + databaseName, ex);
        }
    }

    /** Stops the server (fast shutdown: open transactions are rolled back). Idempotent. */
    @Override
    public void close()
    {
        try
        {
            postgres.close();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * A JVM killed with SIGKILL leaves its postmaster running (it is a daemon started by pg_ctl, and the
     * shutdown hook never ran). Starting a second one on the same directory would fail, so stop the first:
     * SIGTERM (smart shutdown; it has no clients left), then SIGKILL after a grace period (PostgreSQL
     * recovers from its WAL at the next start).
     *
     * <p>Only with the data folder's lock held by this process: then no other Tally uses the folder, and a postmaster
     * alive on it is an orphan. Without it, a live postmaster may be a running server's, and is left alone: the start
     * fails.
     */
    private static void stopOrphanedPostmaster(final Path directory, final DataFolderLock lock) throws IOException
    {
        final Path pidFile = directory.resolve("postmaster.pid");
        if (!Files.exists(pidFile))
        {
            return;
        }
        final List<String> lines = Files.readAllLines(pidFile, StandardCharsets.US_ASCII);
        final long pid;
        try
        {
            pid = lines.isEmpty() ? -1 : Long.parseLong(lines.get(0).trim());
        }
        catch (final NumberFormatException ex)
        {
            return;
        }
        final Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive() ||
            !handle.get().info().command().map(c -> c.endsWith("/postgres")).orElse(false))
        {
            return;   // stale file: PostgreSQL itself handles it at start
        }
        if (lock == null || !lock.covers(directory))
        {
            throw new IllegalStateException("a PostgreSQL server (pid " + pid + ") is running on " + directory + ", and this " +
                "process does not hold the data folder's lock that would make it an orphan: it may be a running server's, so it " +
                "is left alone; stop the process using it first");
        }
        LOG.warn("stopping a postmaster (pid {}) left running on {} by an earlier process", pid, directory);
        handle.get().destroy();
        try
        {
            handle.get().onExit().get(ORPHAN_STOP_WAIT_MAX.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        catch (final java.util.concurrent.TimeoutException ex)
        {
            handle.get().destroyForcibly();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while stopping an orphaned postmaster", ex);
        }
        catch (final java.util.concurrent.ExecutionException ex)
        {
            throw new IOException(ex);
        }
    }
}
