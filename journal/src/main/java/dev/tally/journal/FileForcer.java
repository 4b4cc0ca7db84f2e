package dev.tally.journal;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Forces a memory-mapped queue file to stable storage with {@code fdatasync(2)} on the whole file
 * ({@link FileChannel#force(boolean) force(false)}).
 *
 * <p>Why the whole file rather than Chronicle's {@code appender.sync()}: under
 * {@code SyncMode.SYNC} that call issues {@code msync(MS_SYNC)} over the data pages written since the
 * previous sync of the <em>current</em> mapped chunk only. The queue header, the index pages (written
 * earlier in the file) and the tail of the previous chunk are outside that range. {@code fdatasync}
 * writes back every dirty page of the file, whoever dirtied it (a shared mapping dirties the same
 * page cache), for the same measured cost. On a roll to a new cycle file the previous file is forced
 * one last time and the directory is fsync'ed so the new file's name survives a power loss.
 *
 * <p>Before each force it lets {@link WrittenPageUnmapper} drop the process's mappings of the pages appended since
 * the last one, so that the force sends no TLB shoot-down per page; after it, it lets {@link ForcedPageDropper} give
 * those pages, now clean, back to the kernel, and then {@link AheadZeroFill} write zeros ahead of the append position,
 * so that appends do not fault into holes (see each).
 *
 * <p>Allocates only when the file changes (once an hour).
 */
final class FileForcer implements AutoCloseable
{
    private final AheadZeroFill zeroFill;
    private final WrittenPageUnmapper unmapper;
    private final ForcedPageDropper dropper;
    private File file;
    private FileChannel channel;

    /**
     * @param zeroFillAheadBytes how far ahead of the append position to zero-fill; 0 for never.
     * @param unmapWrittenPages  whether to unmap the pages appended since the last force before each force.
     * @param dropForcedPages    whether to drop those pages from the page cache after the force (only with the above).
     */
    FileForcer(final long zeroFillAheadBytes, final boolean unmapWrittenPages, final boolean dropForcedPages)
    {
        this.zeroFill = new AheadZeroFill(zeroFillAheadBytes);
        this.unmapper = new WrittenPageUnmapper(unmapWrittenPages);
        this.dropper = new ForcedPageDropper(unmapWrittenPages && dropForcedPages);
    }

    /**
     * Forces {@code current} (and, after a roll, the file before it) to disk.
     *
     * @param chunk          the mapped chunk the appender's bytes hold now, or null before its first append.
     * @param appendPosition the offset just past the last byte appended to {@code current}.
     */
    void force(final File current, final BytesStore<?, ?> chunk, final long appendPosition) throws IOException
    {
        if (current != file)
        {
            switchTo(current);
        }
        unmapper.beforeForce(chunk, appendPosition);
        channel.force(false);
        // before the fill, so that the fill's new pages can be the ones just handed back
        dropper.afterForce(unmapper.lastUnmappedFrom(), unmapper.lastUnmappedTo());
        zeroFill.afterForce(channel, appendPosition);
    }

    /** @return whether the pages appended since the last force are unmapped before each force (tests). */
    boolean unmapsWrittenPages()
    {
        return unmapper.enabled();
    }

    /** @return whether the pages forced are dropped from the page cache after each force (tests). */
    boolean dropsForcedPages()
    {
        return dropper.enabled();
    }

    /** @return bytes of the journal's page cache dropped after forces (tests). */
    long droppedBytes()
    {
        return dropper.droppedBytes();
    }

    /** @return the end of the zero-filled region of the current file (tests). */
    long zeroFilledTo()
    {
        return zeroFill.filledTo();
    }

    private void switchTo(final File current) throws IOException
    {
        if (null != channel)
        {
            channel.force(false);
            channel.close();
            channel = null;
        }
        channel = FileChannel.open(current.toPath(), StandardOpenOption.READ, StandardOpenOption.WRITE);
        file = current;
        dropper.open(current.getAbsolutePath());
        zeroFill.reset();
        unmapper.reset();
        forceDirectory(current.toPath().toAbsolutePath().getParent());
    }

    static void forceDirectory(final Path directory) throws IOException
    {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ))
        {
            dir.force(true);
        }
    }

    @Override
    public void close() throws IOException
    {
        dropper.close();
        if (null != channel)
        {
            channel.close();
            channel = null;
            file = null;
        }
    }
}
