package dev.tally.coldindex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cold-index writer JVM killed with SIGKILL keeps every commit it acknowledged, and its watermark says how far. */
class ColdIndexCrashTest
{
    private static final long T0 = 1_767_225_600_000_000_000L;
    private static final int ACKS_BEFORE_KILL = 300;

    @TempDir
    Path dir;

    private static String read(final Path file)
    {
        try
        {
            return java.nio.file.Files.readString(file);
        }
        catch (final java.io.IOException ex)
        {
            return ex.toString();
        }
    }

    @Test
    void shouldKeepEveryAcknowledgedCommitOfAKilledWriter() throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        for (final String argument : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports"))
            {
                command.add(argument);   // what Agrona needs, as the test JVM has it
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ColdIndexCrashChild.class.getName());
        command.add(dir.resolve("cold").toString());
        command.add(Long.toString(T0));
        final Path stderr = dir.resolve("child-stderr.txt");
        final Process child = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        final AtomicLong acks = new AtomicLong();
        final AtomicLong lastAcked = new AtomicLong();
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII)))
            {
                for (String line = lines.readLine(); line != null; line = lines.readLine())
                {
                    if (line.startsWith("ACK "))
                    {
                        lastAcked.set(Long.parseLong(line.substring(4)));
                        acks.incrementAndGet();
                    }
                }
            }
            catch (final java.io.IOException ignored)
            {
                // the child died: what it acknowledged is counted
            }
        });
        reader.start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (acks.get() < ACKS_BEFORE_KILL && child.isAlive() && System.nanoTime() < deadline)
        {
            Thread.sleep(1);
        }
        assertTrue(child.isAlive(), () -> "the writer died before the kill: " + read(stderr));
        child.destroyForcibly();
        assertTrue(child.waitFor(10, TimeUnit.SECONDS));
        reader.join(10_000);
        assertEquals(137, child.exitValue(), "killed by SIGKILL");

        try (ColdIndex index = ColdIndex.open(ColdIndexConfig.of(dir.resolve("cold"), TimeUnit.HOURS.toNanos(24)));
             ColdReader cold = index.reader())
        {
            final long watermark = index.watermarkIndex();
            assertTrue(watermark >= lastAcked.get(), "watermark " + watermark + " below the last acknowledged " + lastAcked.get());
            final long[] record = new long[ColdRecords.TRANSFER_LONGS];
            for (long journalIndex = 1; journalIndex <= watermark; journalIndex++)
            {
                assertTrue(cold.findTransfer(journalIndex, record), "transfer " + journalIndex + " at or below the watermark");
                assertEquals(journalIndex, record[0]);
                assertTrue(cold.findKey(journalIndex, -journalIndex, record), "key " + journalIndex);
            }
        }
    }
}
