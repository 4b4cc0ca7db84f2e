package dev.tally.perf.load;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time used so far, for the CPU cost per transfer: a figure that a shared, busy machine distorts far
 * less than throughput (another job that takes the cores lowers a run's transfers per second, but
 * hardly the CPU each transfer costs).
 *
 * <ul>
 *   <li>this JVM: {@code getProcessCpuTime()} (the server under test, and the load generator);</li>
 *   <li>a PostgreSQL server: the postmaster and every process it started, from {@code /proc/PID/stat}
 *       ({@code utime + stime} of the living ones, plus the postmaster's {@code cutime + cstime}, which
 *       hold what its exited children used), in clock ticks of 10 ms.</li>
 * </ul>
 */
public final class ProcessCpu
{
    private static final long NS_PER_TICK = 10_000_000L;

    private ProcessCpu()
    {
    }

    /** @return CPU time of this JVM, ns; -1 where the JVM does not report it. */
    public static long jvmNs()
    {
        final java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean)
        {
            return ((com.sun.management.OperatingSystemMXBean)os).getProcessCpuTime();
        }
        return -1;
    }

    /** @return CPU time of the postmaster {@code postmasterPid} and all its children, ns; -1 when /proc cannot tell. */
    public static long postgresNs(final long postmasterPid)
    {
        final Path proc = Path.of("/proc");
        if (postmasterPid <= 0 || !Files.isDirectory(proc))
        {
            return -1;
        }
        long ticks = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(proc, "[0-9]*"))
        {
            for (final Path entry : entries)
            {
                final String[] fields = statFields(entry.resolve("stat"));
                if (fields == null)
                {
                    continue;
                }
                final long pid = Long.parseLong(entry.getFileName().toString());
                final long parent = Long.parseLong(fields[1]);
                if (pid == postmasterPid)
                {
                    // utime, stime, cutime, cstime: fields 14-17 of stat, 11-14 after the command
                    ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]) + Long.parseLong(fields[13]) + Long.parseLong(fields[14]);
                }
                else if (parent == postmasterPid)
                {
                    ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
        return ticks * NS_PER_TICK;
    }

    /** @return the fields of a stat file after the command name (state first), or null when the process is gone. */
    private static String[] statFields(final Path stat)
    {
        try
        {
            final String text = Files.readString(stat);
            return text.substring(text.lastIndexOf(')') + 2).split(" ");
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }
}
