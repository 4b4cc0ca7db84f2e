package dev.tally.persistence.db;

import dev.tally.persistence.PostgresFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The embedded PostgreSQL on a disk that is really full: a small tmpfs mounted for the test (which needs root; elsewhere
 * the tests are skipped, and {@link EmbeddedDatabaseTest} still checks how PostgreSQL's own words are read). A start, and a
 * restart after the postmaster was killed, fail within seconds and say "no space left on device" first, instead of waiting
 * a minute for a server that exited at once; once space is freed, both succeed.
 */
class EmbeddedDatabaseDiskFullTest
{
    /** Room for a fresh cluster (about 40 MB: its catalogue and one 16 MiB WAL segment) and its first start. */
    private static final String TMPFS_SIZE = "128m";
    /** Far below the minute the server's start may wait for connections. */
    private static final long FAILURE_WITHIN_MS = 10_000;
    private static final int CHUNK_BYTES = 1 << 20;
    private static final int PAGE_BYTES = 4096;

    private final Path mountPoint = Paths.get("target", "pg", EmbeddedDatabaseDiskFullTest.class.getSimpleName()).toAbsolutePath();
    private boolean mounted;

    @BeforeEach
    void mountSmallDisk() throws Exception
    {
        if (Files.readString(Paths.get("/proc/mounts"), StandardCharsets.UTF_8).contains(" " + mountPoint + " "))
        {
            run("umount", "-l", mountPoint.toString());   // left by a run that was killed
        }
        PostgresFixture.deleteRecursively(mountPoint);
        Files.createDirectories(mountPoint);
        mounted = run("mount", "-t", "tmpfs", "-o", "size=" + TMPFS_SIZE, "tmpfs", mountPoint.toString()) == 0;
        assumeTrue(mounted, "mounting a tmpfs needs root: skipped");
    }

    @AfterEach
    void unmount() throws Exception
    {
        if (mounted)
        {
            run("umount", "-l", mountPoint.toString());
            mounted = false;
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldRefuseAtOnceToStartOnAFullDisk() throws Exception
    {
        final Path directory = mountPoint.resolve("pg");
        EmbeddedDatabase.start(directory, 0, false).close();   // initdb while there is room
        final Path filler = fill(mountPoint);

        final long startNs = System.nanoTime();
        final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> EmbeddedDatabase.start(directory, 0, false));
        assertFailedWithin(startNs);
        assertTrue(refused.getMessage().startsWith("no space left on device: "), refused.getMessage());
        assertTrue(refused.getMessage().contains(directory.toString()), refused.getMessage());

        Files.delete(filler);
        try (EmbeddedDatabase server = EmbeddedDatabase.start(directory, 0, false))
        {
            assertAnswers(server);
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSayNoSpaceLeftOnDeviceWhenARestartFindsTheDiskFull() throws Exception
    {
        try (EmbeddedDatabase server = EmbeddedDatabase.start(mountPoint.resolve("pg"), 0, false))
        {
            ProcessHandle.of(server.postmasterPid()).orElseThrow().destroyForcibly();
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (server.isRunning())
            {
                assertTrue(System.nanoTime() < deadlineNs, "the killed postmaster is gone");
                Thread.sleep(20);
            }
            // the killed server's lock file goes first: deleting it once the disk is full would free the page its successor needs
            Files.delete(mountPoint.resolve("pg").resolve(Postmaster.PID_FILE));
            final Path filler = fill(mountPoint);

            // Past the free-space check: PostgreSQL itself fails, and its own words are read.
            server.restartFreeBytesMin = 0;
            final long startNs = System.nanoTime();
            final IllegalStateException byPostgres = assertThrows(IllegalStateException.class, server::restart);
            assertFailedWithin(startNs);
            assertTrue(byPostgres.getMessage().startsWith("no space left on device: PostgreSQL did not start"), byPostgres.getMessage());
            assertTrue(byPostgres.getMessage().contains("FATAL: could not write lock file \"postmaster.pid\": No space left on device"),
                byPostgres.getMessage());
            assertFalse(server.isRunning());

            // With the check, as the supervisor restarts: refused before anything is started.
            server.restartFreeBytesMin = DiskSpace.START_FREE_BYTES_MIN;
            final IllegalStateException byCheck = assertThrows(IllegalStateException.class, server::restart);
            assertTrue(byCheck.getMessage().startsWith("no space left on device: ") &&
                byCheck.getMessage().contains("free for the embedded PostgreSQL"), byCheck.getMessage());

            Files.delete(filler);
            server.restart();
            assertTrue(server.isRunning());
            assertAnswers(server);
        }
    }

    private static void assertFailedWithin(final long startNs)
    {
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        assertTrue(elapsedMs < FAILURE_WITHIN_MS, "failed after " + elapsedMs + " ms, not within " + FAILURE_WITHIN_MS);
    }

    private static void assertAnswers(final EmbeddedDatabase server) throws Exception
    {
        try (Connection c = DriverManager.getConnection(server.jdbcUrl()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 1"))
        {
            assertTrue(rs.next());
            assertEquals(1, rs.getInt(1));
        }
    }

    /** Writes a file until the file system refuses a page more. @return the file, whose deletion frees the space. */
    private static Path fill(final Path mountPoint) throws IOException
    {
        final Path filler = mountPoint.resolve("filler");
        final ByteBuffer chunk = ByteBuffer.allocate(CHUNK_BYTES);
        try (FileChannel channel = FileChannel.open(filler, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
        {
            for (int size = CHUNK_BYTES; size >= PAGE_BYTES; )
            {
                chunk.clear().limit(size);
                try
                {
                    while (chunk.hasRemaining())
                    {
                        channel.write(chunk);
                    }
                }
                catch (final IOException full)
                {
                    size = size == PAGE_BYTES ? 0 : PAGE_BYTES;   // then page by page up to the last one
                }
            }
        }
        assertTrue(DiskSpace.usableBytes(mountPoint) < PAGE_BYTES, "the disk is full");
        return filler;
    }

    private static int run(final String... command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        final int status = process.waitFor();
        if (status != 0)
        {
            System.err.println(String.join(" ", command) + ": " + output.trim());
        }
        return status;
    }
}
