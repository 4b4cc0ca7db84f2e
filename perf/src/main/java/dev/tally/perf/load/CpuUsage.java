package dev.tally.perf.load;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Where the CPU went during the measured window, by thread role: the load client, the server's Netty
 * I/O thread(s), the three pipeline stages, Tally's PostgreSQL writer (its own CPU, not PostgreSQL's), the peer's
 * JDBC threads, and the rest of the JVM (GC, JIT). With {@code bench} the
 * server runs in this process, so this splits the two cores between client and server stages; with
 * {@code run} only the client's share is known. Also counts context switches per role (Linux
 * {@code /proc/self/task}), which is what a blocking wait strategy costs per ring hop, the share of
 * each role's CPU spent in the kernel (system calls, loopback TCP), and how busy
 * the whole machine was ({@code /proc/stat}: other tenants of a shared machine show up here).
 */
final class CpuUsage
{
    /** Thread roles, in report order, by Java thread name prefix. */
    private static final String[][] ROLES = {
        {"load client", "tally-load"},
        {"server netty I/O", "multiThreadIoEventLoopGroup"},
        {"journaler", "tally-journaler"},
        {"business", "tally-business"},
        {"responder", "tally-responder"},
        {"PostgreSQL writer", "tally-pg-writer"},
        {"peer JDBC threads", "peer-jdbc-"},
    };
    /** The same roles by Linux thread name ({@code comm}, cut to 15 characters). */
    private static final String[] COMM_PREFIXES = {"tally-load", "multiThreadIoEv", "tally-journaler", "tally-business", "tally-responder",
        "tally-pg-writer", "peer-jdbc-"};

    // Counters per role: JVM thread CPU ns, voluntary and involuntary context switches, user and system ticks.
    private static final int CPU_NS = 0;
    private static final int VOLUNTARY = 1;
    private static final int INVOLUNTARY = 2;
    private static final int USER_TICKS = 3;
    private static final int SYSTEM_TICKS = 4;
    private static final int COUNTERS = 5;

    private final Map<String, long[]> byRole = new LinkedHashMap<>();
    private final long processCpuNs;
    private final long wallNs;
    private final long[] machineTicks;

