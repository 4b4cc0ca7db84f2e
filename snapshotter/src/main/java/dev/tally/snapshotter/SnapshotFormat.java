package dev.tally.snapshotter;

import dev.tally.ledger.image.ByteSection;
import dev.tally.ledger.image.LongSection;
import dev.tally.ledger.image.StateImage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The snapshot file, version 4: a checked header, then the {@link StateImage} sections, each followed by
 * its own CRC32C. Written and read here, side by side, in field order. Little-endian throughout.
 *
 * <pre>
 * offset size  field
 *      0    8  magic                      "TALLYSNP" (ASCII)
 *      8    4  format version             i32 = {@link #VERSION}
 *     12    4  section count              i32 = {@link #SECTION_COUNT}
 *     16    8  lastJournalIndex           i64
 *     24    8  timestampNs                i64  journaled time of that command
 *     32    8  commandsApplied            i64
 *     40    8  transfersPosted            i64
 *     48    8  stateHash                  i64  Ledger.stateHash() of the state
 *     56   80  ledger configuration       10 x i64, LedgerConfig's fields in declaration order
 *    136   80  section lengths            10 x i64, bytes of each section body
 *    216    4  header crc32c              over bytes [0, 216)
 *    220       sections, in this order, each: body (its length), then crc32c (4) over the body
 *                0 account records   1 sub-balance pairs   2 keys   3 references
 *                4 transfers   5 transfer reference digests (low half)   6 transfer reference texts   7 holds
 *                8 cold transfers (transfers as reversals left them, until the cold index holds them)
 *                9 low-balance thresholds (one long per account, creation order; 0 without one)
 * </pre>
 *
 * <p>The file is exactly {@code 220 + sum(length + 4)} bytes: a truncated file, a flipped byte anywhere
 * or an unknown version is a {@link SnapshotCorruptException}, never a silently wrong state.
 *
 * <p>Version 3 is read too: 9 sections (no low-balance thresholds, which its ledgers did not have), so 72 bytes of
 * section lengths, the header crc32c at 208 and the sections from 212; the image's thresholds are left empty. Versions
 * 1 and 2 as well: 8 sections (no cold transfers either), so 64 bytes of section lengths, the header crc32c at 200 and
 * the sections from 204; the image's cold transfers are left empty too.
 *
 * <p>One instance per thread: it owns a 1 MiB direct buffer and a {@link CRC32C}, reused for every file.
 */
public final class SnapshotFormat
{
    /**
     * Version of the layout above. Bump it (and keep reading the old one) on any change. 4: section 9, the low-balance
     * thresholds, which a version-3 reader would not know of (and the header's section lengths grow by one), while the
     * records' alert bits would tell it that accounts have a threshold.
     */
    public static final int VERSION = 4;
    /** The version before {@link #VERSION}, still read: 9 sections, no low-balance thresholds. */
    static final int VERSION_WITHOUT_ALERTS = 3;
    /**
     * The version before {@link #VERSION}, still read: 8 sections, no cold transfers. Its transfer record's packed field
     * may carry the has-metadata bit (bit 48), which a version-1 reader would take for part of the reference length.
     */
    static final int VERSION_WITHOUT_COLD_TRANSFERS = 2;
    /** The version before that, still read: version 2's layout, no transfer of it has the has-metadata bit. */
    static final int VERSION_WITHOUT_METADATA_BIT = 1;
    public static final int SECTION_COUNT = 10;
    /** Sections of a version 3 file: every one but the low-balance thresholds. */
    static final int SECTION_COUNT_WITHOUT_ALERTS = 9;
    /** Sections of a version 1 or 2 file: every one but the cold transfers. */
    static final int SECTION_COUNT_WITHOUT_COLD_TRANSFERS = 8;
    /** The one section of bytes (transfer reference texts); every other section is longs. */
    static final int REFERENCE_TEXT_SECTION = 6;
    /** The section version 3 added, last, so that the sections before it are laid out as in version 2. */
    static final int COLD_TRANSFER_SECTION = 8;
    /** The section version 4 added, last, so that the sections before it are laid out as in version 3. */
    static final int LOW_BALANCE_THRESHOLD_SECTION = 9;

    static final byte[] MAGIC = "TALLYSNP".getBytes(StandardCharsets.US_ASCII);
    static final int VERSION_OFFSET = MAGIC.length;
    static final int SECTION_COUNT_OFFSET = VERSION_OFFSET + Integer.BYTES;
    static final int JOURNAL_INDEX_OFFSET = SECTION_COUNT_OFFSET + Integer.BYTES;
    static final int TIMESTAMP_OFFSET = JOURNAL_INDEX_OFFSET + Long.BYTES;
    static final int COMMANDS_APPLIED_OFFSET = TIMESTAMP_OFFSET + Long.BYTES;
    static final int TRANSFERS_POSTED_OFFSET = COMMANDS_APPLIED_OFFSET + Long.BYTES;
    static final int STATE_HASH_OFFSET = TRANSFERS_POSTED_OFFSET + Long.BYTES;
    static final int CONFIG_OFFSET = STATE_HASH_OFFSET + Long.BYTES;
    static final int SECTION_LENGTHS_OFFSET = CONFIG_OFFSET + StateImage.CONFIG_VALUES * Long.BYTES;
    /** Bytes before the first section. */
    public static final int HEADER_LENGTH = headerLength(SECTION_COUNT);
    /** Bytes before the first section of a version 3 file. */
    static final int HEADER_LENGTH_WITHOUT_ALERTS = headerLength(SECTION_COUNT_WITHOUT_ALERTS);
    /** Bytes before the first section of a version 1 or 2 file. */
    static final int HEADER_LENGTH_WITHOUT_COLD_TRANSFERS = headerLength(SECTION_COUNT_WITHOUT_COLD_TRANSFERS);

    private static final int CHUNK_BYTES = 1 << 20;
    /** The largest section: a Java array of longs. */
    private static final long SECTION_BYTES_MAX = (Integer.MAX_VALUE - 8L) * Long.BYTES;

    /**
     * A write forces what it has written every this many bytes. Why: a snapshot is hundreds of MB; written
     * in one go and forced at the end, the journal's {@code fdatasync}s on the same file system queued behind
     * it (ext4 orders a journal commit after the data of every block allocated before it) — up to 0.77 s,
     * measured with 0.7 GB snapshots (docs/benchmarks/history/2026-11-30-snapshots-inside-load-run.md). In steps of
     * 16 MiB a journal flush waits for at most about one step.
     */
    static final long FORCE_EVERY_BYTES = 16L << 20;

    private final ByteBuffer chunk = ByteBuffer.allocateDirect(CHUNK_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final CRC32C crc = new CRC32C();
    private long writtenSinceForce;

    /** @return the bytes {@link #write} produces for this image. */
    public static long fileLength(final StateImage image)
    {
        long length = HEADER_LENGTH;
        for (int section = 0; section < SECTION_COUNT; section++)
        {
            length += sectionBytes(image, section) + Integer.BYTES;
        }
        return length;
    }

    // ---------------------------------------------------------------------------------------------
    // Write.
    // ---------------------------------------------------------------------------------------------

    /**
     * Writes the whole file at the channel's position, forcing it every {@link #FORCE_EVERY_BYTES} on the way.
     *
     * @param stateHash the image's {@code stateHash()}, computed by the caller off the business thread.
     */
    public void write(final StateImage image, final long stateHash, final FileChannel out) throws IOException
    {
        writtenSinceForce = 0;
        chunk.clear();
        chunk.put(MAGIC).putInt(VERSION).putInt(SECTION_COUNT);
        chunk.putLong(image.lastJournalIndex()).putLong(image.nowNs()).putLong(image.commandsApplied())
            .putLong(image.transfersPosted()).putLong(stateHash);
        for (final long value : image.configValues())
        {
            chunk.putLong(value);
        }
        for (int section = 0; section < SECTION_COUNT; section++)
        {
            chunk.putLong(sectionBytes(image, section));
        }
        crc.reset();
        crc.update(chunk.duplicate().flip());
        chunk.putInt((int)crc.getValue());
        for (int section = 0; section < SECTION_COUNT; section++)
        {
            crc.reset();
            if (section == REFERENCE_TEXT_SECTION)
            {
                writeBytes(image.transferReferenceText(), out);
            }
            else
            {
                writeLongs(longSection(image, section), out);
            }
            room(Integer.BYTES, out);
            chunk.putInt((int)crc.getValue());
        }
        drain(out);
    }

    private void writeLongs(final LongSection section, final FileChannel out) throws IOException
    {
        int done = 0;
        while (done < section.length())
        {
            room(Long.BYTES, out);
            final int count = Math.min(section.length() - done, chunk.remaining() / Long.BYTES);
            final int start = chunk.position();
            chunk.asLongBuffer().put(section.values(), done, count);
            chunk.position(start + count * Long.BYTES);
            crc.update(chunk.duplicate().position(start).limit(chunk.position()));
            done += count;
        }
    }

    private void writeBytes(final ByteSection section, final FileChannel out) throws IOException
    {
        int done = 0;
        while (done < section.length())
        {
            room(1, out);
            final int count = Math.min(section.length() - done, chunk.remaining());
            final int start = chunk.position();
            chunk.put(section.values(), done, count);
            crc.update(chunk.duplicate().position(start).limit(chunk.position()));
            done += count;
        }
    }

    /** Makes room for {@code bytes} more in the chunk, writing it out when it is too full. */
    private void room(final int bytes, final FileChannel out) throws IOException
    {
        if (chunk.remaining() < bytes)
        {
            drain(out);
        }
    }

    private void drain(final FileChannel out) throws IOException
    {
        chunk.flip();
        while (chunk.hasRemaining())
        {
            writtenSinceForce += out.write(chunk);
        }
        chunk.clear();
        if (writtenSinceForce >= FORCE_EVERY_BYTES)
        {
            out.force(false);
            writtenSinceForce = 0;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Read.
    // ---------------------------------------------------------------------------------------------

    /**
     * Reads and checks the whole file into {@code image} (its sections are resized to the file's).
     *
     * @return the header.
     * @throws SnapshotCorruptException when any check fails: the image is then unspecified.
     */
    public SnapshotHeader read(final FileChannel in, final StateImage image) throws IOException, SnapshotCorruptException
    {
        final long fileLength = in.size();
        final int version = readHeader(in, fileLength);
        final int sectionCount = sectionCount(version);
        final SnapshotHeader header = new SnapshotHeader(version, chunk.getLong(JOURNAL_INDEX_OFFSET), chunk.getLong(TIMESTAMP_OFFSET),
            chunk.getLong(STATE_HASH_OFFSET));
        image.position(header.lastJournalIndex(), header.timestampNs(), chunk.getLong(COMMANDS_APPLIED_OFFSET),
            chunk.getLong(TRANSFERS_POSTED_OFFSET));
        for (int i = 0; i < StateImage.CONFIG_VALUES; i++)
        {
            image.configValues()[i] = chunk.getLong(CONFIG_OFFSET + i * Long.BYTES);
        }
        final long[] lengths = new long[sectionCount];
        long expectedLength = headerLength(sectionCount);
        for (int section = 0; section < sectionCount; section++)
        {
            lengths[section] = chunk.getLong(SECTION_LENGTHS_OFFSET + section * Long.BYTES);
            if (lengths[section] < 0 || lengths[section] > SECTION_BYTES_MAX || (section != REFERENCE_TEXT_SECTION && lengths[section] % Long.BYTES != 0))
            {
                throw new SnapshotCorruptException("section " + section + " has an impossible length " + lengths[section]);
            }
            expectedLength += lengths[section] + Integer.BYTES;
        }
        if (expectedLength != fileLength)
        {
            throw new SnapshotCorruptException("file is " + fileLength + " bytes, its header announces " + expectedLength +
                (fileLength < expectedLength ? " (truncated)" : ""));
        }
        for (int section = sectionCount; section < SECTION_COUNT; section++)
        {
            longSection(image, section).resize(0);   // not in an older file: its ledger had none (the image may be reused)
        }
        for (int section = 0; section < sectionCount; section++)
        {
            crc.reset();
            if (section == REFERENCE_TEXT_SECTION)
            {
                readBytes(in, image.transferReferenceText(), (int)lengths[section]);
            }
            else
            {
                readLongs(in, longSection(image, section), (int)(lengths[section] / Long.BYTES));
            }
            final int computed = (int)crc.getValue();
            chunk.clear().limit(Integer.BYTES);
            readFully(in);
            if (chunk.getInt(0) != computed)
            {
                throw new SnapshotCorruptException("section " + section + " checksum does not match");
            }
        }
        return header;
    }

    /**
     * Reads the header into the chunk and checks its magic, version, section count and checksum.
     *
     * @return the file's format version, one this code reads.
     */
    private int readHeader(final FileChannel in, final long fileLength) throws IOException, SnapshotCorruptException
    {
        if (fileLength < HEADER_LENGTH_WITHOUT_COLD_TRANSFERS)
        {
            throw new SnapshotCorruptException("truncated: " + fileLength + " bytes, a header takes " + HEADER_LENGTH_WITHOUT_COLD_TRANSFERS +
                " or more");
        }
        chunk.clear().limit(SECTION_LENGTHS_OFFSET);
        readFully(in);
        for (int i = 0; i < MAGIC.length; i++)
        {
            if (chunk.get(i) != MAGIC[i])
            {
                throw new SnapshotCorruptException("not a snapshot file (bad magic)");
            }
        }
        final int version = chunk.getInt(VERSION_OFFSET);
        final int sectionCount = sectionCount(version);
        if (sectionCount < 0 || chunk.getInt(SECTION_COUNT_OFFSET) != sectionCount)
        {
            throw new SnapshotCorruptException("unknown format version " + version);
        }
        final int headerLength = headerLength(sectionCount);
        if (fileLength < headerLength)
        {
            throw new SnapshotCorruptException("truncated: " + fileLength + " bytes, a version " + version + " header takes " + headerLength);
        }
        chunk.limit(headerLength);
        readFully(in);
        chunk.flip();
        crc.reset();
        crc.update(chunk.duplicate().limit(headerCrcOffset(sectionCount)));
        if ((int)crc.getValue() != chunk.getInt(headerCrcOffset(sectionCount)))
        {
            throw new SnapshotCorruptException("header checksum does not match");
        }
        return version;
    }

    /** @return the sections a file of {@code version} holds, or -1 for a version this code does not read. */
    private static int sectionCount(final int version)
    {
        switch (version)
        {
            case VERSION: return SECTION_COUNT;
            case VERSION_WITHOUT_ALERTS: return SECTION_COUNT_WITHOUT_ALERTS;
            case VERSION_WITHOUT_COLD_TRANSFERS, VERSION_WITHOUT_METADATA_BIT: return SECTION_COUNT_WITHOUT_COLD_TRANSFERS;
            default: return -1;
        }
    }

    private static int headerCrcOffset(final int sectionCount)
    {
        return SECTION_LENGTHS_OFFSET + sectionCount * Long.BYTES;
    }

    private static int headerLength(final int sectionCount)
    {
        return headerCrcOffset(sectionCount) + Integer.BYTES;
    }

    private void readLongs(final FileChannel in, final LongSection section, final int count) throws IOException
    {
        final long[] values = section.resize(count);
        int done = 0;
        while (done < count)
        {
            final int n = Math.min(count - done, CHUNK_BYTES / Long.BYTES);
            chunk.clear().limit(n * Long.BYTES);
            readFully(in);
            chunk.flip();
            crc.update(chunk.duplicate());
            chunk.asLongBuffer().get(values, done, n);
            done += n;
        }
    }

    private void readBytes(final FileChannel in, final ByteSection section, final int count) throws IOException
    {
        final byte[] values = section.resize(count);
        int done = 0;
        while (done < count)
        {
            final int n = Math.min(count - done, CHUNK_BYTES);
            chunk.clear().limit(n);
            readFully(in);
            chunk.flip();
            crc.update(chunk.duplicate());
            chunk.get(values, done, n);
            done += n;
        }
    }

    /** Fills the chunk up to its limit; the file's length was checked, so an early end is a race with a writer. */
    private void readFully(final FileChannel in) throws IOException
    {
        while (chunk.hasRemaining())
        {
            if (in.read(chunk) < 0)
            {
                throw new IOException("snapshot file ended early");
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Sections, by their number in the file.
    // ---------------------------------------------------------------------------------------------

    private static long sectionBytes(final StateImage image, final int section)
    {
        return section == REFERENCE_TEXT_SECTION ? image.transferReferenceText().length() : (long)longSection(image, section).length() * Long.BYTES;
    }

    private static LongSection longSection(final StateImage image, final int section)
    {
        switch (section)
        {
            case 0: return image.accountRecords();
            case 1: return image.subBalancePairs();
            case 2: return image.keys();
            case 3: return image.references();
            case 4: return image.transfers();
            case 5: return image.transferReferenceLos();
            case 7: return image.holds();
            case COLD_TRANSFER_SECTION: return image.coldTransfers();
            case LOW_BALANCE_THRESHOLD_SECTION: return image.lowBalanceThresholds();
            default: throw new IllegalArgumentException("section " + section + " is not made of longs");
        }
    }
}
