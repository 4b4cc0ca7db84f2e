package dev.tally.server;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Which garbage collector this JVM runs, for the start-up log and benchmark reports.
 *
 * <p>Why it is worth a line: on a 2-core machine the collector is a large part of the CPU a request costs.
 * The JVM picks G1 on any machine with 2 cores and 2 GB; its write barriers, card refinement and concurrent
 * threads cost Tally about a quarter more CPU per {@code uniform} request than {@code -XX:+UseParallelGC}
 * (median 41.0 against 32.5 µs, docs/benchmarks/history/2026-12-01-parallel-gc.md; docs/CONFIG.md, "JVM"). A jar's
 * manifest cannot choose a collector, so the launch commands pass the flag, and this says which one a process got.
 */
public final class GarbageCollector
{
    private GarbageCollector()
    {
    }

    /** @return the collector's own names, e.g. {@code PS MarkSweep + PS Scavenge} or {@code G1 Young Generation + G1 Old Generation}. */
    public static String names()
    {
        return names(ManagementFactory.getGarbageCollectorMXBeans());
    }

    static String names(final List<GarbageCollectorMXBean> collectors)
    {
        return collectors.stream().map(GarbageCollectorMXBean::getName).collect(Collectors.joining(" + "));
    }

    /** @return whether this JVM runs G1 (the JVM's default on a server-class machine, not Tally's). */
    public static boolean isG1()
    {
        return isG1(names());
    }

    static boolean isG1(final String names)
    {
        return names.startsWith("G1 ");
    }
}
