package dev.tally.persistence.db;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.util.LinuxUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real PostgreSQL server (the binaries ship inside a Maven artifact, io.zonky.test.postgres) whose data
 * directory lives under Tally's data folder, e.g. {@code data/pg}. The default read model when no
 * {@code --db-url} is given, so {@code tally serve} needs no setup.
 *
 * <ul>
 *   <li>The data directory is kept across restarts (only the first start runs {@code initdb}).</li>
 *   <li>The server listens on loopback only ({@code listen_addresses = localhost}), over TCP only (no Unix socket).</li>
 *   <li>{@code fsync} is on (zonky turns it off by default): the read model survives an OS crash without
 *   corruption. {@code synchronous_commit} is off by default (reads, the outbox relay); the writer's own connection
 *   turns it on ({@link Database#openWriterConnection()}), so no batch it committed is lost when PostgreSQL alone
 *   crashes and is restarted under a running Tally.</li>
 *   <li>A postmaster left running by a process that was killed (the JVM's shutdown hook never ran) is
 *   stopped before the new one starts, only when the caller holds the data folder's {@link DataFolderLock}: then no
 *   live Tally uses the folder and the postmaster is an orphan. Without the lock a running postmaster may belong to a
 *   live server, and the start fails instead.</li>
 *   <li>Running as root works: zonky starts the binaries under {@code unshare -U} (PostgreSQL refuses
 *   to run as root).</li>
 *   <li>A start first checks the free space of the data directory's file system ({@link DiskSpace}): on a full disk it
 *   fails at once with "no space left on device", not after the minute PostgreSQL's start may take.</li>
 *   <li>A postmaster that dies while Tally runs is started again by {@link EmbeddedDatabaseSupervisor} through
 *   {@link #restart()}: same data, port and settings, so every connection string stays valid.</li>
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
    /** How long {@code pg_ctl} gets beyond its own wait to return. */
    private static final long PG_CTL_EXIT_MARGIN_MS = 5_000;
    /** How long a failed restart waits for the rest of PostgreSQL's output, which explains the failure. */
    private static final long FAILURE_OUTPUT_WAIT_MS = 2_000;
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabase.class);

    /** The first start's server handle: its {@code close()} stops whatever server runs in the directory, restarted ones too. */
    private final EmbeddedPostgres postgres;
    private final Path dataDirectory;
    /** The server's settings, given to the first start and to every restart alike. */
    private final Map<String, String> settings;
    /** The postmaster as last seen running; each restart replaces it. */
    private volatile ProcessHandle postmaster;
    /** Usable bytes a restart needs ({@link DiskSpace#START_FREE_BYTES_MIN}); tests of this package lower it. */
    long restartFreeBytesMin = DiskSpace.START_FREE_BYTES_MIN;

    private EmbeddedDatabase(final EmbeddedPostgres postgres, final Path dataDirectory, final Map<String, String> settings)
    {
        this.postgres = postgres;
        this.dataDirectory = dataDirectory;
        this.settings = settings;
        this.postmaster = Postmaster.running(dataDirectory).orElse(null);
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
            DiskSpace.requireForStart(directory, DiskSpace.START_FREE_BYTES_MIN);
            final Map<String, String> settings = settings(fsync);
            final EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(directory)
                .setCleanDataDirectory(false)
                // The owner stops the server, after the writer has drained: zonky's own shutdown hook would
                // stop PostgreSQL concurrently with Tally's and cut the drain short.
                .setRegisterShutdownHook(false)
                .setPort(port)
                .setPGStartupWait(STARTUP_WAIT_MAX);
            settings.forEach(builder::setServerConfig);
            final EmbeddedPostgres postgres = startOrExplain(builder, directory);
            final EmbeddedDatabase database = new EmbeddedDatabase(postgres, directory, settings);
            database.ensureDatabase(DATABASE_NAME);
            LOG.info("embedded PostgreSQL on 127.0.0.1:{}, data in {}", postgres.getPort(), directory);
            return database;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("could not start embedded PostgreSQL in " + directory, ex);
        }
    }

    /**
     * The server's settings, in the order given. {@code timezone} is zonky's own default, named here so that a restart,
     * which does not go through zonky, starts the same server.
     */
    private static Map<String, String> settings(final boolean fsync)
    {
        final Map<String, String> settings = new LinkedHashMap<>();
        settings.put("listen_addresses", "localhost");
        // TCP only: no socket lock file in /tmp naming a killed postmaster, which a restart would trip over while the dead
        // one lasts as a zombie (Tally and its tools connect over TCP; psql needs -h localhost)
        settings.put("unix_socket_directories", "");
        settings.put("fsync", fsync ? "on" : "off");
        settings.put("synchronous_commit", "off");
        settings.put("max_connections", "50");
        // The writer's working set is every account's last leaf of ledger_entries_account (one 8 kB page per
        // account written to: 800 MB at 100,000 accounts) plus the balances and the tables' tails; a smaller pool
        // makes each batch read and evict those pages, and PostgreSQL's CPU per transfer grows with the index
        settings.put("shared_buffers", "1GB");
        // Each checkpoint makes the next write to every one of those leaves log its whole page: checkpoints far
        // apart keep that cost small per transfer (crash recovery replays at most this much WAL)
        settings.put("max_wal_size", "8GB");
        settings.put("min_wal_size", "1GB");
        settings.put("checkpoint_timeout", "15min");
        settings.put("checkpoint_completion_target", "0.9");
        settings.put("timezone", "UTC");
        return settings;
    }

    /**
     * zonky's start, which waits up to {@link #STARTUP_WAIT_MAX} for connections whatever the postmaster does: when that
     * wait fails and the disk has filled meanwhile (crash recovery writes), the failure says so.
     */
    private static EmbeddedPostgres startOrExplain(final EmbeddedPostgres.Builder builder, final Path directory) throws IOException
    {
        try
        {
            return builder.start();
        }
        catch (final IOException ex)
        {
            try
            {
                DiskSpace.requireForStart(directory, DiskSpace.START_FREE_BYTES_MIN);
            }
            catch (final IllegalStateException noSpace)
            {
                noSpace.addSuppressed(ex);
                throw noSpace;
            }
            throw ex;
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

    /**
     * @return true while the postmaster runs (alive, not a zombie). When the one last seen is gone, a server found running
     *         in the directory since (a restart that came up after its wait ran out) is taken as the current one.
     */
    boolean isRunning()
    {
        final ProcessHandle last = postmaster;
        if (last != null && Postmaster.isRunning(last))
        {
            return true;
        }
        final Optional<ProcessHandle> found = Postmaster.running(dataDirectory)
            .filter(p -> last == null || p.pid() != last.pid()).filter(Postmaster::isPostgres);
        found.ifPresent(p -> postmaster = p);
        return found.isPresent();
    }

    /** @return the pid of the postmaster last seen running, or -1 when none was. */
    long postmasterPid()
    {
        final ProcessHandle last = postmaster;
        return last == null ? -1 : last.pid();
    }

    /**
     * Starts the server again after its postmaster died: same data directory, port and settings, through
     * {@code pg_ctl start -w}, which returns once the server accepts connections (after crash recovery from the WAL) or
     * as soon as the postmaster gives up. Pooled connections and the writer's reconnect by themselves. Called by
     * {@link EmbeddedDatabaseSupervisor} only.
     *
     * @throws IllegalStateException when the server does not start, with PostgreSQL's reason; starting "no space left on
     *                               device" when the disk is full, checked before anything is started.
     * @throws InterruptedException  when interrupted (the supervisor stops): the half-started {@code pg_ctl} is killed.
     */
    void restart() throws InterruptedException
    {
        DiskSpace.requireForStart(dataDirectory, restartFreeBytesMin);
        final Process pgCtl;
        try
        {
            Postmaster.removePidFileOf(dataDirectory, postmasterPid());
            pgCtl = new ProcessBuilder(pgCtlStart(Postmaster.binDirectory(dataDirectory))).redirectErrorStream(true).start();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot run pg_ctl to start PostgreSQL in " + dataDirectory, ex);
        }
        final PostmasterOutput output = PostmasterOutput.follow(pgCtl);
        try
        {
            if (!pgCtl.waitFor(STARTUP_WAIT_MAX.toMillis() + PG_CTL_EXIT_MARGIN_MS, TimeUnit.MILLISECONDS))
            {
                pgCtl.destroyForcibly();
                throw new IllegalStateException("pg_ctl did not return within " + STARTUP_WAIT_MAX.toSeconds() + " s starting " +
                    "PostgreSQL in " + dataDirectory);
            }
        }
        catch (final InterruptedException ex)
        {
            pgCtl.destroyForcibly();
            throw ex;
        }
        if (pgCtl.exitValue() != 0)
        {
            output.awaitEnd(FAILURE_OUTPUT_WAIT_MS);
            throw new IllegalStateException(startFailure(dataDirectory, output.lastLines()));
        }
        postmaster = Postmaster.running(dataDirectory).orElseThrow(() -> new IllegalStateException("pg_ctl started PostgreSQL " +
            "in " + dataDirectory + ", but its pid file names no running process"));
    }

    /** @return {@code pg_ctl start} of this server, waiting for it, with its settings as the postmaster's options. */
    private List<String> pgCtlStart(final Path binDirectory)
    {
        final StringBuilder options = new StringBuilder("-p ").append(port());
        settings.forEach((name, value) ->
        {
            // pg_ctl hands the options to a shell: only plain words, or nothing
            if (!value.matches("[A-Za-z0-9_.]*"))
            {
                throw new IllegalArgumentException("setting " + name + " = '" + value + "' is not a plain word");
            }
            options.append(" -c ").append(name).append('=').append(value);
        });
        final List<String> command = new ArrayList<>();
        if (LinuxUtils.isUnshareAvailable())
        {
            command.addAll(List.of("unshare", "-U"));   // as zonky does: PostgreSQL refuses to run as root
        }
        command.add(binDirectory.resolve("pg_ctl").toString());
        command.addAll(List.of("-D", dataDirectory.toString(), "-o", options.toString(), "-w", "-t",
            Long.toString(STARTUP_WAIT_MAX.toSeconds()), "start"));
        return command;
    }

    /**
     * @param output what {@code pg_ctl} and the postmaster wrote, e.g. {@code ... FATAL:  could not write lock file
     *               "postmaster.pid": No space left on device}, then {@code pg_ctl: could not start server}.
     * @return why a start failed, in PostgreSQL's words (its FATAL and PANIC lines, without their time stamps, and pg_ctl's
     *         verdict), led by "no space left on device" when that is the reason.
     */
    static String startFailure(final Path directory, final String output)
    {
        final StringBuilder reasons = new StringBuilder();
        for (final String line : output.split("\n"))
        {
            final int severity = Math.max(line.indexOf("FATAL:"), line.indexOf("PANIC:"));
            final String reason = severity >= 0 ? line.substring(severity) : line.startsWith("pg_ctl:") ? line : null;
            if (reason != null)
            {
                reasons.append(reasons.length() == 0 ? "" : "; ").append(reason.replaceAll("\\s+", " ").trim());
            }
        }
        return (DiskSpace.reportsNoSpace(output) ? "no space left on device: " : "") + "PostgreSQL did not start in " + directory +
            ": " + (reasons.length() > 0 ? reasons : output.isBlank() ? "no output" : output.replace('\n', ' '));
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
        final long pid = Postmaster.pid(directory);
        if (pid <= 0)
        {
            return;
        }
        final Optional<ProcessHandle> handle = Postmaster.running(directory).filter(Postmaster::isPostgres);
        if (handle.isEmpty())
        {
            if (lock != null && lock.covers(directory))
            {
                // a killed server's file: PostgreSQL clears it itself, except while the killed postmaster is a zombie or
                // its pid went to another process, when it would take the file for a live server's
                Postmaster.removePidFileOf(directory, pid);
            }
            return;
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
