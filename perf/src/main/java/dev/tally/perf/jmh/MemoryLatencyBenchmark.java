package dev.tally.perf.jmh;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Calibrates the napkin math of docs/BENCHMARKS.md: what one dependent random load costs on this
 * machine, by working-set size. One operation is one load whose address comes from the previous load
 * (a pointer chase through a single random cycle), so nothing overlaps and no prefetcher helps: the
 * time per operation is the latency of the level the working set lives in (L1, L2, L3, DRAM, and past
 * the TLB's reach, DRAM plus a page walk).
 *
 * <pre>
 *   next[] = one random cycle over all slots:  p -> next[p] -> next[next[p]] -> ...
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g", "-Dchronicle.analytics.disable=true"})
@Warmup(iterations = 2, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Threads(1)
@State(Scope.Thread)
public class MemoryLatencyBenchmark
{
    /** Dependent loads per invocation. */
    static final int LOADS_PER_INVOCATION = 1 << 16;
    /** Bytes per slot of the chase array. */
    static final int SLOT_BYTES = Integer.BYTES;

    /** Working set in KiB: 16 (L1), 1024 (L2), 8192 (L3), 65536 (DRAM), 1048576 (DRAM, far past the TLB). */
    @Param({"16", "1024", "8192", "65536", "1048576"})
    public int workingSetKiB;

    private int[] next;
    private int position;

    /** Builds one random cycle through every slot (Sattolo's shuffle), so the chase visits them all. */
    @Setup(Level.Trial)
    public void setUp()
    {
        final int slots = (int)(workingSetKiB * 1024L / SLOT_BYTES);
        next = new int[slots];
        for (int i = 0; i < slots; i++)
        {
            next[i] = i;
        }
        final SplittableRandom random = new SplittableRandom(7);
        for (int i = slots - 1; i > 0; i--)
        {
            final int j = random.nextInt(i);
            final int swap = next[i];
            next[i] = next[j];
            next[j] = swap;
        }
    }

    /** @return the position reached, so that the chase is not dead code. */
    @Benchmark
    @OperationsPerInvocation(LOADS_PER_INVOCATION)
    public int dependentLoad()
    {
        final int[] chase = next;
        int p = position;
        for (int i = 0; i < LOADS_PER_INVOCATION; i++)
        {
            p = chase[p];
        }
        position = p;
        return p;
    }
}
