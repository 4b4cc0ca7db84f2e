package dev.tally.perf.journal;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;

/**
 * Why the journal's {@code AheadZeroFill} exists: times appends into a memory-mapped file and the {@code fdatasync}
 * after each batch, for a file that is sparse (as Chronicle grows its queue files), {@code fallocate}d,
 * or zero-filled and forced beforehand (see docs/JOURNAL.md, "Zero-fill ahead").
 *
 * <pre>
 * java -cp perf/target/benchmarks.jar dev.tally.perf.journal.ZeroFillProbe DIR RECORD_BYTES RECORDS_PER_BATCH BATCHES
 * </pre>
 *
 * <p>Two rounds of the three layouts; one line each with the p50/p99/p99.9/max of a batch's appends and
 * of its {@code fdatasync}. Uses the {@code fallocate} command for the middle layout.
 */
public final class ZeroFillProbe
{
    private static final String[] LAYOUTS = {"sparse", "fallocated", "zero-filled"};

    private ZeroFillProbe()
    {
    }

    public static void main(final String[] args) throws IOException, InterruptedException
    {
        final Path dir = Path.of(args[0]);
        final int recordBytes = Integer.parseInt(args[1]);
        final int perBatch = Integer.parseInt(args[2]);
        final int batches = Integer.parseInt(args[3]);
        Files.createDirectories(dir);
        for (int round = 0; round < 2; round++)
        {
            for (final String layout : LAYOUTS)
            {
                final Path file = dir.resolve("probe-" + layout);
                Files.deleteIfExists(file);
                final long size = (long)recordBytes * perBatch * batches + (1 << 20);
                prepare(layout, file, size);
                System.out.println(measure(layout, file, size, recordBytes, perBatch, batches));
                Files.deleteIfExists(file);
            }
        }
    }

    /** Lays {@code file} out as {@code layout} ({@link #LAYOUTS}); also the zero-filled file of {@code ConcurrentForceProbe}. */
    static void prepare(final String layout, final Path file, final long size) throws IOException, InterruptedException
    {
        switch (layout)
        {
            case "sparse":
                try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
                {
                    raf.setLength(size);
                }
                break;
            case "fallocated":
                final Process fallocate = new ProcessBuilder("fallocate", "-l", Long.toString(size), file.toString()).inheritIO().start();
                if (fallocate.waitFor() != 0)
                {
                    throw new IOException("fallocate failed");
                }
                break;
            default:
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE))
                {
                    final ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
                    for (long at = 0; at < size; at += zeros.capacity())
                    {
                        zeros.clear();
                        channel.write(zeros, at);
                    }
                    channel.force(true);
                }
                break;
        }
    }

    private static String measure(final String layout, final Path file, final long size, final int recordBytes, final int perBatch,
        final int batches) throws IOException
    {
        final long[] appendNs = new long[batches];
        final long[] flushNs = new long[batches];
        final byte[] record = new byte[recordBytes];
        Arrays.fill(record, (byte)7);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final MappedByteBuffer map = channel.map(FileChannel.MapMode.READ_WRITE, 0, size);
            int position = 0;
            for (int batch = 0; batch < batches; batch++)
            {
                final long start = System.nanoTime();
                for (int i = 0; i < perBatch; i++)
                {
                    map.put(position, record);
                    position += recordBytes;
                }
                final long appended = System.nanoTime();
                channel.force(false);
                appendNs[batch] = appended - start;
                flushNs[batch] = System.nanoTime() - appended;
            }
        }
        return String.format(Locale.ROOT, "%-11s %d B x %d per batch: appends %s | fdatasync %s (us: p50 p99 p99.9 max)",
            layout, recordBytes, perBatch, percentiles(appendNs), percentiles(flushNs));
    }

    private static String percentiles(final long[] ns)
    {
        Arrays.sort(ns);
        final int n = ns.length;
        return String.format(Locale.ROOT, "%.0f %.0f %.0f %.0f", ns[n / 2] / 1e3, ns[n * 99 / 100] / 1e3, ns[n * 999 / 1000] / 1e3,
            ns[n - 1] / 1e3);
    }
}
