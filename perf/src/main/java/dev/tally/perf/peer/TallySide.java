package dev.tally.perf.peer;

import dev.tally.perf.load.InProcessServer;
import dev.tally.perf.load.Target;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Tally in one measured run (a fresh in-process server per run). With its read model on, the run lasts until
 * PostgreSQL holds it:
 *
 * <pre>
 *   setup ─► the writer catches up with setup, VACUUM ANALYZE + CHECKPOINT of the read model ─► CPU meter starts
 *   window ends ─► journal index I noted; a watcher waits for the writer's watermark to reach I: the catch-up time
 *   check ─► the writer catches up with everything (the check's retries included) ─► CPU meter ends
 * </pre>
 * The whole system's rate is then the window's transfers over the window plus the catch-up ({@link CompareReport.Measured}).
 */
final class TallySide implements SystemSide
{
    /** Longest wait for the PostgreSQL writer, at any point: beyond it the run fails. */
    private static final Duration CATCH_UP_MAX = Duration.ofMinutes(5);

    private final InProcessServer tally;
    private final CpuMeter meter;
    private Thread watcher;
    private long windowEndNs;
    private long windowEndIndex;
    private long windowEndLagCommands;
    private volatile long caughtUpNs;

    TallySide(final InProcessServer tally)
    {
        this.tally = tally;
        this.meter = new CpuMeter(tally.hasReadModel() ? tally::postgresCpuNs : null);
    }

    @Override
    public Target target()
    {
        return tally.target();
    }

    @Override
    public CpuMeter meter()
    {
        return meter;
    }

    @Override
    public void afterSetup() throws java.io.IOException
    {
        if (tally.hasReadModel())
        {
            if (!tally.awaitReadModel(CATCH_UP_MAX))
            {
                throw new java.io.IOException("the PostgreSQL writer did not catch up with setup within " + CATCH_UP_MAX.toMinutes() + " minutes");
            }
            try
            {
                tally.settleReadModel();
            }
            catch (final java.sql.SQLException ex)
            {
                throw new java.io.IOException("could not settle the read model's PostgreSQL after setup: " + ex.getMessage(), ex);
            }
        }
        System.gc();
        meter.start();
    }

    @Override
    public void windowEnded()
    {
        if (!tally.hasReadModel())
        {
            return;
        }
        windowEndNs = System.nanoTime();
        windowEndIndex = tally.lastJournalIndex();
        windowEndLagCommands = tally.readModelLagCommands();
        watcher = new Thread(() ->
        {
            if (tally.awaitReadModel(windowEndIndex, CATCH_UP_MAX))
            {
                caughtUpNs = System.nanoTime();
            }
        }, "compare-read-model-watcher");
        watcher.setDaemon(true);
        watcher.start();
    }

    @Override
    public boolean finish(final PrintStream log, final List<String> notes) throws InterruptedException
    {
        if (!tally.hasReadModel())
        {
            meter.remeasure();
            return true;
        }
        if (watcher != null)
        {
            watcher.join(CATCH_UP_MAX.toMillis());
        }
        final long startNs = System.nanoTime();
        final boolean caughtUp = caughtUpNs != 0 && tally.awaitReadModel(CATCH_UP_MAX);
        log.printf(Locale.ROOT, "read model: at the end of the window the PostgreSQL writer was %,d commands behind; it held the window " +
            "(journal index %,d) %.2f s later, and the check's commands %.1f s after the check%s%n", windowEndLagCommands, windowEndIndex,
            catchUpS(), (System.nanoTime() - startNs) / 1e9, caughtUp ? "" : " -- NOT within " + CATCH_UP_MAX.toMinutes() + " minutes");
        if (!caughtUp)
        {
            notes.add("the PostgreSQL writer did not catch up within " + CATCH_UP_MAX.toMinutes() + " minutes");
            return false;
        }
        meter.remeasure();
        return true;
    }

    @Override
    public double catchUpS()
    {
        if (!tally.hasReadModel())
        {
            return Double.NaN;
        }
        return caughtUpNs == 0 ? Double.POSITIVE_INFINITY : Math.max(0, caughtUpNs - windowEndNs) / 1e9;
    }
}
