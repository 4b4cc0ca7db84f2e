package dev.tally.snapshotter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.image.LongSection;
import dev.tally.ledger.image.StateImage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotFormatTest
{
    /**
     * A version-2 file as the last binary before cold transfers wrote it (SnapshotFormat at commit 3560c81, with
     * {@link #VERSION_2_SEED} and {@link #VERSION_2_UNITS}: {@code new JournaledRun(dir, 32, 0).run(60)}, then
     * {@code copyTo} and {@code write}), header state hash included: checked in, not generated, so that this code
     * reads what that one wrote.
     */
    private static final String VERSION_2_FILE = "snapshot-version-2.tsnap";
    private static final long VERSION_2_SEED = 32;
    private static final int VERSION_2_UNITS = 60;

    @TempDir
    Path dir;

    /** One for every file, as a snapshotter keeps one: each owns a 1 MiB direct buffer. */
    private final SnapshotFormat format = new SnapshotFormat();
    private Path file;
    private Ledger ledger;

    @BeforeEach
    void writeOne() throws IOException
    {
        ledger = run(dir.resolve("data"), 7, 600);
        final StateImage image = new StateImage();
        ledger.copyTo(image);
        assertTrue(image.coldTransfers().length() > 0, "the workload's reversals leave cold transfers");
        file = dir.resolve("one.tsnap");
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
        {
            format.write(image, image.stateHash(), out);
        }
        assertEquals(SnapshotFormat.fileLength(image), Files.size(file));
    }

    @Test
    void shouldReadBackTheStateItWrote() throws Exception
    {
        final StateImage image = new StateImage();
        final SnapshotHeader header = read(image);
        assertEquals(SnapshotFormat.VERSION, header.formatVersion());
        assertEquals(ledger.lastJournalIndex(), header.lastJournalIndex());
        assertEquals(ledger.nowNs(), header.timestampNs());
        assertEquals(ledger.stateHash(), header.stateHash());
        assertEquals(ledger.stateHash(), Ledger.restore(Workload.CONFIG, image).stateHash());
    }

    @Test
    void shouldReadAVersionTwoFileWrittenBeforeColdTransfersAsTheSameLedgerTodayWithoutThem() throws Exception
    {
        final StateImage image = new StateImage();
        read(image);   // a version-3 file first: the image it leaves holds cold transfers, which the older file must clear
        Files.write(file, versionTwoFile());
        final SnapshotHeader header = read(image);
        assertEquals(SnapshotFormat.VERSION_WITHOUT_COLD_TRANSFERS, header.formatVersion());
        assertEquals(0, image.coldTransfers().length());
        assertEquals(header.stateHash(), Ledger.restore(Workload.CONFIG, image).stateHash(), "its header's hash, written by that binary");

        final StateImage today = new StateImage();
        try (JournaledRun run = new JournaledRun(dir.resolve("today"), VERSION_2_SEED, 0).asBefore())
        {
            run.run(VERSION_2_UNITS);   // its commands as that binary journaled them: rejections name no account
            run.ledger.copyTo(today);
        }
        assertEquals(today.lastJournalIndex(), header.lastJournalIndex());
        assertTrue(today.coldTransfers().length() > 0, "its reversals leave cold transfers today");
        assertTrue(creationTimes(today, false) > 0, "accounts keep their creation time today");
        assertEquals(0, creationTimes(image, false), "that binary kept none");
        creationTimes(today, true);
        for (int section = 0; section < SnapshotFormat.SECTION_COUNT_WITHOUT_COLD_TRANSFERS; section++)
        {
            assertSameSection(today, image, section);
        }
    }

    /**
     * Counts the accounts whose creation time the image holds (the first long of the pair of their sub-balance 0, which
     * holds no balance: {@code Accounts}' layout), and clears them when asked, as a binary from before kept them wrote it.
     */
    private static int creationTimes(final StateImage image, final boolean clear)
    {
        final int subBase = 6;   // the record's global slot of its sub-balance 0 (Accounts.SUB_BASE)
        final long[] records = image.accountRecords().values();
        final long[] pairs = image.subBalancePairs().values();
        int kept = 0;
        for (int record = 0; record < image.accountRecords().length(); record += LedgerLimits.ACCOUNT_RECORD_LONGS)
        {
            final int pair = 2 * (int)records[record + subBase];
            kept += pairs[pair] != 0 ? 1 : 0;
            if (clear)
            {
                pairs[pair] = 0;
            }
        }
        return kept;
    }

    @Test
    void shouldReadAVersionOneFileAsTheVersionTwoLayout() throws Exception
    {
        final byte[] versionTwo = versionTwoFile();
        Files.write(file, versionTwo);
        final StateImage expected = new StateImage();
        read(expected);
        Files.write(file, withVersion(versionTwo, SnapshotFormat.VERSION_WITHOUT_METADATA_BIT, SnapshotFormat.HEADER_LENGTH_WITHOUT_COLD_TRANSFERS));
        final StateImage image = new StateImage();
        assertEquals(SnapshotFormat.VERSION_WITHOUT_METADATA_BIT, read(image).formatVersion());
        for (int section = 0; section < SnapshotFormat.SECTION_COUNT; section++)
        {
            assertSameSection(expected, image, section);
        }
    }

    @Test
    void shouldRefuseAnUnknownVersionAndAnOlderVersionWithTheNewerLayout() throws Exception
    {
        final byte[] original = Files.readAllBytes(file);
        for (final int version : new int[] {SnapshotFormat.VERSION + 1, SnapshotFormat.VERSION_WITHOUT_COLD_TRANSFERS, 0})
        {
            Files.write(file, withVersion(original, version, SnapshotFormat.HEADER_LENGTH));
            final SnapshotCorruptException refused = assertThrows(SnapshotCorruptException.class, () -> read(new StateImage()));
            assertEquals("unknown format version " + version, refused.getMessage());
        }
    }

    @Test
    void shouldRejectAnyFlippedByte() throws Exception
    {
        flipEveryHeaderByteAndSomeBeyond(Files.readAllBytes(file));
        flipEveryHeaderByteAndSomeBeyond(versionTwoFile());
    }

    @Test
    void shouldRejectATruncatedOrExtendedFile() throws Exception
    {
        final byte[] original = Files.readAllBytes(file);
        for (final int length : new int[] {0, 7, SnapshotFormat.HEADER_LENGTH_WITHOUT_COLD_TRANSFERS - 1,
            SnapshotFormat.HEADER_LENGTH_WITHOUT_COLD_TRANSFERS, SnapshotFormat.HEADER_LENGTH - 1, SnapshotFormat.HEADER_LENGTH,
            original.length / 2, original.length - 1})
        {
            Files.write(file, Arrays.copyOf(original, length));
            assertThrows(SnapshotCorruptException.class, () -> read(new StateImage()), "truncated to " + length);
        }
        Files.write(file, Arrays.copyOf(original, original.length + 1));
        assertThrows(SnapshotCorruptException.class, () -> read(new StateImage()), "one byte too many");
    }

    private static Ledger run(final Path dataDir, final long seed, final int units) throws IOException
    {
        try (JournaledRun run = new JournaledRun(dataDir, seed, 0))
        {
            run.run(units);
            return run.ledger;
        }
    }

    private static byte[] versionTwoFile() throws IOException
    {
        try (InputStream in = SnapshotFormatTest.class.getResourceAsStream(VERSION_2_FILE))
        {
            return in.readAllBytes();
        }
    }

    /** The file with another format version and its header checksum (before {@code headerLength}) made right again. */
    private static byte[] withVersion(final byte[] file, final int version, final int headerLength)
    {
        final ByteBuffer bytes = ByteBuffer.wrap(file.clone()).order(ByteOrder.LITTLE_ENDIAN);
        bytes.putInt(SnapshotFormat.VERSION_OFFSET, version);
        final int crcOffset = headerLength - Integer.BYTES;
        final CRC32C crc = new CRC32C();
        crc.update(bytes.array(), 0, crcOffset);
        bytes.putInt(crcOffset, (int)crc.getValue());
        return bytes.array();
    }

    private static void assertSameSection(final StateImage expected, final StateImage actual, final int section)
    {
        if (section == SnapshotFormat.REFERENCE_TEXT_SECTION)
        {
            assertArrayEquals(Arrays.copyOf(expected.transferReferenceText().values(), expected.transferReferenceText().length()),
                Arrays.copyOf(actual.transferReferenceText().values(), actual.transferReferenceText().length()), "section " + section);
            return;
        }
        assertArrayEquals(content(longSection(expected, section)), content(longSection(actual, section)), "section " + section);
    }

    private static long[] content(final LongSection section)
    {
        return Arrays.copyOf(section.values(), section.length());
    }

    /** The sections in the file's order (reference texts, section 6, apart). */
    private static LongSection longSection(final StateImage image, final int section)
    {
        final LongSection[] sections = {image.accountRecords(), image.subBalancePairs(), image.keys(), image.references(),
            image.transfers(), image.transferReferenceLos(), null, image.holds(), image.coldTransfers()};
        return sections[section];
    }

    /** Every header byte, then bytes spread over the sections and their checksums, and the very last one. */
    private void flipEveryHeaderByteAndSomeBeyond(final byte[] original) throws IOException
    {
        for (int at = 0; at < original.length; at = at < SnapshotFormat.HEADER_LENGTH ? at + 1 : at + 1 + at / 7)
        {
            flipAndExpectRejection(original, at);
        }
        flipAndExpectRejection(original, original.length - 1);
    }

    private void flipAndExpectRejection(final byte[] original, final int at) throws IOException
    {
        final byte[] corrupt = original.clone();
        corrupt[at] ^= 0x10;
        Files.write(file, corrupt);
        assertThrows(SnapshotCorruptException.class, () -> read(new StateImage()), "byte " + at + " flipped");
    }

    private SnapshotHeader read(final StateImage image) throws IOException, SnapshotCorruptException
    {
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ))
        {
            return format.read(in, image);
        }
    }
}
