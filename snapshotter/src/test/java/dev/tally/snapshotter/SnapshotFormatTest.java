package dev.tally.snapshotter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.image.StateImage;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotFormatTest
{
    @TempDir
    Path dir;

    private Path file;
    private Ledger ledger;

    @BeforeEach
    void writeOne() throws IOException
    {
        try (JournaledRun run = new JournaledRun(dir.resolve("data"), 7, 0))
        {
            run.run(600);
            ledger = run.ledger;
        }
        final StateImage image = new StateImage();
        ledger.copyTo(image);
        file = dir.resolve("one.tsnap");
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
        {
            new SnapshotFormat().write(image, image.stateHash(), out);
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
    void shouldReadAVersionOneFileAndRefuseAnUnknownVersion() throws Exception
    {
        final byte[] original = Files.readAllBytes(file);
        Files.write(file, withVersion(original, SnapshotFormat.VERSION_WITHOUT_METADATA_BIT));
        final StateImage image = new StateImage();
        assertEquals(SnapshotFormat.VERSION_WITHOUT_METADATA_BIT, read(image).formatVersion());
        assertEquals(ledger.stateHash(), Ledger.restore(Workload.CONFIG, image).stateHash(), "the same layout, read as it is");

        Files.write(file, withVersion(original, SnapshotFormat.VERSION + 1));
        final SnapshotCorruptException refused = org.junit.jupiter.api.Assertions.assertThrows(SnapshotCorruptException.class,
            () -> read(new StateImage()));
        assertEquals("unknown format version " + (SnapshotFormat.VERSION + 1), refused.getMessage());
    }

    /** The file with another format version and its header checksum made right again. */
    private static byte[] withVersion(final byte[] file, final int version)
    {
        final java.nio.ByteBuffer bytes = java.nio.ByteBuffer.wrap(file.clone()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        bytes.putInt(SnapshotFormat.VERSION_OFFSET, version);
        final java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(bytes.array(), 0, SnapshotFormat.HEADER_CRC_OFFSET);
        bytes.putInt(SnapshotFormat.HEADER_CRC_OFFSET, (int)crc.getValue());
        return bytes.array();
    }

    @Test
    void shouldRejectAnyFlippedByte() throws Exception
    {
        final byte[] original = Files.readAllBytes(file);
        // Every header byte, then bytes spread over the sections and their checksums, and the very last one.
        for (int at = 0; at < original.length; at = at < SnapshotFormat.HEADER_LENGTH ? at + 1 : at + 1 + at / 7)
        {
            flipAndExpectRejection(original, at);
        }
        flipAndExpectRejection(original, original.length - 1);
    }

    @Test
    void shouldRejectATruncatedOrExtendedFile() throws Exception
    {
        final byte[] original = Files.readAllBytes(file);
        for (final int length : new int[] {0, 7, SnapshotFormat.HEADER_LENGTH - 1, SnapshotFormat.HEADER_LENGTH,
            original.length / 2, original.length - 1})
        {
            Files.write(file, java.util.Arrays.copyOf(original, length));
            assertThrows(SnapshotCorruptException.class, () -> read(new StateImage()), "truncated to " + length);
        }
        Files.write(file, java.util.Arrays.copyOf(original, original.length + 1));
        assertThrows(SnapshotCorruptException.class, () -> read(new StateImage()), "one byte too many");
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
            return new SnapshotFormat().read(in, image);
        }
    }
}
