package dev.tally.snapshotter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.account.LowBalanceAlert;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.image.LongSection;
import dev.tally.ledger.image.StateImage;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.result.ResultCode;
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
    void shouldCarryLowBalanceAlertsThroughAFile() throws Exception
    {
        final Ledger alerted = new Ledger(Workload.CONFIG);
        long index = 0;
        final int usd = CurrencyCode.pack("USD");
        assertEquals(ResultCode.OK, alerted.apply(keyed(CommandType.CREATE_ACCOUNT, ++index, 1, usd, 0)).code);
        final Command withAlert = keyed(CommandType.CREATE_ACCOUNT, ++index, 2, usd, 0);
        withAlert.amountMinor = 500;
        assertEquals(ResultCode.OK, alerted.apply(withAlert).code);
        final Command funding = keyed(CommandType.TRANSFER, ++index, 0, usd, 1_000);
        funding.debitAccountId = 1;
        funding.creditAccountId = 2;
        assertEquals(ResultCode.OK, alerted.apply(funding).code);
        final Command set = keyed(CommandType.SET_LOW_BALANCE_ALERT, ++index, 1, usd, 250);
        assertEquals(ResultCode.OK, alerted.apply(set).code);
        final StateImage written = new StateImage();
        alerted.copyTo(written);
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING))
        {
            format.write(written, written.stateHash(), out);
        }

        final StateImage image = new StateImage();
        final SnapshotHeader header = read(image);
        final Ledger restored = Ledger.restore(Workload.CONFIG, image);
        assertEquals(alerted.stateHash(), header.stateHash());
        assertEquals(alerted.stateHash(), restored.stateHash());
        final AccountView account = restored.readAccount(2, 1, new AccountView());
        assertEquals(500, account.lowBalanceThresholdMinor);
        assertEquals(LowBalanceAlert.ARMED, account.lowBalanceAlertState);
        assertEquals(250, restored.readAccount(1, 1, new AccountView()).lowBalanceThresholdMinor);
    }

    @Test
    void shouldReadAVersionThreeFileWithoutLowBalanceThresholds() throws Exception
    {
        final StateImage expected = new StateImage();
        read(expected);
        final StateImage image = new StateImage();
        read(image);   // the version-4 file first: the image it leaves holds thresholds, which the older file must clear
        assertTrue(image.lowBalanceThresholds().length() > 0);
        Files.write(file, asVersionThree(Files.readAllBytes(file)));
        final SnapshotHeader header = read(image);
        assertEquals(SnapshotFormat.VERSION_WITHOUT_ALERTS, header.formatVersion());
        assertEquals(0, image.lowBalanceThresholds().length());
        for (int section = 0; section < SnapshotFormat.SECTION_COUNT_WITHOUT_ALERTS; section++)
        {
            assertSameSection(expected, image, section);
        }
        assertEquals(header.stateHash(), Ledger.restore(Workload.CONFIG, image).stateHash(), "a ledger without alerts hashes alike");
    }

    @Test
    void shouldRefuseAnUnknownVersionAndAnOlderVersionWithTheNewerLayout() throws Exception
    {
        final byte[] original = Files.readAllBytes(file);
        for (final int version : new int[] {SnapshotFormat.VERSION + 1, SnapshotFormat.VERSION_WITHOUT_ALERTS,
            SnapshotFormat.VERSION_WITHOUT_COLD_TRANSFERS, 0})
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

    /**
     * The version-4 file as version 3 wrote the same state: version 3, 9 sections, no section lengths nor body for the
     * low-balance thresholds, the header checksum made right again. Only for a ledger without thresholds (a version-3
     * ledger had none).
     */
    private static byte[] asVersionThree(final byte[] file)
    {
        final ByteBuffer four = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        final int lengthsAt = SnapshotFormat.SECTION_LENGTHS_OFFSET;
        final long lastSection = four.getLong(lengthsAt + SnapshotFormat.LOW_BALANCE_THRESHOLD_SECTION * Long.BYTES);
        final int headerThree = SnapshotFormat.HEADER_LENGTH_WITHOUT_ALERTS;
        final int sectionsThree = file.length - SnapshotFormat.HEADER_LENGTH - (int)lastSection - Integer.BYTES;
        final ByteBuffer three = ByteBuffer.allocate(headerThree + sectionsThree).order(ByteOrder.LITTLE_ENDIAN);
        three.put(file, 0, headerThree - Integer.BYTES);
        three.putInt(SnapshotFormat.VERSION_OFFSET, SnapshotFormat.VERSION_WITHOUT_ALERTS);
        three.putInt(SnapshotFormat.SECTION_COUNT_OFFSET, SnapshotFormat.SECTION_COUNT_WITHOUT_ALERTS);
        final CRC32C crc = new CRC32C();
        crc.update(three.array(), 0, headerThree - Integer.BYTES);
        three.putInt(headerThree - Integer.BYTES, (int)crc.getValue());
        three.position(headerThree);
        three.put(file, SnapshotFormat.HEADER_LENGTH, sectionsThree);
        return three.array();
    }

    /** A keyed command of the snapshot tests' tenant 1, sealed with a fingerprint of its index. */
    private static Command keyed(final CommandType type, final long index, final long accountId, final int currency, final long amount)
    {
        final Command c = new Command();
        c.type = type;
        c.journalIndex = index;
        c.timestampNs = Workload.START_NS + index * 1_000_000L;
        c.tenantId = 1;
        c.keyHi = index;
        c.keyLo = index;
        c.fingerprintHi = index;
        c.fingerprintLo = index;
        c.accountId = accountId;
        c.currency = currency;
        c.amountMinor = amount;
        c.subBalances = 1;
        c.debitsMustNotExceedCredits = accountId != 1;
        return c;
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
            image.transfers(), image.transferReferenceLos(), null, image.holds(), image.coldTransfers(), image.lowBalanceThresholds()};
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
