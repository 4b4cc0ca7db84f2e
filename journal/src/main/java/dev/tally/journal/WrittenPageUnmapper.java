package dev.tally.journal;

import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.core.OS;
import net.openhft.posix.MAdviseFlag;
import net.openhft.posix.PosixAPI;

/**
 * Before each force, drops this process's mappings of the queue-file pages the appender has moved past since the
 * previous force, so that the force's write-back finds them unmapped.
 *
 * <p>Why: {@code fdatasync} write-protects every dirty page it cleans, in every mapping of it, so that the next store
 * marks it dirty again. For a page mapped in this process, whose other threads run on the other core, each
 * write-protect is a TLB shoot-down: one inter-processor interrupt per page, which in a virtual machine is an exit on
 * both cores. Under the {@code batch} load that was two fifths of the journaler's CPU
 * (docs/benchmarks/history/2026-12-02-journaler-kernel-time.md). One {@code madvise(MADV_DONTNEED)} over the pages
 * appended since the last force costs one
 * flush for the whole range instead; measured, the journaler's CPU per 100-transfer request fell from 158 to 100 µs
 * (docs/benchmarks/history/2026-12-02-journal-unmap-written-pages.md).
 *
 * <p>Why it is safe: on a shared file mapping {@code MADV_DONTNEED} removes page-table entries, not data. A dirty
 * entry's state moves to the page-cache page, which the force that follows writes back as before, and any later access
 * (a tailer reading the journal) maps the same page-cache page again. The appender never stores into record pages
 * behind its position; what Chronicle does store behind it (the queue header, an index array filling up) faults back in
 * once and then stays mapped, because the advised range only moves forward. Only the chunk the appender holds now is
 * advised: it stays mapped while it is current, whereas a chunk Chronicle has let go may be unmapped and its addresses
 * reused by anything else, which {@code MADV_DONTNEED} would wipe.
 *
 * <p>Linux only ({@code MADV_DONTNEED} is not a mere hint everywhere); off by {@link JournalConfig#unmapWrittenPages()}.
 * A failed call turns it off for good (the journal is as correct without it, only slower). Owned by {@link FileForcer},
 * which calls it before each force and resets it when the journal moves to a new cycle file. Allocation-free.
 */
final class WrittenPageUnmapper
{
    /** The page size it rounds to; on a kernel with other pages (64 KiB on some ARM machines) it stays off. */
    static final long PAGE_BYTES = 4 << 10;

    /** Chronicle's POSIX binding; null when off (configured so, not Linux, other pages, or after a failed call). */
    private PosixAPI posix;
    /** Offset in the current cycle file: the pages before it (those of the current chunk) were advised. */
    private long unmappedTo;
    /** The file range the last {@link #beforeForce} advised: empty ({@code from == to}) when it advised nothing. */
    private long lastFrom;
    private long lastTo;

    /** @param enabled false: never advise (and never load the native library). */
    WrittenPageUnmapper(final boolean enabled)
    {
        this.posix = enabled && OS.isLinux() && OS.pageSize() == PAGE_BYTES ? loadPosix() : null;
    }

    /**
     * @return Chronicle's POSIX binding if it really makes system calls: where its native part cannot load it hands out a
     *         stand-in that does nothing (its {@code madvise} returns 0, its {@code getpid} throws), so the binding must
     *         report this process's own id before it is trusted.
     */
    private static PosixAPI loadPosix()
    {
        try
        {
            final PosixAPI posix = PosixAPI.posix();
            return posix.getpid() == ProcessHandle.current().pid() ? posix : null;
        }
        catch (final RuntimeException | LinkageError ex)
        {
            return null; // no native access: run without it
        }
    }

    /** A new cycle file: nothing of it was advised yet. */
    void reset()
    {
        unmappedTo = 0;
        lastFrom = 0;
        lastTo = 0;
    }

    /**
     * Advises away the whole pages of {@code store} between the last call's end and the page holding
     * {@code appendPosition} (which the appender is still filling).
     *
     * @param store          the chunk the appender's bytes hold now, or null before its first append.
     * @param appendPosition the offset just past the last byte appended to the current cycle file.
     */
    void beforeForce(final BytesStore<?, ?> store, final long appendPosition)
    {
        lastFrom = unmappedTo;
        lastTo = unmappedTo;
        if (null == posix || !(store instanceof MappedBytesStore))
        {
            return;
        }
        try
        {
            unmapBehind((MappedBytesStore)store, appendPosition);
        }
        catch (final RuntimeException ex)
        {
            posix = null; // whatever went wrong, the force that follows must still run; it is as correct without this
        }
    }

    private void unmapBehind(final MappedBytesStore chunk, final long appendPosition)
    {
        final long from = pageCeil(Math.max(unmappedTo, chunk.start()));
        final long to = pageFloor(appendPosition);
        if (to - from < PAGE_BYTES || !chunk.inside(from, to - from) || chunk.refCount() <= 0)
        {
            return;
        }
        // a chunk is mapped at a page boundary and starts at a multiple of its size, so the address is a page's; were it not,
        // madvise would refuse it (EINVAL) and that turns this off like any other failure
        if (!advise(chunk.addressForRead(from), to - from))
        {
            posix = null;
            return;
        }
        unmappedTo = to;
        lastFrom = from;
        lastTo = to;
    }

    /** @return whether {@code madvise} succeeded (false also if the binding threw). */
    private boolean advise(final long address, final long length)
    {
        try
        {
            return 0 == posix.madvise(address, length, MAdviseFlag.MADV_DONTNEED.value());
        }
        catch (final RuntimeException ex)
        {
            return false;
        }
    }

    /** @return the start of the file range the last {@link #beforeForce} unmapped (whole pages). */
    long lastUnmappedFrom()
    {
        return lastFrom;
    }

    /** @return the end of that range; equal to {@link #lastUnmappedFrom()} when it unmapped nothing. */
    long lastUnmappedTo()
    {
        return lastTo;
    }

    /** @return whether it still advises (false when configured off, not on Linux, or after a failed call). */
    boolean enabled()
    {
        return null != posix;
    }

    private static long pageFloor(final long offset)
    {
        return offset & -PAGE_BYTES;
    }

    private static long pageCeil(final long offset)
    {
        return pageFloor(offset + PAGE_BYTES - 1);
    }
}
