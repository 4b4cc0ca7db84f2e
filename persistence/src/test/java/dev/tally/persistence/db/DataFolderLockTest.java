package dev.tally.persistence.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One process per data folder: a second lock, from this JVM or another, fails at once and names the folder and holder. */
class DataFolderLockTest
{
    @TempDir
    Path dir;

    @Test
    void shouldRefuseASecondLockInThisProcessUntilTheFirstIsReleased() throws Exception
    {
        final Path folder = dir.resolve("data");
        final DataFolderLock first = DataFolderLock.acquire(folder, "tally serve");
        try (first)
        {
            assertEquals(folder.toRealPath(), first.folder(), "created when missing");
            final DataFolderInUseException refused = assertThrows(DataFolderInUseException.class,
                () -> DataFolderLock.acquire(folder, "tally verify"));
            assertEquals("data folder " + folder.toRealPath() + " is in use by this process (tally serve); one data folder takes one " +
                "Tally process at a time (two would corrupt its journal and stop each other's PostgreSQL): stop that one first, or " +
                "use another data folder (lock: " + folder.toRealPath().resolve(DataFolderLock.FILE_NAME) + ")", refused.getMessage());
            assertEquals(folder.toRealPath(), refused.folder());

            Files.createDirectories(folder.resolve("pg"));
            assertTrue(first.covers(folder.resolve("pg")));
            assertFalse(first.covers(dir), "the folder's parent is not the folder's");
            assertTrue(Files.readString(folder.resolve(DataFolderLock.FILE_NAME)).startsWith("pid=" + ProcessHandle.current().pid() + "\n"));
        }
        assertFalse(first.covers(folder.resolve("pg")), "released");
        try (DataFolderLock again = DataFolderLock.acquire(folder, "tally verify"))
        {
            first.close();   // idempotent: closing the released lock again leaves the new holder's lock alone
            assertTrue(again.covers(folder));
            assertThrows(DataFolderInUseException.class, () -> DataFolderLock.acquire(folder, "tally snapshot"));
        }
    }

    @Test
    void shouldRefuseALockFromAnotherProcessWhileHeldAndGrantItOnceReleased() throws Exception
    {
        final Path folder = dir.resolve("data");
        try (DataFolderLock held = DataFolderLock.acquire(folder, "tally serve"))
        {
            assertTrue(held.covers(folder));
            final List<String> output = lockInAnotherProcess(folder);
            assertEquals("refused", output.get(0), output.toString());
            assertTrue(output.get(1).startsWith("data folder " + folder.toRealPath() + " is in use by another process (pid " +
                ProcessHandle.current().pid() + ", tally serve, since "), output.toString());
        }
        assertEquals(List.of("locked"), lockInAnotherProcess(folder), "the lock goes with its holder");
    }

    /** Runs {@link DataFolderLockChild} on {@code folder} in a new JVM: @return what it printed. */
    private List<String> lockInAnotherProcess(final Path folder) throws Exception
    {
        final Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"), DataFolderLockChild.class.getName(), folder.toString())
            .redirectErrorStream(true).start();
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child finished");
        final List<String> lines = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        assertEquals(0, child.exitValue(), lines.toString());
        return lines;
    }
}
