package dev.tally.persistence.db;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The exclusive lock on a Tally data folder: one process at a time may write into it (journal, snapshots, embedded
 * PostgreSQL). Two would append to the same journal with their own indexes, and each would take the other's live
 * postmaster for an orphan and stop it.
 *
 * <p>A {@link FileChannel#tryLock()} on {@value #FILE_NAME} inside the folder, held until {@link #close()} or the end
 * of the process: the kernel drops it when the process dies, kill -9 included, so a crash never leaves the folder
 * locked. The file stays (deleting it would let two processes lock two different files); its content names the last
 * holder (pid, what it runs, since when), for the message the next one gets. The lock is what counts, not the file.
 *
 * <p>A process holds one lock per folder: a second {@link #acquire} in the same JVM fails like one from another process,
 * without opening the file again (closing any channel on a file drops the process's POSIX locks on it).
 */
public final class DataFolderLock implements AutoCloseable
{
    /** The lock file's name inside the data folder. */
    public static final String FILE_NAME = "tally.lock";
    /** The folders this JVM holds, by real path; guarded by itself. */
    private static final Map<Path, DataFolderLock> HELD = new HashMap<>();

    private final Path folder;
    private final String holder;
    private final FileChannel channel;
    private final FileLock lock;
    private boolean released;

    private DataFolderLock(final Path folder, final String holder, final FileChannel channel, final FileLock lock)
    {
        this.folder = folder;
        this.holder = holder;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the folder's lock, creating the folder when missing; fails at once when another process, or this one, holds it.
     *
     * @param holder what the process runs, for the message a second one gets (e.g. {@code "tally serve"}).
     * @throws DataFolderInUseException when the folder is in use, with a message naming it and its holder.
     */
    public static DataFolderLock acquire(final Path folder, final String holder)
    {
        final Path real;
        try
        {
            Files.createDirectories(folder);
            real = folder.toRealPath();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot open the data folder " + folder, ex);
        }
        synchronized (HELD)
        {
            final DataFolderLock mine = HELD.get(real);
            if (mine != null)
            {
                throw new DataFolderInUseException(real, "this process (" + mine.holder + ")");
            }
            final Path file = real.resolve(FILE_NAME);
            FileChannel channel = null;
            try
            {
                channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                final FileLock lock = channel.tryLock();
                if (lock == null)
                {
                    channel.close();
                    throw new DataFolderInUseException(real, "another process (" + lastHolder(file) + ")");
                }
                final byte[] content = ("pid=" + ProcessHandle.current().pid() + "\nholder=" + holder + "\nsince=" + Instant.now() + "\n")
                    .getBytes(StandardCharsets.UTF_8);
                channel.truncate(0);
                channel.write(ByteBuffer.wrap(content), 0);
                final DataFolderLock acquired = new DataFolderLock(real, holder, channel, lock);
                HELD.put(real, acquired);
                return acquired;
            }
            catch (final IOException | OverlappingFileLockException ex)
            {
                closeQuietly(channel);
                throw new UncheckedIOException("cannot lock the data folder " + real + " (" + file + ")",
                    ex instanceof IOException ? (IOException)ex : new IOException(ex));
            }
        }
    }

    /** @return the folder locked, as a real path (symbolic links resolved). */
    public Path folder()
    {
        return folder;
    }

    /** @return true while this lock is held and {@code path}, an existing file or folder, lies inside its folder. */
    public boolean covers(final Path path)
    {
        synchronized (HELD)
        {
            if (released)
            {
                return false;
            }
        }
        try
        {
            return path.toRealPath().startsWith(folder);
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    /** Releases the lock. Idempotent. */
    @Override
    public void close()
    {
        synchronized (HELD)
        {
            if (released)
            {
                return;
            }
            released = true;
            HELD.remove(folder);
            try
            {
                lock.release();
            }
            catch (final IOException ex)
            {
                // closing the channel below releases it too
            }
            closeQuietly(channel);
        }
    }

    /** @return the holder the lock file names (pid, what it runs, since when), as far as it can be read. */
    private static String lastHolder(final Path file)
    {
        final Map<String, String> fields = new HashMap<>();
        try
        {
            for (final String line : Files.readAllLines(file, StandardCharsets.UTF_8))
            {
                final int equals = line.indexOf('=');
                if (equals > 0)
                {
                    fields.put(line.substring(0, equals), line.substring(equals + 1));
                }
            }
        }
        catch (final NoSuchFileException ex)
        {
            return "unknown";
        }
        catch (final IOException ex)
        {
            return "unknown: " + ex.getMessage();
        }
        if (!fields.containsKey("pid"))
        {
            return "unknown";   // just taken, not written yet
        }
        return "pid " + fields.get("pid") + ", " + fields.getOrDefault("holder", "?") + ", since " + fields.getOrDefault("since", "?");
    }

    private static void closeQuietly(final FileChannel channel)
    {
        if (channel == null)
        {
            return;
        }
        try
        {
            channel.close();
        }
        catch (final IOException ex)
        {
            // nothing held through it
        }
    }
}
