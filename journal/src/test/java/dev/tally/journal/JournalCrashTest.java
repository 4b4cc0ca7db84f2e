package dev.tally.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Kills a real journaler JVM (SIGKILL) and checks that every acknowledged command is replayed. */
class JournalCrashTest
{
    /** Acks to see before the kill: SYNC acks one flush of 8 commands (~0.3 ms each), ASYNC one append. */
    private static final int ASYNC_ACK_COUNT_BEFORE_KILL = 20_000;
    private static final int SYNC_ACK_COUNT_BEFORE_KILL = 2_000;
    private static final long CHILD_TIMEOUT_MS = 30_000;

    @TempDir
    Path tempDir;

    private Path journalDir()
    {
        return tempDir.resolve("journal");
    }

    private Path stderrFile()
    {
        return tempDir.resolve("child-stderr.txt");
    }

    @ParameterizedTest
    @EnumSource(Durability.class)
    void shouldReplayEveryAcknowledgedCommandAfterProcessIsKilled(final Durability durability) throws Exception
    {
        final int ackCountBeforeKill =
            Durability.SYNC == durability ? SYNC_ACK_COUNT_BEFORE_KILL : ASYNC_ACK_COUNT_BEFORE_KILL;
        final Process child = startChild(durability.name());
        final AtomicLong ackCount = new AtomicLong();
        final AtomicLong maxAckedIndex = new AtomicLong();
        final Thread drain = new Thread(() -> readAcks(child, ackCount, maxAckedIndex), "child-stdout");
        drain.start();

        final long deadlineMs = System.currentTimeMillis() + CHILD_TIMEOUT_MS;
        while (ackCount.get() < ackCountBeforeKill && child.isAlive() && System.currentTimeMillis() < deadlineMs)
        {
            Thread.sleep(1);
        }
        assertTrue(child.isAlive(), "child died early: " + stderrOf());
        child.destroyForcibly();
        assertTrue(child.waitFor(10, TimeUnit.SECONDS));
        drain.join(10_000);
        assertEquals(137, child.exitValue(), "exit by SIGKILL");
        assertTrue(ackCount.get() >= ackCountBeforeKill, "acks " + ackCount.get());

        try (Journal journal = Journal.open(journalDir(), durability))
        {
            final long acked = maxAckedIndex.get();
            System.out.printf("kill -9 %s: %d acks, last acked index %d, recovered last index %d, %s%n",
                durability, ackCount.get(), acked, journal.lastIndex(), journal.recovery());
            assertTrue(journal.lastIndex() >= acked, "lost acknowledged commands: " + journal.lastIndex() + " < " + acked);
            assertFalse(journal.forcedAtOpen().isEmpty(), "what the killed writer left in the page cache is forced at open");
            assertEquals(journal.lastIndex(), journal.stableIndex());

            final long[] expected = {1};
            final ReplayResult result = journal.replay(0, command ->
            {
                assertEquals(expected[0], command.journalIndex);
                expected[0]++;
            });
            assertEquals(ReplayStatus.COMPLETE, result.status(), result.toString());
            assertEquals(journal.lastIndex(), result.deliveredCount());

            final long next = journal.stampAndAppend(TestCommands.transfer(9, "after-kill"), 0);
            journal.flush();
            assertEquals(result.lastIndex() + 1, next);
            assertEquals(ReplayStatus.COMPLETE, journal.replay(acked, command -> { }).status());
        }
    }

    @Test
    void shouldKeepEverythingBeforeADocumentLeftUnfinishedByAHaltedProcess() throws Exception
    {
        final Process child = startChild("HALT_MID_DOCUMENT");
        assertTrue(child.waitFor(CHILD_TIMEOUT_MS, TimeUnit.MILLISECONDS));
        final String stdout = new String(child.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        assertTrue(stdout.contains("HALTING"), stdout + stderrOf());
        assertEquals(1, child.exitValue());

        try (JournalReader reader = JournalReader.open(journalDir()))
        {
            final ReplayResult result = reader.replay(0, command -> { });
            assertEquals(ReplayStatus.COMPLETE, result.status(), result.toString());
            assertEquals(JournalCrashChild.HALT_APPEND_COUNT, result.lastIndex());
        }
        try (Journal journal = Journal.open(journalDir(), Durability.SYNC))
        {
            assertEquals(JournalCrashChild.HALT_APPEND_COUNT, journal.lastIndex());
            assertFalse(journal.recovery().markerWritten());
            journal.stampAndAppend(TestCommands.transfer(1, "after-halt"), 0);
            journal.flush();

            final List<String> references = new ArrayList<>();
            final ReplayResult result = journal.replay(0, command -> references.add(TestCommands.referenceText(command)));
            assertEquals(ReplayStatus.COMPLETE, result.status(), result.toString());
            assertEquals(JournalCrashChild.HALT_APPEND_COUNT + 1, result.deliveredCount());
            assertEquals("after-halt", references.get(references.size() - 1));
        }
    }

    private Process startChild(final String mode) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports"))
            {
                command.add(argument);
            }
        }
        command.add("-Xmx256m");
        command.add("-D" + JournalQueues.ANALYTICS_DISABLE_PROPERTY + "=true");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(JournalCrashChild.class.getName());
        command.add(journalDir().toString());
        command.add(mode);
        return new ProcessBuilder(command)
            .redirectError(stderrFile().toFile())
            .start();
    }

    private String stderrOf()
    {
        try
        {
            return "\nchild stderr:\n" + Files.readString(stderrFile());
        }
        catch (final IOException ex)
        {
            return "\n(no child stderr: " + ex + ")";
        }
    }

    private static void readAcks(final Process child, final AtomicLong ackCount, final AtomicLong maxAckedIndex)
    {
        try (BufferedReader out = new BufferedReader(
            new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII)))
        {
            String line;
            while ((line = out.readLine()) != null)
            {
                if (line.startsWith("ACK "))
                {
                    try
                    {
                        maxAckedIndex.accumulateAndGet(Long.parseLong(line.substring(4)), Math::max);
                        ackCount.incrementAndGet();
                    }
                    catch (final NumberFormatException ignored)
                    {
                        // the last line may be cut by the kill; a cut number is smaller, so skipping it is safe
                    }
                }
            }
        }
        catch (final IOException ignored)
        {
            // the pipe closes when the child dies
        }
    }
}
