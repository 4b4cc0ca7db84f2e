package dev.tally.persistence.db;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Free space for the embedded PostgreSQL, checked before every start. On a full disk PostgreSQL cannot even write its
 * lock file: the postmaster exits at once, but the start would only end when its wait for connections ran out (60 s)
 * with a message that says nothing about the disk. Checked first, it fails at once and says so.
 *
 * <p>The minimum, 64 MiB, is four WAL segments of 16 MiB: room for crash recovery's end-of-recovery
 * checkpoint, a new WAL segment and the first batches, far below what any real volume keeps free. Below it the read
 * model would stop again within moments.
 */
final class DiskSpace
{
    /** Usable bytes a start needs on the data directory's file system. */
    static final long START_FREE_BYTES_MIN = 64L << 20;
    /** {@code strerror(ENOSPC)}, as PostgreSQL writes it in its log ("could not write lock file ...: No space left on device"). */
    static final String NO_SPACE_LEFT = "No space left on device";

    private DiskSpace()
    {
    }

    /**
     * @param minBytes usable bytes the start needs ({@link #START_FREE_BYTES_MIN}).
     * @throws IllegalStateException starting with "no space left on device" when the file system holding
     *                               {@code directory} has less usable space.
     */
    static void requireForStart(final Path directory, final long minBytes)
    {
        final long usableBytes = usableBytes(directory);
        if (usableBytes < minBytes)
        {
            throw new IllegalStateException("no space left on device: " + formatBytes(usableBytes) + " free for the embedded " +
                "PostgreSQL in " + directory + ", which needs " + formatBytes(minBytes) + " to start; free space on that file " +
                "system, then start again");
        }
    }

    /** @return true when PostgreSQL's output reports a full disk. */
    static boolean reportsNoSpace(final String output)
    {
        return output.contains(NO_SPACE_LEFT);
    }

    /** @return bytes an unprivileged process may still write on the file system holding {@code directory}. */
    static long usableBytes(final Path directory)
    {
        try
        {
            return Files.getFileStore(directory).getUsableSpace();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read the free space of " + directory, ex);
        }
    }

    /** @return {@code bytes} in the largest binary unit that keeps it at 1 or more, with one decimal. */
    static String formatBytes(final long bytes)
    {
        if (bytes < 1024)
        {
            return bytes + " bytes";
        }
        final String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double value = bytes / 1024.0;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1)
        {
            value /= 1024;
            unit++;
        }
        return String.format(java.util.Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
