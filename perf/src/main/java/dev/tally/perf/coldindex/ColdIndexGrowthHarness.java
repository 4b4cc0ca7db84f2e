package dev.tally.perf.coldindex;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.tally.coldindex.ColdIndex;
import dev.tally.coldindex.ColdIndexConfig;
import dev.tally.coldindex.ColdReader;
import dev.tally.coldindex.ColdWriter;
import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.cold.ColdAsks;
import dev.tally.perf.jmh.ColdIndexBenchmark;

/**
 * How the cold index's cost per transfer grows as it fills, without a server: the soak's cold-index work at full
 * speed on one thread, measured by the process's CPU time (RocksDB's flush and compaction threads included) per
 * segment of transfers. Per transfer, as {@code soak.sh}'s loads ask: the journal stage's lookup of a new key (in
 * {@code multiGet}s of {@code lookupBatch}) for one transfer in {@code keyEvery}, then the cold writer's puts of that key
 * and of the transfer, committed (synced write-ahead log) every {@code commit} transfers.
 *
 * <pre>
 * java -cp perf/target/benchmarks.jar dev.tally.perf.coldindex.ColdIndexGrowthHarness transfers=40000000 keyEvery=1
 * </pre>
 * {@code keyEvery=1} is a key per transfer ({@code uniform}), {@code keyEvery=100} a key per 100 transfers; {@code
 * lookups=false} leaves the lookups out (what the puts and commits cost alone). Prints a line per segment: transfers
 * filed so far, the segment's rate, and the process's, the foreground thread's and the other threads' (RocksDB's flush
 * and compaction) CPU microseconds per transfer; docs/BENCHMARKS.md, "Bounded memory", has its figures.
 */
public final class ColdIndexGrowthHarness
{
    private static final long T0 = 1_767_225_600_000_000_000L;

    private ColdIndexGrowthHarness()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        final Map<String, String> a = new HashMap<>();
        for (final String arg : args)
        {
            final int eq = arg.indexOf('=');
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        final long transfers = Long.parseLong(a.getOrDefault("transfers", "40000000"));
        final long segment = Long.parseLong(a.getOrDefault("segment", "2000000"));
        final int keyEvery = Integer.parseInt(a.getOrDefault("keyEvery", "1"));
        final int commit = Integer.parseInt(a.getOrDefault("commit", "2000"));
        final int lookupBatch = Integer.parseInt(a.getOrDefault("lookupBatch", "64"));
        final Path dir = Path.of(a.getOrDefault("dir", "target/cold-growth"));
        final boolean lookups = Boolean.parseBoolean(a.getOrDefault("lookups", "true"));
        clear(dir);
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean)ManagementFactory.getOperatingSystemMXBean();
        try (ColdIndex index = ColdIndex.open(ColdIndexConfig.of(dir, TimeUnit.HOURS.toNanos(24)));
             ColdReader reader = index.reader();
             ColdWriter writer = index.writer())
        {
            final ColdAsks asks = new ColdAsks();
            final long[] key = new long[LedgerLimits.COLD_KEY_LONGS];
            final long[] transfer = new long[LedgerLimits.COLD_TRANSFER_LONGS];
            final long[] found = new long[LedgerLimits.COLD_TRANSFER_LONGS];
            long segmentStartNs = System.nanoTime();
            long segmentCpu = os.getProcessCpuTime();
            long segmentThreadCpu = threads.getCurrentThreadCpuTime();
            long keysFound = 0;
            System.out.println("transfers_M,rate_per_s,cpu_us,foreground_us,background_us");
            for (long i = 1; i <= transfers; i++)
            {
                if (lookups && (i - 1) % ((long)lookupBatch * keyEvery) == 0)
                {
                    asks.clear();
                    for (long k = i; k < i + (long)lookupBatch * keyEvery; k += keyEvery)
                    {
                        asks.addKey(ColdIndexBenchmark.digestHi(k), ColdIndexBenchmark.digestLo(k));
                    }
                    reader.prefetch(asks);
                }
                if (i % keyEvery == 0 || keyEvery == 1)
                {
                    keysFound += lookups && reader.findKey(ColdIndexBenchmark.digestHi(i), ColdIndexBenchmark.digestLo(i), found) ? 1 : 0;
                    key[0] = i;
                    key[1] = T0 + i;
                    writer.key(ColdIndexBenchmark.digestHi(i), ColdIndexBenchmark.digestLo(i), key);
                }
                transfer[0] = i;
                transfer[1] = T0 + i;
                transfer[2] = i * 31;
                writer.transfer(i, transfer);
                if (i % commit == 0)
                {
                    writer.commit(i, T0 + i);
                }
                if (i % segment == 0)
                {
                    final long now = System.nanoTime();
                    final long cpu = os.getProcessCpuTime();
                    final long threadCpu = threads.getCurrentThreadCpuTime();
                    final double perTransfer = 1e-3 / segment;
                    System.out.printf(Locale.ROOT, "%.1f,%.0f,%.2f,%.2f,%.2f%n", i / 1e6, segment * 1e9 / (now - segmentStartNs),
                        (cpu - segmentCpu) * perTransfer, (threadCpu - segmentThreadCpu) * perTransfer,
                        (cpu - segmentCpu - threadCpu + segmentThreadCpu) * perTransfer);
                    segmentStartNs = now;
                    segmentCpu = cpu;
                    segmentThreadCpu = threadCpu;
                }
            }
            writer.commit(transfers, T0 + transfers);
            System.out.println("keys found (must be 0): " + keysFound + "; folder " + size(dir) / (1 << 20) + " MiB");
        }
    }

    private static long size(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private static void clear(final Path dir) throws IOException
    {
        if (Files.exists(dir))
        {
            try (Stream<Path> files = Files.walk(dir))
            {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