    private CpuUsage()
    {
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (final String[] role : ROLES)
        {
            byRole.put(role[0], new long[COUNTERS]);
        }
        byRole.put("other java threads", new long[COUNTERS]);
        for (final ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds()))
        {
            if (info == null)
            {
                continue;
            }
            final long cpu = threads.getThreadCpuTime(info.getThreadId());
            if (cpu > 0)
            {
                byRole.get(roleOf(info.getThreadName()))[CPU_NS] += cpu;
            }
        }
        readContextSwitches();
        processCpuNs = processCpuNs();
        wallNs = System.nanoTime();
        machineTicks = machineTicks();
    }

    /** @return the counters now. */
    static CpuUsage snapshot()
    {
        return new CpuUsage();
    }

    /**
     * @param before   the snapshot at the start of the window.
     * @param requests requests completed in the window (for per-request figures).
     * @return a table of CPU and context switches by role between {@code before} and this snapshot.
     */
    String reportSince(final CpuUsage before, final long requests)
    {
        final double wallSeconds = (wallNs - before.wallNs) / 1e9;
        final StringBuilder text = new StringBuilder();
        text.append(String.format(Locale.ROOT, "  %-22s %9s %9s %12s %9s %12s %12s%n", "thread role", "cpu s", "cores", "cpu us/req",
            "kernel", "vol cs/req", "invol cs/req"));
        long javaThreadsNs = 0;
        for (final Map.Entry<String, long[]> entry : byRole.entrySet())
        {
            final long[] now = entry.getValue();
            final long[] then = before.byRole.get(entry.getKey());
            final long cpuNs = now[CPU_NS] - then[CPU_NS];
            javaThreadsNs += cpuNs;
            final long user = now[USER_TICKS] - then[USER_TICKS];
            final long system = now[SYSTEM_TICKS] - then[SYSTEM_TICKS];
            text.append(line(entry.getKey(), cpuNs, wallSeconds, requests, user + system > 0 ? 100 * system / (user + system) : -1,
                now[VOLUNTARY] - then[VOLUNTARY], now[INVOLUNTARY] - then[INVOLUNTARY]));
        }
        final long processNs = processCpuNs - before.processCpuNs;
        if (processNs > 0)
        {
            text.append(line("jvm (gc, jit, ...)", Math.max(0, processNs - javaThreadsNs), wallSeconds, requests, -1, -1, -1));
            text.append(line("whole process", processNs, wallSeconds, requests, -1, -1, -1));
        }
        if (machineTicks != null && before.machineTicks != null)
        {
            final long busy = machineTicks[0] - before.machineTicks[0];
            final long total = machineTicks[1] - before.machineTicks[1];
            final long steal = machineTicks[2] - before.machineTicks[2];
            final int cores = Runtime.getRuntime().availableProcessors();
            if (total > 0)
            {
                text.append(String.format(Locale.ROOT, "  whole machine: %.2f of %d cores busy (%.0f%% steal); what this process did not use was other work%n",
                    cores * (double)busy / total, cores, 100.0 * steal / total));
            }
        }
        return text.toString();
    }

    private static String line(
        final String role, final long cpuNs, final double wallSeconds, final long requests, final long kernelPercent, final long voluntary,
        final long involuntary)
    {
        final double perRequestUs = requests > 0 ? cpuNs / 1e3 / requests : 0;
        return String.format(Locale.ROOT, "  %-22s %9.2f %9.2f %12.2f %9s %12s %12s%n", role, cpuNs / 1e9, cpuNs / 1e9 / wallSeconds,
            perRequestUs, kernelPercent < 0 ? "-" : kernelPercent + "%", perRequest(voluntary, requests), perRequest(involuntary, requests));
    }

    private static String perRequest(final long count, final long requests)
    {
        return count < 0 || requests <= 0 ? "-" : String.format(Locale.ROOT, "%.3f", (double)count / requests);
    }

    private static String roleOf(final String threadName)
    {
        for (final String[] role : ROLES)
        {
            if (threadName.startsWith(role[1]))
            {
                return role[0];
            }
        }
        return "other java threads";
    }

    private void readContextSwitches()
    {
        final Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks))
        {
            return;
        }
        try (Stream<Path> list = Files.list(tasks))
        {
            list.forEach(this::addContextSwitches);
        }
        catch (final IOException | RuntimeException ex)
        {
            // Not Linux, or a thread ended while listing: context switches are left out.
        }
    }

    private void addContextSwitches(final Path task)
    {
        try
        {
            final String comm = Files.readString(task.resolve("comm")).trim();
            String role = "other java threads";
            for (int i = 0; i < COMM_PREFIXES.length; i++)
            {
                if (comm.startsWith(COMM_PREFIXES[i]))
                {
                    role = ROLES[i][0];
                }
            }
            final long[] counters = byRole.get(role);
            for (final String line : Files.readAllLines(task.resolve("status")))
            {
                if (line.startsWith("voluntary_ctxt_switches:"))
                {
                    counters[VOLUNTARY] += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
                else if (line.startsWith("nonvoluntary_ctxt_switches:"))
                {
                    counters[INVOLUNTARY] += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
            // /proc/PID/task/TID/stat: fields 14 and 15 are user and system time in clock ticks (after the comm in parentheses).
            final String stat = Files.readString(task.resolve("stat"));
            final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            counters[USER_TICKS] += Long.parseLong(fields[11]);
            counters[SYSTEM_TICKS] += Long.parseLong(fields[12]);
        }
        catch (final IOException | RuntimeException ex)
        {
            // The thread ended between listing and reading.
        }
    }

    private static long processCpuNs()
    {
        final java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean)
        {
            return ((com.sun.management.OperatingSystemMXBean)os).getProcessCpuTime();
        }
        return -1;
    }

    /** @return busy, total and steal ticks of the whole machine from /proc/stat, or null. */
    private static long[] machineTicks()
    {
        try
        {
            final String cpu = Files.readAllLines(Path.of("/proc/stat")).get(0);
            final String[] fields = cpu.trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < fields.length; i++)
            {
                total += Long.parseLong(fields[i]);
            }
            final long idle = Long.parseLong(fields[4]) + Long.parseLong(fields[5]);
            final long steal = fields.length > 8 ? Long.parseLong(fields[8]) : 0;
            return new long[] {total - idle, total, steal};
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }
}
