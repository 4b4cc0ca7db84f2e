package dev.tally.perf.load;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The figures of one run and its check, rendered as a table and as one machine-readable line:
 *
 * <pre>
 *   RESULT scenario=uniform mode=closed tps=51234 p50_us=610 p99_us=1530 p999_us=4100 max_us=12000 errors=0 check=ok
 * </pre>
 *
 * {@code tps} is transfers answered as expected per second in the measured window: 201 (in
 * {@code retries}, a retry's replay counts too, as the request was answered correctly), and for
 * {@code batch} each operation counts, not each request. A run whose check failed prints {@code FAILED} instead of every figure: it is not a
 * number.
 */
final class LoadResult
{
    final LoadSpec spec;
    final LoopStats stats;
    final Outcomes outcomes;
    final String cpuReport;
    final long unanswered;
    private CheckReport check;

    LoadResult(final LoadSpec spec, final LoopStats stats, final Outcomes outcomes, final String cpuReport, final long unanswered)
    {
        this.spec = spec;
        this.stats = stats;
        this.outcomes = outcomes;
        this.cpuReport = cpuReport;
        this.unanswered = unanswered;
    }

    void check(final CheckReport report)
    {
        this.check = report;
    }

    boolean checkOk()
    {
        return check != null && check.ok();
    }

    /** @return transfers answered as expected per second in the measured window. */
    long transfersPerSecond()
    {
        return Math.round(stats.operationsCompleted / (double)spec.seconds());
    }

    /** @return requests answered per second in the measured window (any status). */
    long requestsPerSecond()
    {
        return Math.round(stats.requestsCompleted / (double)spec.seconds());
    }

    /** @return requests that did not get the expected answer in the window, transport errors included. */
    long errors()
    {
        return stats.requestsFailed;
    }

    /** @return true when an open-loop run left more than 0.1 % of its requests unsent: the rate was above capacity. */
    boolean saturated()
    {
        return spec.mode() == Mode.OPEN && stats.unsent * 1000 > (long)spec.rateRps() * spec.seconds();
    }

    /** @return false when an open-loop run's rate was above what the server answered ({@link #saturated()}). */
    boolean keptUp()
    {
        return !saturated();
    }

    /** @return the machine-readable line. */
    String resultLine()
    {
        final Histogram latency = stats.latencyUs;
        final String prefix = "RESULT scenario=" + spec.scenario().cliName() + " mode=" + spec.mode().cliName();
        if (!checkOk())
        {
            return prefix + " tps=FAILED p50_us=FAILED p99_us=FAILED p999_us=FAILED max_us=FAILED errors=" + errors() + " check=failed";
        }
        return prefix + " tps=" + transfersPerSecond() + " p50_us=" + latency.getValueAtPercentile(50) +
            " p99_us=" + latency.getValueAtPercentile(99) + " p999_us=" + latency.getValueAtPercentile(99.9) +
            " max_us=" + latency.getMaxValue() + " errors=" + errors() + " check=ok";
    }

    /** Prints the table, then the RESULT line. */
    void print(final PrintStream out)
    {
        out.println(heading());
        if (!checkOk())
        {
            out.println("  CHECK FAILED - the figures below are diagnostics, NOT A RESULT:");
            for (final String failure : check == null ? java.util.List.of("not checked") : check.failures())
            {
                out.println("    - " + failure);
            }
        }
        out.printf(Locale.ROOT, "  requests        %,d answered in %d s: %,d req/s; transfers answered as expected %,d/s%n",
            stats.requestsCompleted, spec.seconds(), requestsPerSecond(), transfersPerSecond());
        out.printf(Locale.ROOT, "  latency (us)    %s  [%s]%n", percentiles(stats.latencyUs),
            spec.mode() == Mode.OPEN ? "from the intended send time" : "from the actual send");
        if (spec.mode() == Mode.OPEN)
        {
            out.printf(Locale.ROOT, "  send lag (us)   %s  [client lateness against the schedule]%n", percentiles(stats.sendLagUs));
            out.printf(Locale.ROOT, "  open loop       rate %,d/s; %,d requests waited for a free connection; " +
                "%,d warmup requests dropped at the window start; %,d due but never sent%s%n",
                spec.rateRps(), stats.waitedForConnection, stats.warmupBacklogDropped, stats.unsent,
                saturated() ? " - THE SYSTEM DID NOT KEEP UP: this rate is above its capacity" : "");
        }
        out.println("  replies         " + statuses());
        out.printf(Locale.ROOT, "  errors          %,d requests not answered as expected (window)%s%n", errors(), transportErrors());
        out.printf(Locale.ROOT, "  outcomes        applied %,d, replays expected %,d, unexpected replays %,d, retries applied again %,d, not applied %,d (whole run)%n",
            outcomes.appliedTransfers, outcomes.expectedReplays, outcomes.unexpectedReplays, outcomes.retriesAppliedAgain,
            outcomes.notApplied);
        out.println("  per second      " + timeline());
        out.println("  cpu in the window:");
        out.print(cpuReport);
        if (check != null)
        {
            out.println("  check           " + (check.ok() ? "ok" : "FAILED") + ":");
            for (final String property : check.verified())
            {
                out.println("    ok  " + property);
            }
            for (final String failure : check.failures())
            {
                out.println("    BAD " + failure);
            }
        }
        out.println(resultLine());
    }

    /** Writes the latency distribution as an HdrHistogram percentile file (values in milliseconds). */
    Path writeHistogram(final Path directory, final String label) throws IOException
    {
        Files.createDirectories(directory);
        final Path file = directory.resolve(label + ".hgrm");
        try (PrintStream out = new PrintStream(Files.newOutputStream(file), false, java.nio.charset.StandardCharsets.UTF_8))
        {
            out.println("#[" + heading().trim() + "]");
            out.println("#[latency recorded in microseconds, printed in milliseconds; " +
                (spec.mode() == Mode.OPEN ? "measured from the intended send time" : "measured from the actual send") + "]");
            out.println("#[" + resultLine() + "]");
            stats.latencyUs.outputPercentileDistribution(out, 1000.0);
        }
        return file;
    }

    private String heading()
    {
        final String load = spec.mode() == Mode.OPEN ? String.format(Locale.ROOT, "open loop at %,d req/s", spec.rateRps()) : "closed loop";
        return String.format(Locale.ROOT, "== %s, %s: %d connections x depth %d, %d client thread(s), %,d accounts%s, %d s measured after %d s warmup ==",
            spec.scenario().cliName(), load, spec.connections(), spec.depth(), spec.clientThreads(), spec.accounts(),
            spec.scenario() == Scenario.BATCH ? ", " + spec.batchSize() + " transfers per request" : "", spec.seconds(),
            spec.warmupSeconds());
    }

    private static String percentiles(final Histogram histogram)
    {
        if (histogram.getTotalCount() == 0)
        {
            return "(none)";
        }
        return String.format(Locale.ROOT, "p50 %,d  p90 %,d  p99 %,d  p99.9 %,d  p99.99 %,d  max %,d  (n=%,d)",
            histogram.getValueAtPercentile(50), histogram.getValueAtPercentile(90), histogram.getValueAtPercentile(99),
            histogram.getValueAtPercentile(99.9), histogram.getValueAtPercentile(99.99), histogram.getMaxValue(),
            histogram.getTotalCount());
    }

    private String statuses()
    {
        final StringBuilder text = new StringBuilder();
        for (int status = 0; status < LoopStats.STATUS_MAX; status++)
        {
            if (stats.repliesByStatus[status] > 0)
            {
                text.append(String.format(Locale.ROOT, "%d: %,d  ", status, stats.repliesByStatus[status]));
            }
        }
        return text.length() == 0 ? "(none)" : text.toString().trim();
    }

    private String transportErrors()
    {
        if (stats.transportErrors.isEmpty() && unanswered == 0)
        {
            return "; no transport errors";
        }
        final StringBuilder text = new StringBuilder("; transport:");
        for (final Map.Entry<String, Long> entry : stats.transportErrors.entrySet())
        {
            text.append(String.format(Locale.ROOT, " %s x%,d;", entry.getKey(), entry.getValue()));
        }
        return text.toString();
    }

    private String timeline()
    {
        final StringBuilder text = new StringBuilder();
        final int seconds = spec.warmupSeconds() + spec.seconds();
        for (int second = 0; second < Math.min(seconds, stats.completedPerSecond.length); second++)
        {
            if (second == spec.warmupSeconds() && second > 0)
            {
                text.append("| ");
            }
            text.append(String.format(Locale.ROOT, "%,d ", stats.completedPerSecond[second] * spec.operationsPerRequest()));
        }
        return text.append(spec.operationsPerRequest() > 1 ? "(transfers/s; warmup | measured)" : "(req/s; warmup | measured)").toString();
    }
}
