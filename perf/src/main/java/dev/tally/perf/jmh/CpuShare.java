package dev.tally.perf.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * How much of each iteration's wall time the benchmark thread actually ran on a CPU. On a shared
 * machine another build can take the core away; JMH then reports a lower throughput that says nothing
 * about the code. A share near 1.00 marks an iteration as clean; a lower one says by how much it was
 * squeezed.
 *
 * <p>Allocation-free while measuring (two clock reads per iteration into pre-allocated arrays); it only
 * builds text when asked.
 */
final class CpuShare
{
    /** Iterations remembered per fork; later ones are not recorded. */
    static final int ITERATIONS_MAX = 256;

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final long[] cpuNs = new long[ITERATIONS_MAX];
    private final long[] wallNs = new long[ITERATIONS_MAX];
    private int iterationCount;
    private long startCpuNs;
    private long startWallNs;

    /** Call on the benchmark thread when an iteration starts. */
    void start()
    {
        startWallNs = System.nanoTime();
        startCpuNs = threads.getCurrentThreadCpuTime();
    }

    /** Call on the benchmark thread when the iteration ends. */
    void stop()
    {
        final long cpu = threads.getCurrentThreadCpuTime() - startCpuNs;
        final long wall = System.nanoTime() - startWallNs;
        if (iterationCount < ITERATIONS_MAX)
        {
            cpuNs[iterationCount] = cpu;
            wallNs[iterationCount] = wall;
            iterationCount++;
        }
    }

    /** @return the share of each recorded iteration, warmup first, as text. */
    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder("cpu share per iteration (warmup first):");
        for (int i = 0; i < iterationCount; i++)
        {
            text.append(String.format(" %.2f", wallNs[i] == 0 ? 0.0 : (double)cpuNs[i] / wallNs[i]));
        }
        return text.toString();
    }
}
