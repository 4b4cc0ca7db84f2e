package dev.tally.snapshotter;

import dev.tally.ledger.image.StateImage;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The folder of snapshot files: {@code snapshot-<journal index, 20 digits>.tsnap}, so that names sort
 * by index. A file appears under its final name only once it is complete and on disk:
 * <ol>
 *   <li>write {@code .snapshot-<index>-<writer pid>.tmp} and {@code FileChannel.force} it;</li>
 *   <li>rename it to its final name ({@code ATOMIC_MOVE}: the name points at the old file or the new one,
 *   never at half of one);</li>
 *   <li>{@code fsync} the directory, so that the rename itself survives a power loss;</li>
 *   <li>delete all but the newest {@code retainCount} snapshots, oldest first, and the newest one a restart may still
 *   start from ({@link #keepOneUpTo}).</li>
 * </ol>
 * A crash before 2 leaves a temporary file, deleted by the next {@link #open} unless a writer still holds
 * its lock (a server writing while an operator runs {@code tally snapshot}); a crash after 2 leaves a
 * complete snapshot. A file that fails its checks on load is renamed {@code *.rejected} (kept for
 * inspection, never picked again).
 */
public final class SnapshotDirectory
{
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotDirectory.class);
    private static final Pattern NAME = Pattern.compile("snapshot-(\\d{20})\\.tsnap");
    private static final String TEMP_PREFIX = ".snapshot-";

    private final Path directory;
    private final int retainCount;
    private final boolean writable;
    /** The newest journal index a restart may start from (the PostgreSQL watermark); no bound by default. */
    private volatile LongSupplier restartIndexMax = () -> Long.MAX_VALUE;

    private SnapshotDirectory(final Path directory, final int retainCount, final boolean writable)
    {
        this.directory = directory;
        this.retainCount = retainCount;
        this.writable = writable;
    }

    /**
     * A snapshot folder for a tool that only reads it ({@code tally replay --from-snapshot}): nothing is
     * created, deleted or renamed, so it is safe next to a running server.
     */
    public static SnapshotDirectory forReading(final Path directory)
    {
        return new SnapshotDirectory(directory, Integer.MAX_VALUE, false);
    }

    /**
     * Opens (creating it when absent) a snapshot folder and deletes temporary files a crash left behind.
     *
     * @param retainCount snapshots kept after each write, at least 1.
     */
    public static SnapshotDirectory open(final Path directory, final int retainCount) throws IOException
    {
        if (retainCount < 1)
        {
            throw new IllegalArgumentException("snapshots to retain must be >= 1, was " + retainCount);
        }
        Files.createDirectories(directory);
        try (Stream<Path> files = Files.list(directory))
        {
            for (final Path file : (Iterable<Path>)files::iterator)
            {
                // Not one a live process is writing right now (a running server, next to an operator's
                // `tally snapshot`): its writer holds a lock on it. An unfinished file is never loaded anyway.
                if (file.getFileName().toString().startsWith(TEMP_PREFIX) && !writtenByALiveProcess(file))
                {
                    LOG.info("deleting unfinished snapshot {}", file);
                    Files.deleteIfExists(file);
                }
            }
        }
        return new SnapshotDirectory(directory, retainCount, true);
    }

    /**
     * @return true when a writer holds the temporary file's lock (it is writing it now). A lock is the
     * process's own and goes with it, in any pid namespace: a leftover of a crash is never locked.
     */
    private static boolean writtenByALiveProcess(final Path temp) throws IOException
    {
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE); FileLock free = channel.tryLock())
        {
            return free == null;
        }
        catch (final OverlappingFileLockException ex)
        {
            return true;   // this very process is writing it
        }
        catch (final java.nio.file.NoSuchFileException ex)
        {
            return true;   // renamed or deleted meanwhile: nothing to delete
        }
    }

    /** @return where a server's snapshots live: {@code <data dir>/snapshots}. */
    public static Path inDataDir(final Path dataDir)
    {
        return dataDir.resolve("snapshots");
    }

    public Path path()
    {
        return directory;
    }

    /** @return the final name of the snapshot at {@code journalIndex}. */
    public Path fileFor(final long journalIndex)
    {
        return directory.resolve(String.format("snapshot-%020d.tsnap", journalIndex));
    }

    /** @return every snapshot file with its journal index, newest first. */
    public List<SnapshotFile> list() throws IOException
    {
        final List<SnapshotFile> found = new ArrayList<>();
        if (!Files.isDirectory(directory))
        {
            return found;
        }
        try (Stream<Path> files = Files.list(directory))
        {
            for (final Path file : (Iterable<Path>)files::iterator)
            {
                final Matcher m = NAME.matcher(file.getFileName().toString());
                if (m.matches())
                {
                    found.add(new SnapshotFile(file, Long.parseLong(m.group(1))));
                }
            }
        }
        found.sort(Comparator.comparingLong(SnapshotFile::journalIndex).reversed());
        return found;
    }

    /**
     * Writes the image as the snapshot at its journal index, durably (see the class comment), then applies
     * retention.
     *
     * @return the snapshot file written.
     */
    public Path write(final StateImage image, final long stateHash, final SnapshotFormat format) throws IOException
    {
        if (!writable)
        {
            throw new IllegalStateException("snapshot folder opened for reading only: " + directory);
        }
        final long index = image.lastJournalIndex();
        final Path temp = directory.resolve(TEMP_PREFIX + index + "-" + ProcessHandle.current().pid() + ".tmp");
        final Path target = fileFor(index);
        try (FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE))
        {
            // Locked until renamed (closing the channel releases the lock): another process opening this folder
            // (tally snapshot beside a running server, in whatever pid namespace) sees the lock and leaves the file alone.
            out.lock();
            format.write(image, stateHash, out);
            out.force(true);
            SnapshotFaults.pause(SnapshotFaults.WRITE_PAUSE_MS);
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (final IOException | RuntimeException ex)
        {
            Files.deleteIfExists(temp);   // a full disk must not fill up with one partial file per attempt
            throw ex;
        }
        forceDirectory();
        retain();
        return target;
    }

    /** Renames a snapshot that failed its checks out of the way: kept for inspection, never loaded again. */
    public void reject(final SnapshotFile file)
    {
        if (!writable)
        {
            return;
        }
        try
        {
            Files.move(file.path(), file.path().resolveSibling(file.path().getFileName() + ".rejected"),
                StandardCopyOption.REPLACE_EXISTING);
        }
        catch (final IOException ex)
        {
            LOG.warn("could not set aside rejected snapshot {}", file.path(), ex);
        }
    }

    /** @return the journal index of the oldest snapshot kept, or 0 when there is none. */
    public long oldestIndex() throws IOException
    {
        final List<SnapshotFile> files = list();
        return files.isEmpty() ? 0 : files.get(files.size() - 1).journalIndex();
    }

    /**
     * Bounds which snapshots a restart may load ({@code LedgerRecovery}: none past the PostgreSQL watermark), so that
     * retention keeps the newest one within that bound besides the newest {@code retainCount}: with the writer
     * stalled for longer than {@code retainCount} snapshot intervals every newer snapshot is past its watermark, and
     * without this one a restart would need the journal from its start, which pruning may have removed.
     *
     * @param indexMax read on the thread that writes snapshots, after each write.
     */
    public void keepOneUpTo(final LongSupplier indexMax)
    {
        restartIndexMax = indexMax;
    }

    private void retain() throws IOException
    {
        final List<SnapshotFile> files = list();   // newest first
        final long indexMax = restartIndexMax.getAsLong();
        boolean restartable = false;
        for (int i = 0; i < files.size(); i++)
        {
            final boolean usable = files.get(i).journalIndex() <= indexMax;
            if (i < retainCount || (usable && !restartable))
            {
                restartable |= usable;
                continue;
            }
            Files.deleteIfExists(files.get(i).path());
        }
    }

    /** Makes the directory's entries (a rename) durable: fsync on the directory itself. */
    private void forceDirectory() throws IOException
    {
        forceDirectory(directory);
    }

    /** Makes {@code directory}'s entries (a rename, a deletion) durable: fsync on the directory itself. */
    static void forceDirectory(final Path directory) throws IOException
    {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ))
        {
            dir.force(true);
        }
    }

    /** One snapshot file and the journal index it was taken at. */
    public record SnapshotFile(Path path, long journalIndex)
    {
    }
}
