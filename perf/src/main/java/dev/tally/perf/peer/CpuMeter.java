package dev.tally.perf.peer;

import dev.tally.perf.load.ProcessCpu;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CPU a system spent per transfer applied over one run: this JVM (the server under test and the load generator)
 * and the system's PostgreSQL, from {@link #start} (after setup and the settling that follows it) to the last
 * {@link #remeasure} (the end of the check, or of the read model's catch-up). The transfers applied come from the
 * load generator's report as it is printed ({@code outcomes  applied N}).
 */
final class CpuMeter
{
    private static final Pattern APPLIED = Pattern.compile("outcomes\\s+applied ([0-9,]+)");

    private final LongSupplier postgresCpuNs;
    private long jvmStartNs = -1;
    private long postgresStartNs;
    private long transfers;
    private CompareReport.CpuCost cost = CompareReport.CpuCost.UNKNOWN;

    /** @param postgresCpuNs the CPU of the system's PostgreSQL, ns; null when it has none. */
    CpuMeter(final LongSupplier postgresCpuNs)
    {
        this.postgresCpuNs = postgresCpuNs;
    }

    /** Starts the measurement now. */
    void start()
    {
        jvmStartNs = ProcessCpu.jvmNs();
        postgresStartNs = postgresCpuNs == null ? 0 : postgresCpuNs.getAsLong();
    }

    /** Reads one line of the load generator's report: the transfers applied, then ends the measurement there. */
    void onLine(final String line)
    {
        final Matcher applied = APPLIED.matcher(line);
        if (jvmStartNs >= 0 && applied.find())
        {
            transfers = Long.parseLong(applied.group(1).replace(",", ""));
            remeasure();
        }
    }

    /** Ends the measurement now (the same transfers, the CPU used up to this moment). */
    void remeasure()
    {
        if (jvmStartNs < 0)
        {
            return;
        }
        final double jvmNs = ProcessCpu.jvmNs() - jvmStartNs;
        final double postgresNs = postgresCpuNs == null ? 0 : postgresCpuNs.getAsLong() - postgresStartNs;
        cost = transfers <= 0 ? CompareReport.CpuCost.UNKNOWN :
            new CompareReport.CpuCost(jvmNs / 1_000.0 / transfers, postgresNs / 1_000.0 / transfers, transfers);
    }

    CompareReport.CpuCost cost()
    {
        return cost;
    }
}
