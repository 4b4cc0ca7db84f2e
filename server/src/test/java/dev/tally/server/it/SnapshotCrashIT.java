package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tally serve} in child JVMs, killed with SIGKILL while a snapshot is being written (its temporary
 * file complete, the rename not done) and while one is being loaded at start-up; the moments are held
 * open by the test-only pauses of {@code SnapshotFaults}. The next start must come back to exactly the
 * state a clean replay of the journal gives, from a complete snapshot, with every acknowledged transfer.
 */
class SnapshotCrashIT
{
    private static final String TRY = TallyClient.TRY;
    private static final Pattern STARTED = Pattern.compile("started from (snapshot \\S+|the journal's start).*state hash ([0-9a-f]+)");
    private static final long WAIT_MS = 30_000;
    /** No ticks during the test, a snapshot every 30 commands. */
    private static final List<String> SERVE = List.of("--no-read-model", "--tick-interval-ms", "60000", "--snapshot-every-commands", "30");

    @TempDir
    Path dataDir;
    @TempDir
    Path logDir;

    private final List<String> acknowledged = new ArrayList<>();

    @Test
    void shouldComeBackToTheJournalsStateAfterSigkillDuringASnapshotWriteAndDuringALoad() throws Exception
    {
        final Path snapshots = dataDir.resolve("snapshots");
        // 1. Some complete snapshots, then a crash.
        try (TallyProcess first = TallyProcess.start(dataDir, "async", logDir.resolve("1.log"), List.of(), SERVE))
        {
            final TallyClient client = first.client();
            assertEquals(201, client.createAccount(1, TRY, false).status());
            assertEquals(201, client.createAccount(2, TRY, true).status());
            transfers(client, "first-", 120);   // two snapshots even when the first lands late (its request waits for a poll, its write for a force)
            await(() -> names(snapshots, ".tsnap") >= 2, "two snapshots written", first);
            first.kill();
        }

        // 2. Killed while a snapshot is half-way: its temporary file is written and forced, not yet renamed.
        try (TallyProcess second = TallyProcess.start(dataDir, "async", logDir.resolve("2.log"),
            List.of("-Dtally.test.snapshotWritePauseMs=600000"), SERVE))
        {
            assertTrue(TallyProcess.read(logDir.resolve("2.log")).contains("started from snapshot"), second.logTail());
            transfers(second.client(), "second-", 40);
            await(() -> names(snapshots, ".tmp") == 1, "a snapshot write in progress", second);
            second.kill();
        }

        // 3. Killed while loading the newest snapshot at start-up.
        final Process third = TallyProcess.spawn(dataDir, "async", logDir.resolve("3.log"),
            List.of("-Dtally.test.snapshotLoadPauseMs=600000"), SERVE, java.util.Map.of());
        try
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            while (!TallyProcess.read(logDir.resolve("3.log")).contains("loading snapshot") && System.nanoTime() < deadlineNs)
            {
                Thread.sleep(20);
            }
            assertTrue(TallyProcess.read(logDir.resolve("3.log")).contains("loading snapshot"), TallyProcess.read(logDir.resolve("3.log")));
        }
        finally
        {
            third.destroyForcibly();
            third.waitFor(WAIT_MS, TimeUnit.MILLISECONDS);
        }

        // 4. A clean start: from a complete snapshot, every acknowledged transfer there, the journal's state.
        final String startedHash;
        try (TallyProcess last = TallyProcess.start(dataDir, "async", logDir.resolve("4.log"), List.of(),
            List.of("--no-read-model", "--tick-interval-ms", "60000", "--snapshot-every-commands", "1000000")))
        {
            final Matcher started = STARTED.matcher(TallyProcess.read(logDir.resolve("4.log")));
            assertTrue(started.find(), last.logTail());
            assertTrue(started.group(1).startsWith("snapshot"), "started from a snapshot: " + started.group(0));
            startedHash = started.group(2);
            assertEquals(0, names(snapshots, ".tmp"), "the unfinished snapshot is gone");
            final TallyClient client = last.client();
            for (final String id : acknowledged)
            {
                assertEquals(200, client.transferById(id).status(), "acknowledged transfer " + id);
            }
            last.stop();
        }
        final TallyCli.Run scratch = TallyCli.run("replay", "--data-dir", dataDir.toString(), "--format", "json");
        final TallyCli.Run fromSnapshot = TallyCli.run("replay", "--data-dir", dataDir.toString(), "--format", "json", "--from-snapshot");
        assertEquals(scratch.stateHash(), fromSnapshot.stateHash(), "replay from scratch and from the snapshot");
        assertEquals(Long.parseUnsignedLong(scratch.stateHash(), 16), Long.parseUnsignedLong(startedHash, 16),
            "the restarted server's state is the journal's");
        assertFalse(acknowledged.isEmpty());
    }

    private void transfers(final TallyClient client, final String prefix, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            final Reply reply = client.transfer(prefix + i, 1, 2, (i + 1) + ".00", TRY, null);
            assertEquals(201, reply.status(), reply::toString);
            acknowledged.add(reply.json().get("id").text());
        }
    }

    private static long names(final Path dir, final String suffix)
    {
        if (!Files.isDirectory(dir))
        {
            return 0;
        }
        try (Stream<Path> files = Files.list(dir))
        {
            return files.filter(p -> p.getFileName().toString().endsWith(suffix)).count();
        }
        catch (final IOException e)
        {
            return 0;
        }
    }

    private static void await(final java.util.function.BooleanSupplier condition, final String what, final TallyProcess process)
        throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new AssertionError("no " + what + " within " + WAIT_MS + " ms\n" + process.logTail());
            }
            Thread.sleep(20);
        }
    }
}
