package dev.tally.perf.jmh;

import dev.tally.coldindex.ColdIndex;
import dev.tally.coldindex.ColdIndexConfig;
import dev.tally.coldindex.ColdReader;
import dev.tally.coldindex.ColdWriter;
import dev.tally.ledger.LedgerLimits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the cold index costs the two threads that touch it, on a real RocksDB on disk holding {@code filed} keys,
 * references and transfers (flushed to files, as after some minutes of traffic):
 * <ul>
 *   <li>the journal stage, per command: {@link #lookUpANewKey} (almost every command: a key never seen, which the
 *   bloom filters turn away), {@link #lookUpAFiledKey} (a retry of a key memory let go), {@link #lookUpATransfer}
 *   (a transfer with a reference: its key and its reference, both new);</li>
 *   <li>the cold index's writer, per transfer: {@link #fileTransfers}, a key, a reference and a transfer put into a
 *   write batch, {@value #TRANSFERS_PER_COMMIT} transfers to a commit through a synced write-ahead log.</li>
 * </ul>
 * Run: {@code java -jar perf/target/benchmarks.jar ColdIndexBenchmark -prof gc}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-XX:+UseParallelGC", "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED"})
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 3, timeUnit = TimeUnit.SECONDS)
@Threads(1)
@State(Scope.Thread)
public class ColdIndexBenchmark
{
    static final int TRANSFERS_PER_COMMIT = 4_096;
    private static final long T0 = 1_767_225_600_000_000_000L;

    /** Keys, references and transfers filed before measuring. */
    @Param({"1000000"})
    int filed;

    private Path dir;
    private ColdIndex index;
    private ColdReader reader;
    private ColdWriter writer;
    private final long[] key = new long[LedgerLimits.COLD_KEY_LONGS];
    private final long[] transfer = new long[LedgerLimits.COLD_TRANSFER_LONGS];
    private final long[] into = new long[LedgerLimits.COLD_TRANSFER_LONGS];
    private final SplittableRandom random = new SplittableRandom(42);
    private long nextIndex;

    @Setup(Level.Trial)
    public void fill() throws IOException
    {
        dir = Files.createTempDirectory("tally-cold-bench");
        index = ColdIndex.open(ColdIndexConfig.of(dir, TimeUnit.HOURS.toNanos(24)));
        reader = index.reader();
        writer = index.writer();
        for (long i = 1; i <= filed; i++)
        {
            fileOne(i);
            if (i % 100_000 == 0)
            {
                writer.commit(i, T0 + i);
            }
        }
        writer.commit(filed, T0 + filed);
        nextIndex = filed + 1;
    }

    private void fileOne(final long i)
    {
        key[0] = i;
        transfer[0] = i;
        writer.key(digestHi(i), digestLo(i), key);
        writer.reference(~digestHi(i), digestLo(i), i, T0 + i);
        writer.transfer(i, transfer);
    }

    /** A digest as SHA-256 gives them: every bit even, so the keys spread over the whole key space. */
    public static long digestHi(final long i)
    {
        return mix(i * 0x9E3779B97F4A7C15L);
    }

    /** The other half of {@link #digestHi}'s digest. */
    public static long digestLo(final long i)
    {
        return mix(i ^ 0xC2B2AE3D27D4EB4FL);
    }

    private static long mix(final long z0)
    {
        long z = (z0 ^ (z0 >>> 33)) * 0xFF51AFD7ED558CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return z ^ (z >>> 33);
    }

    @Benchmark
    public boolean lookUpANewKey()
    {
        final long never = filed + 1 + random.nextLong(Long.MAX_VALUE - filed - 1);
        return reader.findKey(digestHi(never), digestLo(never), into);
    }

    @Benchmark
    public boolean lookUpAFiledKey()
    {
        final long i = 1 + random.nextInt(filed);
        return reader.findKey(digestHi(i), digestLo(i), into);
    }

    /** A transfer with a reference: the journal stage asks about its key and its reference, both new. */
    @Benchmark
    public boolean lookUpATransfer()
    {
        final long never = filed + 1 + random.nextLong(Long.MAX_VALUE - filed - 1);
        return reader.findKey(digestHi(never), digestLo(never), into) | reader.findReference(~digestHi(never), digestLo(never), into);
    }

    @Benchmark
    @OperationsPerInvocation(TRANSFERS_PER_COMMIT)
    public long fileTransfers()
    {
        for (int i = 0; i < TRANSFERS_PER_COMMIT; i++)
        {
            fileOne(nextIndex++);
        }
        writer.commit(nextIndex - 1, T0 + nextIndex);
        return nextIndex;
    }

    @TearDown(Level.Trial)
    public void close() throws IOException
    {
        writer.close();
        reader.close();
        index.close();
        try (Stream<Path> paths = Files.walk(dir))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }
}
