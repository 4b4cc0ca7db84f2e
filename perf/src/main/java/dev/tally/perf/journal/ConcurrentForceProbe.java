package dev.tally.perf.journal;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Would a second {@code fdatasync} in flight shorten group commit? Appends into one memory-mapped,
 * zero-filled file from 1, 2 or 3 threads, each forcing the file after its own append, and prints the forces
 * per second, their mean latency and the forcing threads' CPU per force
 * (docs/benchmarks/history/2026-11-30-second-fdatasync-in-flight.md).
 * If the file system overlapped the forces, two threads would do about twice the forces of one at the same
 * latency.
 *
 * <pre>
 * java -cp perf/target/benchmarks.jar dev.tally.perf.journal.ConcurrentForceProbe FILE SECONDS_PER_RUN APPEND_BYTES
 * </pre>
 */
public final class ConcurrentForceProbe
{
    private static final long FILE_BYTES = 512L << 20;

    private ConcurrentForceProbe()
    {
    }

    public static void main(final String[] args) throws IOException, InterruptedException
    {
        final Path file = Path.of(args[0]);
        final int seconds = Integer.parseInt(args[1]);
        final int appendBytes = Integer.parseInt(args[2]);
        for (final int threads : new int[] {1, 2, 1, 2, 3})
        {
            run(file, threads, seconds, appendBytes);
        }
        Files.deleteIfExists(file);
    }

    private static void run(final Path file, final int threads, final int seconds, final int appendBytes)
        throws IOException, InterruptedException
    {
        Files.deleteIfExists(file);
        ZeroFillProbe.prepare("zero-filled", file, FILE_BYTES);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            final FileChannel channel = raf.getChannel();
            final MappedByteBuffer map = channel.map(FileChannel.MapMode.READ_WRITE, 0, FILE_BYTES);
            final AtomicLong appendAt = new AtomicLong();
            final AtomicLong forces = new AtomicLong();
            final AtomicLong forceNanos = new AtomicLong();
            final AtomicLong cpuNanos = new AtomicLong();
            final long end = System.nanoTime() + seconds * 1_000_000_000L;
            final Thread[] forcers = new Thread[threads];
            for (int t = 0; t < threads; t++)
            {
                forcers[t] = new Thread(() ->
                {
                    final MappedByteBuffer view = map.duplicate();
                    final long cpuAtStart = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
                    while (System.nanoTime() < end && appendAt.get() + appendBytes < FILE_BYTES)
                    {
                        final int at = (int)appendAt.getAndAdd(appendBytes);
                        for (int i = 0; i + 8 <= appendBytes; i += 8)
                        {
                            view.putLong(at + i, at + i + 1);
                        }
                        final long start = System.nanoTime();
                        try
                        {
                            channel.force(false);
                        }
                        catch (final IOException e)
                        {
                            throw new IllegalStateException(e);
                        }
                        forceNanos.addAndGet(System.nanoTime() - start);
                        forces.incrementAndGet();
                    }
                    cpuNanos.addAndGet(ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpuAtStart);
                });
                forcers[t].start();
            }
            for (final Thread forcer : forcers)
            {
                forcer.join();
            }
            final long count = Math.max(1, forces.get());
            System.out.printf(Locale.ROOT, "%d thread(s): %,d forces/s, mean %.0f us, CPU %.0f us per append + force%n",
                threads, forces.get() / seconds, forceNanos.get() / 1e3 / count, cpuNanos.get() / 1e3 / count);
        }
    }
}
