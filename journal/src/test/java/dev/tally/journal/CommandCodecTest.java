package dev.tally.journal;

import static dev.tally.journal.TestCommands.assertSameCommand;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import java.util.zip.CRC32C;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class CommandCodecTest
{
    private final CommandCodec codec = new CommandCodec();
    /** Writes layout version 1, as binaries before version 2 did: their journals must still read. */
    private final Layout1Writer version1 = new Layout1Writer();
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[CommandCodec.ENCODED_LENGTH_MAX + 16]);

    /** Written in the current layout, and in layout 1 as older binaries did: both read back. */
    @ParameterizedTest
    @EnumSource(CommandType.class)
    void shouldRoundTripEveryCommandTypeInEveryLayout(final CommandType type)
    {
        for (final int layoutVersion : new int[] {CommandCodec.VERSION, CommandCodec.VERSION_1})
        {
            final Command original = TestCommands.random(type, new Random(type.code()));
            if (layoutVersion == CommandCodec.VERSION_1)
            {
                TestCommands.withoutColdFields(original);
            }
            final int length = encode(layoutVersion, original, 3);
            final Command decoded = new Command();

            assertEquals(layoutVersion, buffer.getByte(3));
            assertEquals(DecodeStatus.OK, codec.decode(buffer, 3, length, decoded));
            assertSameCommand(original, decoded);
        }
    }

    @Test
    void shouldWriteOnlyTheFieldsThatAreNotZeroInLayoutVersion2()
    {
        final Command transfer = TestCommands.plainTransfer(7, "inv-45982");
        transfer.journalIndex = 0x0102030405060708L;

        final int length = codec.encode(transfer, buffer, 0);
        final ByteBuffer bytes = ByteBuffer.wrap(buffer.byteArray()).order(ByteOrder.LITTLE_ENDIAN);

        // every transfer field, batch position 0 included, but no account, overdraft limit, target or hold timeout
        // frame 14 (header, present, flags, reference length, checksum) + fields 92 + reference 9; version 1: 162 + 9
        assertEquals(14 + 92 + 9, length, "a transfer at batch position 0 without a reference hash");
        assertEquals(CommandCodec.encodedLength(transfer), length);
        assertEquals(2, bytes.get(0));
        assertEquals(CommandType.TRANSFER.code(), bytes.get(1));
        assertEquals(length, bytes.getShort(2));
        final int present = bytes.getInt(4);
        assertEquals(1 << Layout2Codec.FIELD_BATCH_SIZE | 1 << Layout2Codec.FIELD_JOURNAL_INDEX |
            1 << Layout2Codec.FIELD_TIMESTAMP_NS | 1 << Layout2Codec.FIELD_TENANT_ID | 1 << Layout2Codec.FIELD_KEY_HI |
            1 << Layout2Codec.FIELD_KEY_LO | 1 << Layout2Codec.FIELD_FINGERPRINT_HI | 1 << Layout2Codec.FIELD_FINGERPRINT_LO |
            1 << Layout2Codec.FIELD_CURRENCY | 1 << Layout2Codec.FIELD_DEBIT_ACCOUNT_ID |
            1 << Layout2Codec.FIELD_CREDIT_ACCOUNT_ID | 1 << Layout2Codec.FIELD_AMOUNT_MINOR |
            1 << Layout2Codec.FIELD_SUB_BALANCES, present);
        assertEquals(transfer.batchSize, bytes.getInt(8));
        assertEquals(0x0102030405060708L, bytes.getLong(12));
        assertEquals(transfer.timestampNs, bytes.getLong(20));
        assertEquals(transfer.currency, bytes.getInt(8 + 4 + 7 * 8));
        assertEquals(transfer.debitAccountId, bytes.getLong(8 + 4 + 7 * 8 + 4));
        final int flagsAt = length - 4 - 9 - 2;
        assertEquals(transfer.subBalances, bytes.getInt(flagsAt - 4));
        assertEquals(9, bytes.get(flagsAt + 1));
        assertEquals('i', bytes.get(flagsAt + 2));
        final CRC32C crc = new CRC32C();
        crc.update(buffer.byteArray(), 0, length - 4);
        assertEquals((int)crc.getValue(), bytes.getInt(length - 4));

        final Command decoded = TestCommands.random(CommandType.CREATE_ACCOUNT, new Random(1));   // every field set
        assertEquals(DecodeStatus.OK, codec.decode(buffer, 0, length, decoded));
        assertSameCommand(transfer, decoded);   // the absent fields read as 0 over whatever the holder had
        assertEquals(0, decoded.accountId);
    }

    @Test
    void shouldTakeFromTheRecordBeforeWhatABatchShares()
    {
        final Command first = TestCommands.plainTransfer(20, "");
        first.journalIndex = 41;
        first.batchSize = 100;
        first.coldWatermark = 37;
        final Command second = TestCommands.plainTransfer(21, "");
        second.coldWatermark = first.coldWatermark;
        second.journalIndex = 42;
        second.timestampNs = first.timestampNs;
        second.tenantId = first.tenantId;
        second.batchSize = first.batchSize;
        second.batchPosition = 1;
        second.currency = first.currency;

        final int firstLength = codec.encode(first, buffer, 0);
        final int secondLength = codec.encodeFollowing(second, buffer, firstLength);

        assertEquals(14 + 92 + 8, firstLength, "stands alone");
        assertEquals(14 + 92 + 4 - 32, secondLength,
            "its batch position, but not its index, time, tenant, batch size, currency, cold watermark");
        final int present = buffer.getInt(firstLength + Layout2Codec.PRESENT_OFFSET, ByteOrder.LITTLE_ENDIAN);
        assertEquals(Layout2Codec.AS_BEFORE_BITS, present & Layout2Codec.AS_BEFORE_BITS);
        assertEquals(0, present & Layout2Codec.fieldBitsOf(Layout2Codec.AS_BEFORE_BITS));
        final Command decoded = new Command();
        assertEquals(DecodeStatus.OK, codec.decode(buffer, 0, firstLength + secondLength, decoded));
        assertSameCommand(first, decoded);
        assertEquals(DecodeStatus.OK, codec.decodeFollowing(buffer, firstLength, secondLength, decoded));
        assertSameCommand(second, decoded);

        final CommandCodec fresh = new CommandCodec();
        assertEquals(DecodeStatus.BAD_LENGTH, fresh.decode(buffer, firstLength, secondLength, new Command()), "not alone");
        assertEquals(DecodeStatus.BAD_LENGTH, fresh.decodeFollowing(buffer, firstLength, secondLength, new Command()),
            "nothing decoded before it");
        buffer.putByte(40, (byte)(buffer.getByte(40) ^ 1));
        assertEquals(DecodeStatus.BAD_CHECKSUM, fresh.decode(buffer, 0, firstLength, new Command()));
        assertEquals(DecodeStatus.BAD_LENGTH, fresh.decodeFollowing(buffer, firstLength, secondLength, new Command()),
            "the record before it did not decode");
        buffer.putByte(40, (byte)(buffer.getByte(40) ^ 1));

        for (int offset = firstLength; offset < firstLength + secondLength; offset++)
        {
            for (int bit = 0; bit < 8; bit++)
            {
                final byte original = buffer.getByte(offset);
                buffer.putByte(offset, (byte)(original ^ (1 << bit)));
                assertEquals(DecodeStatus.OK, fresh.decode(buffer, 0, firstLength, new Command()));
                assertNotEquals(DecodeStatus.OK, fresh.decodeFollowing(buffer, firstLength, secondLength, new Command()),
                    "flip of bit " + bit + " at offset " + (offset - firstLength));
                buffer.putByte(offset, original);
            }
        }
    }

    @Test
    void shouldWriteAgainWhatDiffersFromTheRecordBefore()
    {
        final Command first = TestCommands.plainTransfer(22, "a");
        final Command second = TestCommands.plainTransfer(23, "b");   // another tenant, time, index, currency
        second.batchSize = first.batchSize;

        final int firstLength = codec.encode(first, buffer, 0);
        final int secondLength = codec.encodeFollowing(second, buffer, firstLength);

        assertEquals(firstLength - 4, secondLength, "only the batch size is taken");
        assertEquals(Layout2Codec.SAME_BATCH_SIZE,
            buffer.getInt(firstLength + Layout2Codec.PRESENT_OFFSET, ByteOrder.LITTLE_ENDIAN) & Layout2Codec.AS_BEFORE_BITS);
        final Command decoded = new Command();
        assertEquals(DecodeStatus.OK, codec.decode(buffer, 0, firstLength, decoded));
        assertEquals(DecodeStatus.OK, codec.decodeFollowing(buffer, firstLength, secondLength, decoded));
        assertSameCommand(second, decoded);
    }

    @Test
    void shouldJournalWhetherATransferRejectionNamesItsAccount()
    {
        final Command named = TestCommands.plainTransfer(9, "abc");
        named.rejectionNamesAccount = true;
        final int length = codec.encode(named, buffer, 0);
        final Command decoded = new Command();

        assertEquals(Layout2Codec.NAMES_REJECTED_ACCOUNT,
            buffer.getInt(Layout2Codec.PRESENT_OFFSET, ByteOrder.LITTLE_ENDIAN) & Layout2Codec.NAMES_REJECTED_ACCOUNT);
        assertEquals(DecodeStatus.OK, codec.decode(buffer, 0, length, decoded));
        assertTrue(decoded.rejectionNamesAccount);

        // a record written before the rule (no bit, or layout 1) replays as it was decided: naming nothing
        final Command unnamed = TestCommands.plainTransfer(9, "abc");
        final int plainLength = codec.encode(unnamed, buffer, 0);
        assertEquals(length, plainLength, "the rule's bit costs no byte");
        assertEquals(DecodeStatus.OK, codec.decode(buffer, 0, plainLength, decoded));
        assertFalse(decoded.rejectionNamesAccount);
        decoded.rejectionNamesAccount = true;
        final int oldLength = version1.encode(unnamed, buffer, 0);
        assertEquals(DecodeStatus.OK, codec.decode(buffer, 0, oldLength, decoded));
        assertFalse(decoded.rejectionNamesAccount);
    }

    @Test
    void shouldRejectPresentBitsThatDisagreeWithTheRecord()
    {
        final Command transfer = TestCommands.plainTransfer(8, "abc");
        final int length = codec.encode(transfer, buffer, 0);
        final int present = buffer.getInt(Layout2Codec.PRESENT_OFFSET, ByteOrder.LITTLE_ENDIAN);
        for (final int wrong : new int[] {present | 1 << 26, present | 1 << 30, present | 1 << Layout2Codec.FIELD_ACCOUNT_ID,
            present | Layout2Codec.SAME_TENANT_ID, present | Layout2Codec.SEQUEL_JOURNAL_INDEX,
            present & ~(1 << Layout2Codec.FIELD_BATCH_SIZE), present & ~(1 << Layout2Codec.FIELD_TENANT_ID), -1})
        {
            buffer.putInt(Layout2Codec.PRESENT_OFFSET, wrong, ByteOrder.LITTLE_ENDIAN);
            resealChecksum(length);
            assertEquals(DecodeStatus.BAD_LENGTH, codec.decode(buffer, 0, length, new Command()), "present " + Integer.toHexString(wrong));
        }
    }

    @Test
    void shouldLayFieldsOutLittleEndianAtDocumentedOffsetsInLayoutVersion1()
    {
        final Command command = TestCommands.transfer(7, "inv-45982");
        command.journalIndex = 0x0102030405060708L;
        command.batchSize = 3;

        final int length = version1.encode(command, buffer, 0);
        final ByteBuffer bytes = ByteBuffer.wrap(buffer.byteArray()).order(ByteOrder.LITTLE_ENDIAN);

        assertEquals(Layout1Reader.FIXED_LENGTH + 9, length);
        assertEquals(162, Layout1Reader.FIXED_LENGTH);
        assertEquals(CommandCodec.VERSION_1, bytes.get(0));
        assertEquals(CommandType.TRANSFER.code(), bytes.get(1));
        assertEquals(length, bytes.getShort(2));
        assertEquals(3, bytes.getInt(4));
        assertEquals(0x0102030405060708L, bytes.getLong(8));
        assertEquals(9, bytes.get(157));
        assertEquals('i', bytes.get(158));
        final CRC32C crc = new CRC32C();
        crc.update(buffer.byteArray(), 0, length - 4);
        assertEquals((int)crc.getValue(), bytes.getInt(length - 4));
    }

    @Test
    void shouldWriteOnlyReferenceLengthBytesOfTheReference()
    {
        final Command command = TestCommands.transfer(1, "x");
        command.batchPosition = 1;
        command.coldWatermark = 5;   // now every field is set
        command.reference[1] = 'y';
        assertEquals(Layout2Codec.FIELDS_LENGTH_MAX, Layout2Codec.fieldsLength(Layout2Codec.FIELD_BITS));
        final int everyField = Layout2Codec.FRAME_LENGTH + Layout2Codec.FIELDS_LENGTH_MAX;

        assertEquals(everyField + 1, codec.encode(command, buffer, 0));
        assertEquals(Layout1Reader.FIXED_LENGTH + 1, version1.encode(command, buffer, 0));
        command.referenceLength = 0;
        assertEquals(everyField, codec.encode(command, buffer, 0));
        assertEquals(Layout1Reader.FIXED_LENGTH, version1.encode(command, buffer, 0));
        command.referenceLength = LedgerLimits.REFERENCE_LENGTH_MAX;
        assertEquals(everyField + LedgerLimits.REFERENCE_LENGTH_MAX, codec.encode(command, buffer, 0));
        command.metadata.reserve(LedgerLimits.METADATA_LENGTH_MAX);
        command.metadataLength = LedgerLimits.METADATA_LENGTH_MAX;
        command.coldKeyFound = true;
        command.coldTransferFound = true;
        assertEquals(CommandCodec.ENCODED_LENGTH_MAX, codec.encode(command, buffer, 0));
        assertEquals(CommandCodec.ENCODED_LENGTH_MAX - 4 - 8, version1.encode(command, buffer, 0),
            "version 1 has no present bits and no cold watermark");

        final Command empty = new Command();
        empty.type = CommandType.TRANSFER;
        empty.batchSize = 0;
        empty.subBalances = 0;
        assertEquals(CommandCodec.ENCODED_LENGTH_MIN, codec.encode(empty, buffer, 0));
        final Command decoded = TestCommands.transfer(2, "over");
        assertEquals(DecodeStatus.OK, codec.decode(buffer, 0, CommandCodec.ENCODED_LENGTH_MIN, decoded));
        assertSameCommand(empty, decoded);
    }

    @Test
    void shouldLayMetadataOutAfterTheReferenceWithItsLengthFirst()
    {
        final String metadata = "{\"orderId\":\"A-17\",\"ş\":\"ü\"}";
        final Command command = TestCommands.withMetadata(TestCommands.transfer(12, "inv-1"), metadata);
        final int metadataBytes = metadata.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;

        final int length = version1.encode(command, buffer, 0);
        final ByteBuffer bytes = ByteBuffer.wrap(buffer.byteArray()).order(ByteOrder.LITTLE_ENDIAN);

        assertEquals(Layout1Reader.FIXED_LENGTH + 5 + 2 + metadataBytes, length);
        assertEquals(CommandRecordTail.FLAG_METADATA, bytes.get(Layout1Reader.FLAGS_OFFSET) & CommandRecordTail.FLAG_METADATA);
        assertEquals(metadataBytes, bytes.getShort(158 + 5));
        assertEquals(metadata, new String(buffer.byteArray(), 158 + 5 + 2, metadataBytes, java.nio.charset.StandardCharsets.UTF_8));
        final Command decoded = new Command();
        assertEquals(DecodeStatus.OK, codec.decode(buffer, 0, length, decoded));
        assertSameCommand(command, decoded);
        // and a record without metadata keeps the layout written before metadata existed: no flag, no length field
        final int plain = version1.encode(TestCommands.transfer(12, "inv-1"), buffer, 0);
        assertEquals(Layout1Reader.FIXED_LENGTH + 5, plain);
        assertEquals(0, bytes.get(Layout1Reader.FLAGS_OFFSET) & CommandRecordTail.FLAG_METADATA);
    }

    @Test
    void shouldRejectMetadataLengthsThatDisagreeWithTheRecord()
    {
        final Command withMetadata = TestCommands.withMetadata(TestCommands.transfer(13, "abc"), "{\"a\":\"b\"}");
        final int length = version1.encode(withMetadata, buffer, 0);
        final int lengthField = Layout1Reader.REFERENCE_OFFSET + 3;
        for (final int wrong : new int[] {0, 8, 10, LedgerLimits.METADATA_LENGTH_MAX + 1, 0xFFFF})
        {
            buffer.putShort(lengthField, (short)wrong, ByteOrder.LITTLE_ENDIAN);
            resealChecksum(length);
            assertEquals(DecodeStatus.BAD_LENGTH, codec.decode(buffer, 0, length, new Command()), "metadata length " + wrong);
        }
        // the flag on a record that has no metadata
        final int plain = version1.encode(TestCommands.transfer(13, "abc"), buffer, 0);
        buffer.putByte(Layout1Reader.FLAGS_OFFSET, (byte)(buffer.getByte(Layout1Reader.FLAGS_OFFSET) | CommandRecordTail.FLAG_METADATA));
        resealChecksum(plain);
        assertEquals(DecodeStatus.BAD_LENGTH, codec.decode(buffer, 0, plain, new Command()));
    }

    @Test
    void shouldRejectUnknownVersion()
    {
        final int length = codec.encode(TestCommands.transfer(2, "ref"), buffer, 0);
        for (final int unknown : new int[] {0, CommandCodec.VERSION + 1, 0xFF})
        {
            buffer.putByte(0, (byte)unknown);
            resealChecksum(length);

            assertEquals(DecodeStatus.UNKNOWN_VERSION, codec.decode(buffer, 0, length, new Command()), "version " + unknown);
        }
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"'', 2", "'{\"k\":\"v\"}', 2", "'', 1", "'{\"k\":\"v\"}', 1"})
    void shouldRejectEverySingleBitFlipWithBadChecksumOrWorse(final String metadata, final int layoutVersion)
    {
        final int length = encode(layoutVersion, TestCommands.withMetadata(TestCommands.plainTransfer(3, "bitflip"), metadata), 0);
        final Command decoded = new Command();
        for (int offset = 0; offset < length; offset++)
        {
            for (int bit = 0; bit < 8; bit++)
            {
                final byte original = buffer.getByte(offset);
                buffer.putByte(offset, (byte)(original ^ (1 << bit)));

                final DecodeStatus status = codec.decode(buffer, 0, length, decoded);

                assertNotEquals(DecodeStatus.OK, status, "flip of bit " + bit + " at offset " + offset);
                buffer.putByte(offset, original);
            }
        }
        assertEquals(DecodeStatus.OK, codec.decode(buffer, 0, length, decoded));
    }

    @Test
    void shouldRejectTruncatedRecord()
    {
        final int length = codec.encode(TestCommands.transfer(4, "truncated"), buffer, 0);

        assertEquals(DecodeStatus.TRUNCATED, codec.decode(buffer, 0, length - 1, new Command()));
        assertEquals(DecodeStatus.TRUNCATED, codec.decode(buffer, 0, 3, new Command()));
    }

    @Test
    void shouldRejectUnknownTypeEvenWithGoodChecksum()
    {
        final int length = codec.encode(TestCommands.transfer(5, "type"), buffer, 0);
        int unknown = 1;
        while (CommandType.fromCode(unknown) != null)
        {
            unknown++;   // the first code no command type has, whichever types are appended
        }
        buffer.putByte(1, (byte)unknown);
        resealChecksum(length);

        assertEquals(DecodeStatus.UNKNOWN_TYPE, codec.decode(buffer, 0, length, new Command()));
    }

    @Test
    void shouldRejectReferenceLengthThatDisagreesWithRecordLength()
    {
        final int length = version1.encode(TestCommands.transfer(6, "abc"), buffer, 0);
        buffer.putByte(Layout1Reader.REFERENCE_LENGTH_OFFSET, (byte)2);
        resealChecksum(length);

        assertEquals(DecodeStatus.BAD_LENGTH, codec.decode(buffer, 0, length, new Command()));

        final int compact = codec.encode(TestCommands.transfer(6, "abc"), buffer, 0);
        final int referenceLengthAt = compact - 4 - 3 - 1;
        assertEquals(3, buffer.getByte(referenceLengthAt));
        for (final int wrong : new int[] {2, 4, LedgerLimits.REFERENCE_LENGTH_MAX + 1, 0xFF})
        {
            buffer.putByte(referenceLengthAt, (byte)wrong);
            resealChecksum(compact);
            assertEquals(DecodeStatus.BAD_LENGTH, codec.decode(buffer, 0, compact, new Command()), "reference length " + wrong);
        }
    }

    @Test
    void shouldDecodeFromOffHeapBuffer()
    {
        final UnsafeBuffer direct = new UnsafeBuffer(ByteBuffer.allocateDirect(100 + CommandCodec.ENCODED_LENGTH_MAX));
        final Command original = TestCommands.random(CommandType.CREATE_ACCOUNT, new Random(11));

        final int length = codec.encode(original, direct, 100);
        final Command decoded = new Command();

        assertEquals(DecodeStatus.OK, codec.decode(direct, 100, length, decoded));
        assertSameCommand(original, decoded);
        direct.putByte(130, (byte)(direct.getByte(130) ^ 1));
        assertEquals(DecodeStatus.BAD_CHECKSUM, codec.decode(direct, 100, length, decoded));
    }

    @Test
    void shouldRefuseToEncodeWhatCannotBeDecoded()
    {
        final Command noType = TestCommands.transfer(8, "t");
        noType.type = null;
        final Command longReference = TestCommands.transfer(8, "t");
        longReference.referenceLength = LedgerLimits.REFERENCE_LENGTH_MAX + 1;
        final Command longMetadata = TestCommands.transfer(8, "t");
        longMetadata.metadataLength = LedgerLimits.METADATA_LENGTH_MAX + 1;

        assertThrows(IllegalArgumentException.class, () -> codec.encode(noType, buffer, 0));
        assertThrows(IllegalArgumentException.class, () -> codec.encode(longReference, buffer, 0));
        assertThrows(IllegalArgumentException.class, () -> codec.encode(longMetadata, buffer, 0));
        assertThrows(IllegalArgumentException.class,
            () -> codec.encode(TestCommands.transfer(8, "t"), new UnsafeBuffer(new byte[100]), 0));
    }

    @Test
    void shouldNotAllocateWhenEncodingAndDecoding()
    {
        final Command original = TestCommands.transfer(9, "no-garbage");
        final Command decoded = new Command();
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 20_000; i++)
        {
            codec.decode(buffer, 0, codec.encode(original, buffer, 0), decoded);
        }

        final long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++)
        {
            codec.decode(buffer, 0, codec.encode(original, buffer, 0), decoded);
        }
        final long allocatedBytes = threads.getCurrentThreadAllocatedBytes() - before;

        assertTrue(allocatedBytes < 100_000, "allocated " + allocatedBytes + " bytes for 100,000 round trips: an allocation per round trip");
    }

    private void resealChecksum(final int length)
    {
        final CRC32C crc = new CRC32C();
        crc.update(buffer.byteArray(), 0, length - 4);
        buffer.putInt(length - 4, (int)crc.getValue(), ByteOrder.LITTLE_ENDIAN);
    }

    /** @return bytes written at {@code offset} in layout {@code layoutVersion}: the current one, or 1 as older ones did. */
    private int encode(final int layoutVersion, final Command command, final int offset)
    {
        return layoutVersion == CommandCodec.VERSION_1 ?
            version1.encode(command, buffer, offset) : codec.encode(command, buffer, offset);
    }
}
