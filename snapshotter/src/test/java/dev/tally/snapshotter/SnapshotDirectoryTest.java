package dev.tally.snapshotter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which unfinished snapshot files opening the folder deletes: crash leftovers, never a live writer's. */
class SnapshotDirectoryTest
{
    @TempDir
    Path dir;

    @Test
    void shouldDeleteLeftoversButNotTheFilesAWriterStillHoldsLocked() throws Exception
    {
        final Path leftover = Files.createFile(dir.resolve(".snapshot-80-12345.tmp"));
        final Path otherProcess = Files.createFile(dir.resolve(".snapshot-90-1.tmp"));
        final Path thisProcess = Files.createFile(dir.resolve(".snapshot-100-1.tmp"));
        final Process holder = holdLockInAnotherProcess(otherProcess);
        try (FileChannel channel = FileChannel.open(thisProcess, StandardOpenOption.WRITE))
        {
            channel.lock();   // held until the channel closes, as SnapshotDirectory.write holds its own
            SnapshotDirectory.open(dir, 3);

            assertTrue(Files.notExists(leftover), "a crash's leftover is deleted");
            assertTrue(Files.exists(otherProcess), "another process's write in progress stays");
            assertTrue(Files.exists(thisProcess), "this process's own write in progress stays");
        }
        finally
        {
            holder.destroy();
        }
    }

    @Test
    void shouldKeepTheNewestSnapshotARestartMayStartFromBesidesTheNewestThree(@TempDir final Path dataDir) throws Exception
    {
        try (JournaledRun run = new JournaledRun(dataDir, 7, 0))
        {
            run.run(5);
            run.snapshotAtNextIndex();
            final long usable = run.snapshots.list().get(0).journalIndex();
            run.snapshots.keepOneUpTo(() -> usable);   // the PostgreSQL writer stalls here
            for (int i = 0; i < 5; i++)
            {
                run.run(5);
                run.snapshotAtNextIndex();
            }

            final java.util.List<SnapshotDirectory.SnapshotFile> kept = run.snapshots.list();

            assertEquals(4, kept.size(), kept::toString);
            assertEquals(usable, kept.get(3).journalIndex(), "the one a restart may still load");
            run.snapshots.keepOneUpTo(() -> Long.MAX_VALUE);   // the writer caught up
            run.run(5);
            run.snapshotAtNextIndex();
            assertEquals(3, run.snapshots.list().size());
        }
    }

    /** Starts a JVM that locks {@code file} the way a snapshot writer does, and waits until it holds the lock. */
    static Process holdLockInAnotherProcess(final Path file) throws Exception
    {
        final Process process = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"), LockHolder.class.getName(), file.toString())
            .redirectErrorStream(true).start();
        final BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        assertTrue("locked".equals(out.readLine()), "the other process holds the lock");
        return process;
    }

    /** The other process: locks the file, says so, and keeps the lock until killed. */
    public static final class LockHolder
    {
        public static void main(final String[] args) throws Exception
        {
            try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.WRITE))
            {
                channel.lock();   // held until the channel closes
                System.out.println("locked");
                System.out.flush();
                Thread.sleep(60_000);
            }
        }
    }
}
