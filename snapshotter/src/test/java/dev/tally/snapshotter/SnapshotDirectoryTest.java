package dev.tally.snapshotter;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which unfinished snapshot files opening the folder deletes: crash leftovers, never a live writer's. */
class SnapshotDirectoryTest
{
    @TempDir
    Path dir;

    @Test
    void shouldDeleteLeftoversButNotTheFileAnotherRunningProcessIsWriting() throws Exception
    {
        final Process running = new ProcessBuilder("sleep", "30").start();
        final Process exited = new ProcessBuilder("true").start();
        assertTrue(exited.waitFor(10, TimeUnit.SECONDS));
        try
        {
            final Path live = Files.createFile(dir.resolve(".snapshot-100-" + running.pid() + ".tmp"));
            final Path dead = Files.createFile(dir.resolve(".snapshot-90-" + exited.pid() + ".tmp"));
            final Path unnamed = Files.createFile(dir.resolve(".snapshot-80.tmp"));

            SnapshotDirectory.open(dir, 3);

            assertTrue(Files.exists(live), "a running process's write in progress stays");
            assertTrue(Files.notExists(dead), "the leftover of a process that is gone is deleted");
            assertTrue(Files.notExists(unnamed), "a leftover without a writer's pid is deleted");
        }
        finally
        {
            running.destroy();
        }
    }
}
