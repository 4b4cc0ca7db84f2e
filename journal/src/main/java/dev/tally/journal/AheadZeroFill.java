package dev.tally.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Writes zeros into the queue file ahead of the append position, a chunk (or as many as were appended since the
 * previous force) after a force, so that the file system has allocated the blocks before the appender first stores
 * into those pages.
 *
 * <p>Why: Chronicle grows a queue file sparse. The appender's first store into a page of a hole takes a
 * page fault in which ext4 reserves a block, and that fault waits whenever the file system journal is
 * committing — which every {@code fdatasync} of a file that gained blocks makes it do. Measured with a
 * mapped file, 100 appends of 150 B between {@code fdatasync}s: the appends' p99.9 was 3.4–4.9 ms into
 * a sparse or {@code fallocate}d file and 0.08–0.18 ms into a zero-filled one; in Tally's {@code batch}
 * load the request p99 halved (docs/benchmarks/history/2026-11-30-journal-zero-fill-ahead.md).
 *
 * <p>Why zeros are safe: a zero record header is what Chronicle reads as "nothing written yet", and a
 * hole reads as zeros too, so readers, the tail scan and recovery see the same bytes either way. Only
 * the journaler thread appends and only it calls this, after its last append, so the region written is
 * always past every byte Chronicle has written (at least one chunk past the append position).
 *
 * <p>Why one page per {@code pwrite}: the kernel sizes a page-cache folio by the write that creates it. On a
 * file system that caches files in large folios (ext4 from Linux 6.16) one 256 KiB write of zeros made one
 * 256 KiB folio, and the appender's first store into any page of it after a force (the force write-protects
 * the pages it cleans) marked the <em>whole folio</em> dirty again, so every {@code fdatasync} wrote 256 KiB
 * back however little had been appended: measured 610 MB/s written for 7 MB/s of records under the
 * {@code uniform} load, 376 MB/s for 60 MB/s under {@code batch}
 * (docs/benchmarks/history/2026-11-30-journal-page-sized-zero-fill.md). Page-sized writes make page-sized folios,
 * so a force writes back the pages appended since the
 * last one. The 64 system calls per chunk cost about 0.1 ms per 256 KiB of records.
 *
 * <p>Cost: one extra page-cache write and one extra write-back of each journal page (zeros first), and
 * at most {@code aheadBytes} of disk beyond the data. Allocation-free.
 */
final class AheadZeroFill
{
    static final int CHUNK_BYTES = 256 << 10;
    /** One write per page (4 KiB, the smallest page Linux uses): the page cache then holds the file in single-page folios. */
    static final int WRITE_BYTES = 4 << 10;

    private final long aheadBytes;
    private final ByteBuffer zeros;
    private long filledTo;
    /** The append position at the last force: the next fill covers at least what was appended since. */
    private long lastAppendPosition;

    /** @param aheadBytes how far past the append position to keep filled; 0 turns it off. */
    AheadZeroFill(final long aheadBytes)
    {
        this.aheadBytes = aheadBytes;
        this.zeros = aheadBytes == 0 ? null : ByteBuffer.allocateDirect(WRITE_BYTES);
    }

    /** A new file: nothing of it is filled yet. */
    void reset()
    {
        filledTo = 0;
        lastAppendPosition = 0;
    }

    /**
     * Fills one more chunk, or as many as were appended since the last call, when the filled region ends less than
     * {@code aheadBytes} past {@code appendPosition}; called after a force, so that the next force writes these zeros back and
     * allocates their blocks long before the appender gets there.
     *
     * @param appendPosition the file offset just past the last byte appended to {@code channel}'s file.
     */
    void afterForce(final FileChannel channel, final long appendPosition) throws IOException
    {
        if (aheadBytes == 0 || appendPosition <= 0)
        {
            return;
        }
        // nothing known before the first force of a file (a reopened journal's whole length is not "appended since")
        final long appended = lastAppendPosition == 0 ? 0 : Math.max(0, appendPosition - lastAppendPosition);
        lastAppendPosition = appendPosition;
        final long start = Math.max(filledTo, chunkAfter(appendPosition));
        if (start >= appendPosition + aheadBytes)
        {
            return;
        }
        // at least a chunk, and as many as were appended since the last force: under ASYNC a force comes only once 256 KiB
        // or more were appended (whole pipeline batches), and one chunk per force fell behind the appender, which then
        // faulted into holes (the page cache reading them in and zeroing large folios: 21 % of the journaler's samples in an
        // async batch run, and a p99 ≈ 3x as long; docs/benchmarks/history/2026-12-02-async-zero-fill-keeps-pace.md)
        final long chunks = Math.max(1, (appended + CHUNK_BYTES - 1) / CHUNK_BYTES);
        final long end = Math.min(start + chunks * CHUNK_BYTES,
            Math.max(start + CHUNK_BYTES, chunkCeil(appendPosition + aheadBytes)));
        for (long page = start; page < end; page += WRITE_BYTES)
        {
            zeros.clear();
            while (zeros.hasRemaining())
            {
                channel.write(zeros, page + zeros.position());
            }
        }
        filledTo = end;
    }

    /** @return {@code position} rounded up to a chunk boundary. */
    private static long chunkCeil(final long position)
    {
        return (position + CHUNK_BYTES - 1) & -(long)CHUNK_BYTES;
    }

    /** @return the start of the first whole chunk at least one chunk past {@code position}. */
    static long chunkAfter(final long position)
    {
        return chunkCeil(position + CHUNK_BYTES);
    }

    /** @return the end of the region filled so far in the current file (tests). */
    long filledTo()
    {
        return filledTo;
    }
}
