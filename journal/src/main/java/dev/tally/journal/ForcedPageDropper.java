package dev.tally.journal;

import jnr.ffi.LibraryLoader;
import net.openhft.chronicle.core.OS;

/**
 * After each force, gives back to the kernel the page-cache pages of the queue file that the <em>previous</em> force made
 * clean and that {@link WrittenPageUnmapper} had unmapped before it: one {@code posix_fadvise(POSIX_FADV_DONTNEED)} over
 * that range.
 *
 * <p>Why: the journal is append-only, so without this its page cache only grows, and every new page it takes is memory
 * the guest has not used lately. In a virtual machine that is dear: a page's first store after the host has taken it back
 * (a balloon's free-page reporting does so) is a fault on the host, which the guest sees as a slow store. Under the
 * {@code batch} load the zero fill's copies into new pages cost ≈ 8 µs per page, a third of the journaler's CPU. Pages
 * handed back one force after they were written go to the free lists while they are still backed, and the next pages the
 * zero fill, the appender and the sockets take come from there
 * (docs/benchmarks/history/2026-12-03-journal-drop-forced-pages.md).
 *
 * <p>Why one force late: advised right after its own force, a range is dropped hardly at all (measured: 4.0 MB of 4.2 MB
 * still cached). Its pages are clean by then but not yet free to drop; the kernel still holds them in its per-CPU LRU
 * batches, or the unmap has not let go of them yet. One force later they are dropped (measured: 0.4 MB left cached,
 * {@code ForcedPageDropperTest}). The lag keeps one force's worth of pages cached a little longer.
 *
 * <p>Why it is safe: the range is pages an earlier force wrote back and that no mapping of this process holds, so the kernel
 * drops them without writing anything; it skips any page that is dirty, locked or mapped again (Chronicle storing into an
 * index array there), and a later read of the file (a replay, a tool) reads them back from disk. Nothing in the running
 * server reads the journal behind the appender. A failed call turns it off for good: the journal is as correct without
 * it. The file is opened a second time, read-only, for the call (the descriptor of a {@code FileChannel} is not public).
 *
 * <p>Linux only, through jnr-ffi (which Chronicle's own POSIX binding uses), so Tally ships no native code. That binding
 * ({@code PosixAPI}, which {@link WrittenPageUnmapper} calls) has {@code open} and {@code close} but no
 * {@code posix_fadvise}, hence the three calls of its own here. Owned by
 * {@link FileForcer}; allocation-free after {@link #open}.
 */
final class ForcedPageDropper implements AutoCloseable
{
    private static final int POSIX_FADV_DONTNEED = 4;
    private static final int O_RDONLY_CLOEXEC = 0x80000;
    private static final long PAGE_BYTES = WrittenPageUnmapper.PAGE_BYTES;

    /** The three calls of the C library it needs (public: jnr-ffi implements it in a class of its own). */
    public interface LibC
    {
        int open(String path, int flags);

        @SuppressWarnings("checkstyle:MethodName")   // jnr-ffi binds a method to the C function of its name
        int posix_fadvise(int fd, long offset, long length, int advice);

        int close(int fd);
    }

    /** Null when off (configured so, not Linux, other pages, no native access, or after a failed call). */
    private LibC libc;
    private int fd = -1;
    private long dropped;
    private long pendingFrom;
    private long pendingTo;

    /** @param enabled false: never drop (and never load the native library). */
    ForcedPageDropper(final boolean enabled)
    {
        this.libc = enabled && OS.isLinux() && OS.pageSize() == PAGE_BYTES ? load() : null;
    }

    private static LibC load()
    {
        try
        {
            return LibraryLoader.create(LibC.class).load("c");
        }
        catch (final RuntimeException | LinkageError ex)
        {
            return null; // no native access: run without it
        }
    }

    /** The journal moved to the cycle file at {@code path} (and let go of the previous one). */
    void open(final String path)
    {
        close();
        pendingFrom = 0; // a range of the previous file
        pendingTo = 0;
        if (null != libc)
        {
            fd = libc.open(path, O_RDONLY_CLOEXEC);
            if (fd < 0)
            {
                libc = null;
            }
        }
    }

    /**
     * Drops the range the previous force wrote back from the page cache, and keeps this force's range for the next call.
     *
     * @param fromNow the start of the range this force just wrote back, unmapped before it (a page boundary).
     * @param toNow   its end (a page boundary); {@code fromNow == toNow} when nothing was unmapped.
     */
    void afterForce(final long fromNow, final long toNow)
    {
        final long from = pendingFrom;
        final long to = pendingTo;
        pendingFrom = fromNow;
        pendingTo = toNow;
        if (null == libc || fd < 0 || to - from < PAGE_BYTES)
        {
            return;
        }
        try
        {
            if (0 != libc.posix_fadvise(fd, from, to - from, POSIX_FADV_DONTNEED))
            {
                close();
                libc = null;
                return;
            }
            dropped += to - from;
        }
        catch (final RuntimeException ex)
        {
            libc = null; // the journal is as correct without it
        }
    }

    /** @return whether it still drops pages (false when configured off, not on Linux, or after a failed call). */
    boolean enabled()
    {
        return null != libc;
    }

    /** @return bytes of page cache it has advised away since the journal opened (tests, metrics). */
    long droppedBytes()
    {
        return dropped;
    }

    @Override
    public void close()
    {
        if (fd >= 0 && null != libc)
        {
            libc.close(fd);
        }
        fd = -1;
    }
}
