package dev.tally.persistence.db;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * Keeps the embedded PostgreSQL running: an Agrona agent on its own thread ({@code tally-pg-supervisor}), off every
 * request path, that looks at the postmaster every {@value #CHECK_INTERVAL_MS} ms and starts it again when it is gone
 * (killed, crashed, stopped by hand).
 *
 * <pre>
 *   UP ──postmaster gone──► DOWN ──restart ok──► UP
 *                            │ ▲
 *                            └─┘ restart failed: next attempt after the backoff (1 s doubling to 30 s)
 * </pre>
 *
 * <ul>
 *   <li>A death is logged at ERROR once, each restart at WARN; failed attempts at WARN when their reason changes and at the
 *   1st, 2nd, 4th, 8th… failure. {@link #deaths()}, {@link #restarts()} and {@link #restartFailures()} count them.</li>
 *   <li>The first attempt waits one check interval after the death is seen: the dead postmaster's children leave within
 *   it (they notice its death), and PostgreSQL refuses to start while one still holds the old shared memory.</li>
 *   <li>Attempts never stop while Tally runs: the journal keeps every effect, and the writer, which retries its batch on
 *   its own backoff, writes them once the server is back. {@link #downReason()} says why meanwhile, for {@code /ready}.</li>
 *   <li>A restart that finds the disk full fails at once with "no space left on device" ({@link DiskSpace}); the next
 *   attempt follows the backoff, so freeing space brings the read model back within 30 s.</li>
 * </ul>
 */
public final class EmbeddedDatabaseSupervisor implements Agent, AutoCloseable
{
    /** How often the postmaster is looked at: a death is noticed within this, at two reads of {@code /proc} a second. */
    public static final long CHECK_INTERVAL_MS = 500;
    /** Wait after the first failed restart; doubled after each further failure, up to {@link #RESTART_BACKOFF_MAX_MS}. */
    public static final long RESTART_BACKOFF_MIN_MS = 1_000;
    public static final long RESTART_BACKOFF_MAX_MS = 30_000;
    /** How long {@link #close()} waits for a restart in progress before interrupting it. */
    private static final int CLOSE_WAIT_MS = 1_000;
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabaseSupervisor.class);

    private final EmbeddedDatabase database;
    private AgentRunner runner;

    // supervisor thread state
    private long nextAttemptNs;
    private long backoffMs = RESTART_BACKOFF_MIN_MS;
    private long deadPid;
    /** {@link #restartFailures} when the current outage began. */
    private long failuresAtDeath;
    private String lastLoggedFailure;

    // written by the supervisor thread only, read by any
    /** Wall-clock time the death was seen, 0 while the server is up. */
    private volatile long downSinceEpochMs;
    private volatile String lastFailure;
    private volatile long deaths;
    private volatile long restarts;
    private volatile long restartFailures;

    private EmbeddedDatabaseSupervisor(final EmbeddedDatabase database)
    {
        this.database = database;
    }

    /** Starts supervising {@code database} on a daemon thread; {@link #close()} stops it (before the database is closed). */
    public static EmbeddedDatabaseSupervisor start(final EmbeddedDatabase database)
    {
        final EmbeddedDatabaseSupervisor supervisor = new EmbeddedDatabaseSupervisor(database);
        supervisor.runner = new AgentRunner(new SleepingMillisIdleStrategy(CHECK_INTERVAL_MS),
            ex -> LOG.error("embedded PostgreSQL supervisor error", ex), null, supervisor);
        AgentRunner.startOnThread(supervisor.runner, r ->
        {
            final Thread t = new Thread(r, supervisor.roleName());
            t.setDaemon(true);
            return t;
        });
        return supervisor;
    }

    @Override
    public String roleName()
    {
        return "tally-pg-supervisor";
    }

    @Override
    public int doWork() throws InterruptedException
    {
        final long nowNs = System.nanoTime();
        if (downSinceEpochMs == 0)
        {
            if (database.isRunning())
            {
                return 0;
            }
            onDeath(nowNs);
            return 1;
        }
        if (nowNs - nextAttemptNs < 0)
        {
            return 0;
        }
        if (database.isRunning())
        {
            onBackUp("found running again");   // a restart that came up after its wait ran out
            return 1;
        }
        attemptRestart();
        return 1;
    }

    private void onDeath(final long nowNs)
    {
        deadPid = database.postmasterPid();
        downSinceEpochMs = System.currentTimeMillis();
        deaths++;
        failuresAtDeath = restartFailures;
        nextAttemptNs = nowNs + TimeUnit.MILLISECONDS.toNanos(CHECK_INTERVAL_MS);
        LOG.error("embedded PostgreSQL (postmaster pid {}, data in {}) is gone: restarting it. Writes are still taken and " +
            "journaled; the PostgreSQL writer retries and /ready answers 503 until it is back", deadPid, database.dataDirectory());
    }

    private void attemptRestart() throws InterruptedException
    {
        try
        {
            database.restart();
        }
        catch (final RuntimeException ex)
        {
            onRestartFailed(ex);
            return;
        }
        restarts++;
        onBackUp("restarted");
    }

    private void onBackUp(final String how)
    {
        final long downMs = System.currentTimeMillis() - downSinceEpochMs;
        LOG.warn("embedded PostgreSQL {} (postmaster pid {}, was pid {}) after {} ms down and {} failed attempt(s)", how,
            database.postmasterPid(), deadPid, downMs, failedAttemptsThisOutage());
        downSinceEpochMs = 0;
        lastFailure = null;
        lastLoggedFailure = null;
        backoffMs = RESTART_BACKOFF_MIN_MS;
    }

    private long failedAttemptsThisOutage()
    {
        return restartFailures - failuresAtDeath;
    }

    private void onRestartFailed(final RuntimeException ex)
    {
        restartFailures++;
        final String reason = ex.getMessage() == null ? ex.toString() : ex.getMessage();
        lastFailure = reason;
        final long failures = failedAttemptsThisOutage();
        if (!reason.equals(lastLoggedFailure) || Long.bitCount(failures) == 1)
        {
            LOG.warn("embedded PostgreSQL restart attempt {} failed (next in {} ms): {}", failures, backoffMs, reason);
            lastLoggedFailure = reason;
        }
        nextAttemptNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMs);
        backoffMs = Math.min(RESTART_BACKOFF_MAX_MS, backoffMs * 2);
    }

    // ---- what the gateway reads (any thread) ----

    /** @return true while the server runs, as last checked. */
    public boolean isUp()
    {
        return downSinceEpochMs == 0;
    }

    /** @return why the read model is down (the postmaster is gone, and the last restart's failure), or null while it is up. */
    public String downReason()
    {
        final long since = downSinceEpochMs;
        if (since == 0)
        {
            return null;
        }
        final String failure = lastFailure;
        return "the embedded PostgreSQL is down since " + Instant.ofEpochMilli(since) + " and being restarted" +
            (failure == null ? "" : "; last attempt: " + failure);
    }

    /** @return deaths of the postmaster seen since start. */
    public long deaths()
    {
        return deaths;
    }

    /** @return restarts that brought the server back. */
    public long restarts()
    {
        return restarts;
    }

    /** @return restart attempts that failed. */
    public long restartFailures()
    {
        return restartFailures;
    }

    /** Stops supervising (a restart in progress is interrupted after a second). Idempotent. */
    @Override
    public synchronized void close()
    {
        if (runner != null)
        {
            runner.close(CLOSE_WAIT_MS, Thread::interrupt);
            runner = null;
        }
    }
}
