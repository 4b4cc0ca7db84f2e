package dev.tally.journal;

import static dev.tally.journal.RecordHeader.BYTE_ORDER;

import java.util.zip.CRC32C;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Encodes and decodes one {@link Command} as a journal record, reading and writing the fields in place
 * in an Agrona buffer (a flyweight: no intermediate object, no allocation).
 *
 * <p>It writes layout version 2 and reads versions 1 and 2, little-endian both. Every command type uses the same
 * layout, so the codec is lossless whatever fields a type uses.
 *
 * <p><b>Version 2</b>, the version written: the fields of version 1 in the same order, but only those that are
 * not zero, with a bit set for each in {@code present}. A type writes none of the fields it does not use (a transfer
 * has no account, overdraft limit, target or hold timeout), so a transfer takes 110 bytes (106 at batch position 0;
 * 16 more with a reference, plus its text) where version 1 takes 162: fewer bytes for the journaler to copy, page in,
 * checksum and force.
 *
 * <p>A record that follows another in the same journal document ({@link #encodeFollowing}) does not repeat what the
 * batch shares: bit 21 says its journal index is the one before's + 1, bits 22 to 25 that its time, tenant, batch size
 * and currency are the one before's. A transfer of a batch request then takes 78 bytes. Such a record is read only
 * right after the one before it ({@link #decodeFollowing}); the first record of a document has none of these bits.
 *
 * <pre>
 * offset size  field
 *      0    1  version                    u8   = {@link #VERSION} (2)
 *      1    1  record type                u8   {@link CommandType#code()}
 *      2    2  record length              u16
 *      4    4  present                    u32  bit i set: field i below is in the record; bits 21..25: the field is as
 *                                              in the record before, in the same document (see below); 26..31 clear
 *      8       fields                          each present field, in the order of this list, at its size:
 *                                              0 batchSize i32, 1 journalIndex i64, 2 timestampNs i64, 3 tenantId i64,
 *                                              4 keyHi i64, 5 keyLo i64, 6 fingerprintHi i64, 7 fingerprintLo i64,
 *                                              8 batchPosition i32, 9 currency i32, 10 accountId i64,
 *                                              11 debitAccountId i64, 12 creditAccountId i64, 13 amountMinor i64,
 *                                              14 overdraftLimitMinor i64, 15 targetIdHi i64, 16 targetIdLo i64,
 *                                              17 holdTimeoutMs i64, 18 referenceHi i64, 19 referenceLo i64,
 *                                              20 subBalances i32; an absent field reads as 0
 *      f    1  flags                      u8   as in version 1
 *    f+1    1  referenceLength            u8
 *    f+2    n  reference
 *  f+2+n    2  metadataLength             u16  only with flag bit 4, as in version 1
 *  f+4+n    m  metadata
 *      e    4  crc32c                     over bytes [0, e)
 * </pre>
 *
 * <p><b>Version 1</b>, the layout journals written before version 2 hold; every field at a fixed offset:
 *
 * <pre>
 * offset size  field
 *      0    1  version                    u8   = {@link #VERSION_1}
 *      1    1  record type                u8   {@link CommandType#code()}
 *      2    2  record length              u16  {@link #FIXED_LENGTH} + referenceLength (+ 2 + metadataLength)
 *      4    4  batchSize                  i32
 *      8    8  journalIndex               i64
 *     16    8  timestampNs                i64
 *     24    8  tenantId                   i64
 *     32    8  keyHi                      i64
 *     40    8  keyLo                      i64
 *     48    8  fingerprintHi              i64
 *     56    8  fingerprintLo              i64
 *     64    4  batchPosition              i32
 *     68    4  currency                   i32  packed ISO 4217 code
 *     72    8  accountId                  i64
 *     80    8  debitAccountId             i64
 *     88    8  creditAccountId            i64
 *     96    8  amountMinor                i64
 *    104    8  overdraftLimitMinor        i64
 *    112    8  targetIdHi                 i64
 *    120    8  targetIdLo                 i64
 *    128    8  holdTimeoutMs              i64
 *    136    8  referenceHi                i64
 *    144    8  referenceLo                i64
 *    152    4  subBalances                i32
 *    156    1  flags                      u8   bit 0 atomic, bit 1 debitsMustNotExceedCredits, bit 2 referenceTaken,
 *                                               bit 3 referenceUnchecked, bit 4 metadata
 *    157    1  referenceLength            u8   0..{@link LedgerLimits#REFERENCE_LENGTH_MAX}
 *    158    n  reference                  n = referenceLength ASCII bytes
 *  158+n    2  metadataLength             u16  1..{@link LedgerLimits#METADATA_LENGTH_MAX}, only with flag bit 4
 *  160+n    m  metadata                   m = metadataLength bytes (canonical JSON, UTF-8), only with flag bit 4
 *      e    4  crc32c                     over bytes [0, e): e = 158+n without metadata, 160+n+m with it
 * </pre>
 *
 * <p>A version 1 record is 162 to 226 bytes without metadata, up to 1,252 with it. A binary older than flag bit 4
 * reads a record that has metadata as {@code BAD_LENGTH}, and one older than version 2 reads a version 2 record as
 * {@code UNKNOWN_VERSION}: do not roll back past either onto a journal that has such records.
 *
 * <p>Decoding checks, in this order, the length available, the version, the announced length, the CRC32C, the
 * type, the fields present (version 2), the reference length and the metadata length
 * (1..{@link LedgerLimits#METADATA_LENGTH_MAX}, and that the lengths add up to the record's), and reports the first
 * failure as a {@link DecodeStatus}; a record that fails any check leaves the target command unspecified.
 *
 * <p>One instance per thread: it owns a {@link CRC32C}, a scratch array and a cursor that it reuses.
 */
public final class CommandCodec
{
    /** Version byte of the layout written. Bump it (and keep decoding the old ones) on any change. */
    public static final int VERSION = 2;
    /** Version byte of the fixed-offset layout written before version 2, still read. */
    public static final int VERSION_1 = 1;

    static final int BATCH_SIZE_OFFSET = RecordHeader.LENGTH;
    static final int JOURNAL_INDEX_OFFSET = BATCH_SIZE_OFFSET + Integer.BYTES;
    static final int TIMESTAMP_NS_OFFSET = JOURNAL_INDEX_OFFSET + Long.BYTES;
    static final int TENANT_ID_OFFSET = TIMESTAMP_NS_OFFSET + Long.BYTES;
    static final int KEY_HI_OFFSET = TENANT_ID_OFFSET + Long.BYTES;
    static final int KEY_LO_OFFSET = KEY_HI_OFFSET + Long.BYTES;
    static final int FINGERPRINT_HI_OFFSET = KEY_LO_OFFSET + Long.BYTES;
    static final int FINGERPRINT_LO_OFFSET = FINGERPRINT_HI_OFFSET + Long.BYTES;
    static final int BATCH_POSITION_OFFSET = FINGERPRINT_LO_OFFSET + Long.BYTES;
    static final int CURRENCY_OFFSET = BATCH_POSITION_OFFSET + Integer.BYTES;
    static final int ACCOUNT_ID_OFFSET = CURRENCY_OFFSET + Integer.BYTES;
    static final int DEBIT_ACCOUNT_ID_OFFSET = ACCOUNT_ID_OFFSET + Long.BYTES;
    static final int CREDIT_ACCOUNT_ID_OFFSET = DEBIT_ACCOUNT_ID_OFFSET + Long.BYTES;
    static final int AMOUNT_MINOR_OFFSET = CREDIT_ACCOUNT_ID_OFFSET + Long.BYTES;
    static final int OVERDRAFT_LIMIT_MINOR_OFFSET = AMOUNT_MINOR_OFFSET + Long.BYTES;
    static final int TARGET_ID_HI_OFFSET = OVERDRAFT_LIMIT_MINOR_OFFSET + Long.BYTES;
    static final int TARGET_ID_LO_OFFSET = TARGET_ID_HI_OFFSET + Long.BYTES;
    static final int HOLD_TIMEOUT_MS_OFFSET = TARGET_ID_LO_OFFSET + Long.BYTES;
    static final int REFERENCE_HI_OFFSET = HOLD_TIMEOUT_MS_OFFSET + Long.BYTES;
    static final int REFERENCE_LO_OFFSET = REFERENCE_HI_OFFSET + Long.BYTES;
    static final int SUB_BALANCES_OFFSET = REFERENCE_LO_OFFSET + Long.BYTES;
    static final int FLAGS_OFFSET = SUB_BALANCES_OFFSET + Integer.BYTES;
    static final int REFERENCE_LENGTH_OFFSET = FLAGS_OFFSET + Byte.BYTES;
    static final int REFERENCE_OFFSET = REFERENCE_LENGTH_OFFSET + Byte.BYTES;

    static final int FLAG_ATOMIC = 1;
    static final int FLAG_DEBITS_MUST_NOT_EXCEED_CREDITS = 1 << 1;
    /** Added within version 1: records written before it never set the bit, and read it as false. */
    static final int FLAG_REFERENCE_TAKEN = 1 << 2;
    /** Added within version 1, like {@link #FLAG_REFERENCE_TAKEN}. */
    static final int FLAG_REFERENCE_UNCHECKED = 1 << 3;
    /** Added within version 1: a transfer's metadata follows the reference text (its length first, u16). */
    static final int FLAG_METADATA = 1 << 4;
    static final int METADATA_LENGTH_SIZE = Short.BYTES;

    /** Version 1: bytes of a record whose reference is empty, everything but the reference text. */
    public static final int FIXED_LENGTH = REFERENCE_OFFSET + RecordHeader.CHECKSUM_SIZE;

    /** Version 2: where {@code present} sits, and where the fields it announces start. */
    static final int PRESENT_OFFSET = RecordHeader.LENGTH;
    static final int FIELDS_OFFSET = PRESENT_OFFSET + Integer.BYTES;
    static final int FIELD_BATCH_SIZE = 0;
    static final int FIELD_JOURNAL_INDEX = 1;
    static final int FIELD_TIMESTAMP_NS = 2;
    static final int FIELD_TENANT_ID = 3;
    static final int FIELD_KEY_HI = 4;
    static final int FIELD_KEY_LO = 5;
    static final int FIELD_FINGERPRINT_HI = 6;
    static final int FIELD_FINGERPRINT_LO = 7;
    static final int FIELD_BATCH_POSITION = 8;
    static final int FIELD_CURRENCY = 9;
    static final int FIELD_ACCOUNT_ID = 10;
    static final int FIELD_DEBIT_ACCOUNT_ID = 11;
    static final int FIELD_CREDIT_ACCOUNT_ID = 12;
    static final int FIELD_AMOUNT_MINOR = 13;
    static final int FIELD_OVERDRAFT_LIMIT_MINOR = 14;
    static final int FIELD_TARGET_ID_HI = 15;
    static final int FIELD_TARGET_ID_LO = 16;
    static final int FIELD_HOLD_TIMEOUT_MS = 17;
    static final int FIELD_REFERENCE_HI = 18;
    static final int FIELD_REFERENCE_LO = 19;
    static final int FIELD_SUB_BALANCES = 20;
    /** The bits of {@code present} that announce a field. */
    static final int FIELD_BITS = (1 << (FIELD_SUB_BALANCES + 1)) - 1;
    /**
     * Bits of {@code present} for a record that follows another in the same document: the field is not written, it is
     * the previous record's (the journal index: the previous one's + 1). A record never has both such a bit and the
     * field's own, and the first record of a document has none.
     */
    static final int SEQUEL_JOURNAL_INDEX = 1 << 21;
    static final int SAME_TIMESTAMP_NS = 1 << 22;
    static final int SAME_TENANT_ID = 1 << 23;
    static final int SAME_BATCH_SIZE = 1 << 24;
    static final int SAME_CURRENCY = 1 << 25;
    static final int AS_BEFORE_BITS = SEQUEL_JOURNAL_INDEX | SAME_TIMESTAMP_NS | SAME_TENANT_ID | SAME_BATCH_SIZE | SAME_CURRENCY;
    /** The fields of four bytes; the others take eight. */
    static final int INT_FIELD_BITS =
        1 << FIELD_BATCH_SIZE | 1 << FIELD_BATCH_POSITION | 1 << FIELD_CURRENCY | 1 << FIELD_SUB_BALANCES;
    /** Version 2: bytes of the fields when every one is present, 17 longs and 4 ints (a compile-time constant). */
    static final int FIELDS_LENGTH_MAX = 17 * Long.BYTES + 4 * Integer.BYTES;
    /** Version 2: bytes of everything but the fields, the reference text and the metadata. */
    static final int FRAME_LENGTH = FIELDS_OFFSET + 2 * Byte.BYTES + RecordHeader.CHECKSUM_SIZE;

    /** Bytes of the smallest record: version 2, no field, no reference. */
    public static final int ENCODED_LENGTH_MIN = FRAME_LENGTH;
    /** Bytes of the largest record: version 2 with every field, a full-length reference and the most metadata. */
    public static final int ENCODED_LENGTH_MAX = FRAME_LENGTH + FIELDS_LENGTH_MAX +
        LedgerLimits.REFERENCE_LENGTH_MAX + METADATA_LENGTH_SIZE + LedgerLimits.METADATA_LENGTH_MAX;

    private final CRC32C crc = new CRC32C();
    private final byte[] crcScratch = new byte[ENCODED_LENGTH_MAX];
    /** The layout {@link #encode} writes: {@link #VERSION}, or {@link #VERSION_1} to make old journals (tests). */
    private final int writeVersion;
    /** Version 2: where the next field goes, or comes from, and which fields are present. */
    private int cursor;
    private int present;
    /** The fields a following record may take from the one before it: the last encoded, and the last decoded. */
    private final Predecessor encoded = new Predecessor();
    private final Predecessor decoded = new Predecessor();

    /** A codec that writes the current layout ({@link #VERSION}) and reads every layout. */
    public CommandCodec()
    {
        this(VERSION);
    }

    private CommandCodec(final int writeVersion)
    {
        this.writeVersion = writeVersion;
    }

    /** @return a codec that writes layout version 1, as binaries before version 2 did (tests of old journals). */
    static CommandCodec writingVersion1()
    {
        return new CommandCodec(VERSION_1);
    }

    /** @return bytes {@code command} takes once encoded in the current layout. */
    public static int encodedLength(final Command command)
    {
        return FRAME_LENGTH + fieldsLength(presentFields(command)) + command.referenceLength +
            metadataBytes(command.metadataLength);
    }

    /** @return the bits of the fields of {@code command} that are not zero: the ones version 2 writes. */
    private static int presentFields(final Command command)
    {
        return bit(FIELD_BATCH_SIZE, command.batchSize != 0) | bit(FIELD_JOURNAL_INDEX, command.journalIndex != 0) |
            bit(FIELD_TIMESTAMP_NS, command.timestampNs != 0) | bit(FIELD_TENANT_ID, command.tenantId != 0) |
            bit(FIELD_KEY_HI, command.keyHi != 0) | bit(FIELD_KEY_LO, command.keyLo != 0) |
            bit(FIELD_FINGERPRINT_HI, command.fingerprintHi != 0) | bit(FIELD_FINGERPRINT_LO, command.fingerprintLo != 0) |
            bit(FIELD_BATCH_POSITION, command.batchPosition != 0) | bit(FIELD_CURRENCY, command.currency != 0) |
            bit(FIELD_ACCOUNT_ID, command.accountId != 0) | bit(FIELD_DEBIT_ACCOUNT_ID, command.debitAccountId != 0) |
            bit(FIELD_CREDIT_ACCOUNT_ID, command.creditAccountId != 0) | bit(FIELD_AMOUNT_MINOR, command.amountMinor != 0) |
            bit(FIELD_OVERDRAFT_LIMIT_MINOR, command.overdraftLimitMinor != 0) |
            bit(FIELD_TARGET_ID_HI, command.targetIdHi != 0) | bit(FIELD_TARGET_ID_LO, command.targetIdLo != 0) |
            bit(FIELD_HOLD_TIMEOUT_MS, command.holdTimeoutMs != 0) | bit(FIELD_REFERENCE_HI, command.referenceHi != 0) |
            bit(FIELD_REFERENCE_LO, command.referenceLo != 0) | bit(FIELD_SUB_BALANCES, command.subBalances != 0);
    }

    private static int bit(final int field, final boolean set)
    {
        return set ? 1 << field : 0;
    }

    /** @return bytes the fields of {@code presentBits} take in a version 2 record. */
    static int fieldsLength(final int presentBits)
    {
        return Integer.bitCount(presentBits & INT_FIELD_BITS) * Integer.BYTES +
            Integer.bitCount(presentBits & ~INT_FIELD_BITS) * Long.BYTES;
    }

    /**
     * Writes {@code command} at {@code offset} in the current layout, as a record that stands alone (the first of a
     * document).
     *
     * @return the number of bytes written.
     * @throws IllegalArgumentException when the command has no type, its reference length is outside
     *                                  0..{@link LedgerLimits#REFERENCE_LENGTH_MAX}, or the buffer is
     *                                  too small: all of them bugs upstream, never data.
     */
    public int encode(final Command command, final MutableDirectBuffer buffer, final int offset)
    {
        return VERSION_1 == writeVersion ? encodeVersion1(command, buffer, offset) : encodeVersion2(command, buffer, offset, false);
    }

    /**
     * As {@link #encode}, for the record right after the one this codec encoded last, in the same document: the fields
     * that are as in that one (journal index + 1, time, tenant, batch size, currency) are not written again. Only
     * {@link #decodeFollowing}, right after decoding that record, reads it.
     */
    public int encodeFollowing(final Command command, final MutableDirectBuffer buffer, final int offset)
    {
        return VERSION_1 == writeVersion ? encodeVersion1(command, buffer, offset) : encodeVersion2(command, buffer, offset, true);
    }

    /**
     * Reads the record at {@code offset}, of any layout this build knows, into {@code command} after checking it: a
     * record that stands alone, as the first of a document does.
     *
     * @param lengthAvailable bytes readable from {@code offset}; may exceed the record.
     * @return {@link DecodeStatus#OK} and a filled {@code command}, or why the record was refused.
     */
    public DecodeStatus decode(
        final DirectBuffer buffer, final int offset, final int lengthAvailable, final Command command)
    {
        return decode(buffer, offset, lengthAvailable, command, false);
    }

    /**
     * As {@link #decode}, for the record that follows, in the same document, the one this codec decoded last (with
     * {@link DecodeStatus#OK}): it may take fields from that one.
     */
    public DecodeStatus decodeFollowing(
        final DirectBuffer buffer, final int offset, final int lengthAvailable, final Command command)
    {
        return decode(buffer, offset, lengthAvailable, command, decoded.known);
    }

    private DecodeStatus decode(
        final DirectBuffer buffer, final int offset, final int lengthAvailable, final Command command, final boolean following)
    {
        final DecodeStatus status = lengthAvailable >= RecordHeader.LENGTH && RecordHeader.version(buffer, offset) == VERSION_1 ?
            decodeVersion1(buffer, offset, lengthAvailable, command) :
            decodeVersion2(buffer, offset, lengthAvailable, command, following);
        if (DecodeStatus.OK == status)
        {
            decoded.set(command);
        }
        else
        {
            decoded.known = false;
        }
        return status;
    }

    private static void checkEncodable(final Command command)
    {
        if (null == command.type)
        {
            throw new IllegalArgumentException("command has no type");
        }
        if (command.referenceLength < 0 || command.referenceLength > LedgerLimits.REFERENCE_LENGTH_MAX)
        {
            throw new IllegalArgumentException("referenceLength out of range: " + command.referenceLength);
        }
        if (command.metadataLength < 0 || command.metadataLength > LedgerLimits.METADATA_LENGTH_MAX)
        {
            throw new IllegalArgumentException("metadataLength out of range: " + command.metadataLength);
        }
    }

    private int encodeVersion2(final Command command, final MutableDirectBuffer buffer, final int offset, final boolean following)
    {
        checkEncodable(command);
        final int lengthMax = encodedLength(command);   // taking nothing from the record before
        if (offset < 0 || buffer.capacity() - offset < lengthMax)
        {
            throw new IllegalArgumentException("buffer too small for a record of " + lengthMax + " bytes");
        }
        final Predecessor before = following && encoded.known ? encoded : null;
        cursor = offset + FIELDS_OFFSET;
        present = 0;
        putOrSame(buffer, FIELD_BATCH_SIZE, command.batchSize, before, SAME_BATCH_SIZE);
        putOrSame(buffer, FIELD_JOURNAL_INDEX, command.journalIndex, before, SEQUEL_JOURNAL_INDEX);
        putOrSame(buffer, FIELD_TIMESTAMP_NS, command.timestampNs, before, SAME_TIMESTAMP_NS);
        putOrSame(buffer, FIELD_TENANT_ID, command.tenantId, before, SAME_TENANT_ID);
        putLong(buffer, FIELD_KEY_HI, command.keyHi);
        putLong(buffer, FIELD_KEY_LO, command.keyLo);
        putLong(buffer, FIELD_FINGERPRINT_HI, command.fingerprintHi);
        putLong(buffer, FIELD_FINGERPRINT_LO, command.fingerprintLo);
        putInt(buffer, FIELD_BATCH_POSITION, command.batchPosition);
        putOrSame(buffer, FIELD_CURRENCY, command.currency, before, SAME_CURRENCY);
        putLong(buffer, FIELD_ACCOUNT_ID, command.accountId);
        putLong(buffer, FIELD_DEBIT_ACCOUNT_ID, command.debitAccountId);
        putLong(buffer, FIELD_CREDIT_ACCOUNT_ID, command.creditAccountId);
        putLong(buffer, FIELD_AMOUNT_MINOR, command.amountMinor);
        putLong(buffer, FIELD_OVERDRAFT_LIMIT_MINOR, command.overdraftLimitMinor);
        putLong(buffer, FIELD_TARGET_ID_HI, command.targetIdHi);
        putLong(buffer, FIELD_TARGET_ID_LO, command.targetIdLo);
        putLong(buffer, FIELD_HOLD_TIMEOUT_MS, command.holdTimeoutMs);
        putLong(buffer, FIELD_REFERENCE_HI, command.referenceHi);
        putLong(buffer, FIELD_REFERENCE_LO, command.referenceLo);
        putInt(buffer, FIELD_SUB_BALANCES, command.subBalances);
        final int referenceLength = command.referenceLength;
        final int metadataLength = command.metadataLength;
        buffer.putByte(cursor, flags(command));
        buffer.putByte(cursor + 1, (byte)referenceLength);
        buffer.putBytes(cursor + 2, command.reference, 0, referenceLength);
        if (metadataLength > 0)
        {
            final int metadataAt = cursor + 2 + referenceLength;
            buffer.putShort(metadataAt, (short)metadataLength, BYTE_ORDER);
            buffer.putBytes(metadataAt + METADATA_LENGTH_SIZE, command.metadata.array(), 0, metadataLength);
        }
        final int recordLength = cursor - offset + 2 + referenceLength + metadataBytes(metadataLength) + RecordHeader.CHECKSUM_SIZE;
        buffer.putByte(offset + RecordHeader.VERSION_OFFSET, (byte)VERSION);
        buffer.putByte(offset + RecordHeader.RECORD_TYPE_OFFSET, (byte)command.type.code());
        buffer.putShort(offset + RecordHeader.RECORD_LENGTH_OFFSET, (short)recordLength, BYTE_ORDER);
        buffer.putInt(offset + PRESENT_OFFSET, present, BYTE_ORDER);

        final int checksumOffset = recordLength - RecordHeader.CHECKSUM_SIZE;
        final int checksum = RecordHeader.crc32c(crc, crcScratch, buffer, offset, checksumOffset);
        buffer.putInt(offset + checksumOffset, checksum, BYTE_ORDER);
        encoded.set(command);
        return recordLength;
    }

    /**
     * Marks the field as the record before's when there is one and the value is that one's (not zero), else writes it
     * at its size (an int field's value comes widened and goes back as an int).
     */
    private void putOrSame(
        final MutableDirectBuffer buffer, final int field, final long value, final Predecessor before, final int sameBit)
    {
        if (null != before && value != 0 && value == before.expected(sameBit))
        {
            present |= sameBit;
        }
        else if ((INT_FIELD_BITS & 1 << field) != 0)
        {
            putInt(buffer, field, (int)value);
        }
        else
        {
            putLong(buffer, field, value);
        }
    }

    private void putLong(final MutableDirectBuffer buffer, final int field, final long value)
    {
        if (value != 0)
        {
            buffer.putLong(cursor, value, BYTE_ORDER);
            cursor += Long.BYTES;
            present |= 1 << field;
        }
    }

    private void putInt(final MutableDirectBuffer buffer, final int field, final int value)
    {
        if (value != 0)
        {
            buffer.putInt(cursor, value, BYTE_ORDER);
            cursor += Integer.BYTES;
            present |= 1 << field;
        }
    }

    private DecodeStatus decodeVersion2(
        final DirectBuffer buffer, final int offset, final int lengthAvailable, final Command command, final boolean following)
    {
        final DecodeStatus status = verifyCommand(buffer, offset, lengthAvailable, VERSION, ENCODED_LENGTH_MIN);
        if (DecodeStatus.OK != status)
        {
            return status;
        }
        final CommandType type = CommandType.fromCode(RecordHeader.recordType(buffer, offset));
        final int recordLength = RecordHeader.recordLength(buffer, offset);
        final int presentBits = buffer.getInt(offset + PRESENT_OFFSET, BYTE_ORDER);
        final int asBefore = presentBits & AS_BEFORE_BITS;
        if ((presentBits & ~(FIELD_BITS | AS_BEFORE_BITS)) != 0 || (asBefore != 0 && !following) ||
            (fieldBitsOf(asBefore) & presentBits) != 0)
        {
            return DecodeStatus.BAD_LENGTH;
        }
        final int fieldsLength = fieldsLength(presentBits & FIELD_BITS);
        if (FRAME_LENGTH + fieldsLength > recordLength)
        {
            return DecodeStatus.BAD_LENGTH;
        }
        final int flagsAt = offset + FIELDS_OFFSET + fieldsLength;
        final int flags = buffer.getByte(flagsAt);
        final int referenceLength = buffer.getByte(flagsAt + 1) & 0xFF;
        if (referenceLength > LedgerLimits.REFERENCE_LENGTH_MAX)
        {
            return DecodeStatus.BAD_LENGTH;
        }
        final int referenceAt = flagsAt + 2;
        int metadataLength = 0;
        if ((flags & FLAG_METADATA) != 0)
        {
            if (FRAME_LENGTH + fieldsLength + referenceLength + METADATA_LENGTH_SIZE > recordLength)
            {
                return DecodeStatus.BAD_LENGTH;
            }
            metadataLength = buffer.getShort(referenceAt + referenceLength, BYTE_ORDER) & 0xFFFF;
            if (metadataLength == 0 || metadataLength > LedgerLimits.METADATA_LENGTH_MAX)
            {
                return DecodeStatus.BAD_LENGTH;
            }
        }
        if (FRAME_LENGTH + fieldsLength + referenceLength + metadataBytes(metadataLength) != recordLength)
        {
            return DecodeStatus.BAD_LENGTH;
        }

        if (command.type != type)
        {
            command.type = type; // only when it changes: a reused holder (see Command.reset)
        }
        cursor = offset + FIELDS_OFFSET;
        present = presentBits;
        command.batchSize = (presentBits & SAME_BATCH_SIZE) != 0 ? decoded.batchSize : getInt(buffer, FIELD_BATCH_SIZE);
        command.journalIndex = (presentBits & SEQUEL_JOURNAL_INDEX) != 0 ? decoded.journalIndex + 1 :
            getLong(buffer, FIELD_JOURNAL_INDEX);
        command.timestampNs = (presentBits & SAME_TIMESTAMP_NS) != 0 ? decoded.timestampNs : getLong(buffer, FIELD_TIMESTAMP_NS);
        command.tenantId = (presentBits & SAME_TENANT_ID) != 0 ? decoded.tenantId : getLong(buffer, FIELD_TENANT_ID);
        command.keyHi = getLong(buffer, FIELD_KEY_HI);
        command.keyLo = getLong(buffer, FIELD_KEY_LO);
        command.fingerprintHi = getLong(buffer, FIELD_FINGERPRINT_HI);
        command.fingerprintLo = getLong(buffer, FIELD_FINGERPRINT_LO);
        command.batchPosition = getInt(buffer, FIELD_BATCH_POSITION);
        command.currency = (presentBits & SAME_CURRENCY) != 0 ? decoded.currency : getInt(buffer, FIELD_CURRENCY);
        command.accountId = getLong(buffer, FIELD_ACCOUNT_ID);
        command.debitAccountId = getLong(buffer, FIELD_DEBIT_ACCOUNT_ID);
        command.creditAccountId = getLong(buffer, FIELD_CREDIT_ACCOUNT_ID);
        command.amountMinor = getLong(buffer, FIELD_AMOUNT_MINOR);
        command.overdraftLimitMinor = getLong(buffer, FIELD_OVERDRAFT_LIMIT_MINOR);
        command.targetIdHi = getLong(buffer, FIELD_TARGET_ID_HI);
        command.targetIdLo = getLong(buffer, FIELD_TARGET_ID_LO);
        command.holdTimeoutMs = getLong(buffer, FIELD_HOLD_TIMEOUT_MS);
        command.referenceHi = getLong(buffer, FIELD_REFERENCE_HI);
        command.referenceLo = getLong(buffer, FIELD_REFERENCE_LO);
        command.subBalances = getInt(buffer, FIELD_SUB_BALANCES);
        readFlagsReferenceAndMetadata(buffer, flags, referenceAt, referenceLength, metadataLength, command);
        return DecodeStatus.OK;
    }

    /** @return the bits of the fields that {@code asBefore} takes from the record before. */
    static int fieldBitsOf(final int asBefore)
    {
        return bit(FIELD_JOURNAL_INDEX, (asBefore & SEQUEL_JOURNAL_INDEX) != 0) |
            bit(FIELD_TIMESTAMP_NS, (asBefore & SAME_TIMESTAMP_NS) != 0) | bit(FIELD_TENANT_ID, (asBefore & SAME_TENANT_ID) != 0) |
            bit(FIELD_BATCH_SIZE, (asBefore & SAME_BATCH_SIZE) != 0) | bit(FIELD_CURRENCY, (asBefore & SAME_CURRENCY) != 0);
    }

    /** The fields of the last record encoded, or decoded, that the record after it may take instead of writing them. */
    private static final class Predecessor
    {
        boolean known;
        long journalIndex;
        long timestampNs;
        long tenantId;
        int batchSize;
        int currency;

        void set(final Command command)
        {
            known = true;
            journalIndex = command.journalIndex;
            timestampNs = command.timestampNs;
            tenantId = command.tenantId;
            batchSize = command.batchSize;
            currency = command.currency;
        }

        /** @return what a following record's field marked {@code sameBit} holds. */
        long expected(final int sameBit)
        {
            switch (sameBit)
            {
                case SEQUEL_JOURNAL_INDEX:
                    return journalIndex + 1;
                case SAME_TIMESTAMP_NS:
                    return timestampNs;
                case SAME_TENANT_ID:
                    return tenantId;
                case SAME_BATCH_SIZE:
                    return batchSize;
                default:
                    return currency;
            }
        }
    }

    /** @return {@link RecordHeader#verify}'s verdict on the record, then whether its type is a command type. */
    private DecodeStatus verifyCommand(
        final DirectBuffer buffer, final int offset, final int lengthAvailable, final int version, final int recordLengthMin)
    {
        final DecodeStatus status = RecordHeader.verify(crc, crcScratch, buffer, offset, lengthAvailable, version, recordLengthMin);
        if (DecodeStatus.OK != status)
        {
            return status;
        }
        return null == CommandType.fromCode(RecordHeader.recordType(buffer, offset)) ? DecodeStatus.UNKNOWN_TYPE : DecodeStatus.OK;
    }

    private long getLong(final DirectBuffer buffer, final int field)
    {
        if ((present & 1 << field) == 0)
        {
            return 0;
        }
        final long value = buffer.getLong(cursor, BYTE_ORDER);
        cursor += Long.BYTES;
        return value;
    }

    private int getInt(final DirectBuffer buffer, final int field)
    {
        if ((present & 1 << field) == 0)
        {
            return 0;
        }
        final int value = buffer.getInt(cursor, BYTE_ORDER);
        cursor += Integer.BYTES;
        return value;
    }

    /** The part both layouts share after the fields: flags, reference text, metadata. */
    private static void readFlagsReferenceAndMetadata(
        final DirectBuffer buffer, final int flags, final int referenceAt, final int referenceLength, final int metadataLength,
        final Command command)
    {
        command.atomic = (flags & FLAG_ATOMIC) != 0;
        command.debitsMustNotExceedCredits = (flags & FLAG_DEBITS_MUST_NOT_EXCEED_CREDITS) != 0;
        command.referenceTaken = (flags & FLAG_REFERENCE_TAKEN) != 0;
        command.referenceUnchecked = (flags & FLAG_REFERENCE_UNCHECKED) != 0;
        command.referenceLength = referenceLength;
        buffer.getBytes(referenceAt, command.reference, 0, referenceLength);
        command.metadataLength = metadataLength;
        if (metadataLength > 0)
        {
            buffer.getBytes(referenceAt + referenceLength + METADATA_LENGTH_SIZE, command.metadata.reserve(metadataLength), 0,
                metadataLength);
        }
    }

    /** @return bytes the metadata takes in a record: none without metadata, else its length field and itself. */
    private static int metadataBytes(final int metadataLength)
    {
        return metadataLength == 0 ? 0 : METADATA_LENGTH_SIZE + metadataLength;
    }

    /** Writes {@code command} at {@code offset} in layout version 1. */
    private int encodeVersion1(final Command command, final MutableDirectBuffer buffer, final int offset)
    {
        checkEncodable(command);
        final CommandType type = command.type;
        final int referenceLength = command.referenceLength;
        final int metadataLength = command.metadataLength;
        final int recordLength = FIXED_LENGTH + referenceLength + metadataBytes(metadataLength);
        if (offset < 0 || buffer.capacity() - offset < recordLength)
        {
            throw new IllegalArgumentException("buffer too small for a record of " + recordLength + " bytes");
        }

        buffer.putByte(offset + RecordHeader.VERSION_OFFSET, (byte)VERSION_1);
        buffer.putByte(offset + RecordHeader.RECORD_TYPE_OFFSET, (byte)type.code());
        buffer.putShort(offset + RecordHeader.RECORD_LENGTH_OFFSET, (short)recordLength, BYTE_ORDER);
        buffer.putInt(offset + BATCH_SIZE_OFFSET, command.batchSize, BYTE_ORDER);
        buffer.putLong(offset + JOURNAL_INDEX_OFFSET, command.journalIndex, BYTE_ORDER);
        buffer.putLong(offset + TIMESTAMP_NS_OFFSET, command.timestampNs, BYTE_ORDER);
        buffer.putLong(offset + TENANT_ID_OFFSET, command.tenantId, BYTE_ORDER);
        buffer.putLong(offset + KEY_HI_OFFSET, command.keyHi, BYTE_ORDER);
        buffer.putLong(offset + KEY_LO_OFFSET, command.keyLo, BYTE_ORDER);
        buffer.putLong(offset + FINGERPRINT_HI_OFFSET, command.fingerprintHi, BYTE_ORDER);
        buffer.putLong(offset + FINGERPRINT_LO_OFFSET, command.fingerprintLo, BYTE_ORDER);
        buffer.putInt(offset + BATCH_POSITION_OFFSET, command.batchPosition, BYTE_ORDER);
        buffer.putInt(offset + CURRENCY_OFFSET, command.currency, BYTE_ORDER);
        buffer.putLong(offset + ACCOUNT_ID_OFFSET, command.accountId, BYTE_ORDER);
        buffer.putLong(offset + DEBIT_ACCOUNT_ID_OFFSET, command.debitAccountId, BYTE_ORDER);
        buffer.putLong(offset + CREDIT_ACCOUNT_ID_OFFSET, command.creditAccountId, BYTE_ORDER);
        buffer.putLong(offset + AMOUNT_MINOR_OFFSET, command.amountMinor, BYTE_ORDER);
        buffer.putLong(offset + OVERDRAFT_LIMIT_MINOR_OFFSET, command.overdraftLimitMinor, BYTE_ORDER);
        buffer.putLong(offset + TARGET_ID_HI_OFFSET, command.targetIdHi, BYTE_ORDER);
        buffer.putLong(offset + TARGET_ID_LO_OFFSET, command.targetIdLo, BYTE_ORDER);
        buffer.putLong(offset + HOLD_TIMEOUT_MS_OFFSET, command.holdTimeoutMs, BYTE_ORDER);
        buffer.putLong(offset + REFERENCE_HI_OFFSET, command.referenceHi, BYTE_ORDER);
        buffer.putLong(offset + REFERENCE_LO_OFFSET, command.referenceLo, BYTE_ORDER);
        buffer.putInt(offset + SUB_BALANCES_OFFSET, command.subBalances, BYTE_ORDER);
        buffer.putByte(offset + FLAGS_OFFSET, flags(command));
        buffer.putByte(offset + REFERENCE_LENGTH_OFFSET, (byte)referenceLength);
        buffer.putBytes(offset + REFERENCE_OFFSET, command.reference, 0, referenceLength);
        if (metadataLength > 0)
        {
            final int metadataAt = offset + REFERENCE_OFFSET + referenceLength;
            buffer.putShort(metadataAt, (short)metadataLength, BYTE_ORDER);
            buffer.putBytes(metadataAt + METADATA_LENGTH_SIZE, command.metadata.array(), 0, metadataLength);
        }

        final int checksumOffset = recordLength - RecordHeader.CHECKSUM_SIZE;
        final int checksum = RecordHeader.crc32c(crc, crcScratch, buffer, offset, checksumOffset);
        buffer.putInt(offset + checksumOffset, checksum, BYTE_ORDER);
        return recordLength;
    }

    /** Reads a layout version 1 record. */
    private DecodeStatus decodeVersion1(
        final DirectBuffer buffer, final int offset, final int lengthAvailable, final Command command)
    {
        final DecodeStatus status = verifyCommand(buffer, offset, lengthAvailable, VERSION_1, FIXED_LENGTH);
        if (DecodeStatus.OK != status)
        {
            return status;
        }
        final CommandType type = CommandType.fromCode(RecordHeader.recordType(buffer, offset));
        final int referenceLength = buffer.getByte(offset + REFERENCE_LENGTH_OFFSET) & 0xFF;
        final int recordLength = RecordHeader.recordLength(buffer, offset);
        final int flags = buffer.getByte(offset + FLAGS_OFFSET);
        if (referenceLength > LedgerLimits.REFERENCE_LENGTH_MAX)
        {
            return DecodeStatus.BAD_LENGTH;
        }
        int metadataLength = 0;
        if ((flags & FLAG_METADATA) != 0)
        {
            if (FIXED_LENGTH + referenceLength + METADATA_LENGTH_SIZE > recordLength)
            {
                return DecodeStatus.BAD_LENGTH;
            }
            metadataLength = buffer.getShort(offset + REFERENCE_OFFSET + referenceLength, BYTE_ORDER) & 0xFFFF;
            if (metadataLength == 0 || metadataLength > LedgerLimits.METADATA_LENGTH_MAX)
            {
                return DecodeStatus.BAD_LENGTH;
            }
        }
        if (FIXED_LENGTH + referenceLength + metadataBytes(metadataLength) != recordLength)
        {
            return DecodeStatus.BAD_LENGTH;
        }

        if (command.type != type)
        {
            command.type = type; // only when it changes: a reused holder (see Command.reset)
        }
        command.batchSize = buffer.getInt(offset + BATCH_SIZE_OFFSET, BYTE_ORDER);
        command.journalIndex = buffer.getLong(offset + JOURNAL_INDEX_OFFSET, BYTE_ORDER);
        command.timestampNs = buffer.getLong(offset + TIMESTAMP_NS_OFFSET, BYTE_ORDER);
        command.tenantId = buffer.getLong(offset + TENANT_ID_OFFSET, BYTE_ORDER);
        command.keyHi = buffer.getLong(offset + KEY_HI_OFFSET, BYTE_ORDER);
        command.keyLo = buffer.getLong(offset + KEY_LO_OFFSET, BYTE_ORDER);
        command.fingerprintHi = buffer.getLong(offset + FINGERPRINT_HI_OFFSET, BYTE_ORDER);
        command.fingerprintLo = buffer.getLong(offset + FINGERPRINT_LO_OFFSET, BYTE_ORDER);
        command.batchPosition = buffer.getInt(offset + BATCH_POSITION_OFFSET, BYTE_ORDER);
        command.currency = buffer.getInt(offset + CURRENCY_OFFSET, BYTE_ORDER);
        command.accountId = buffer.getLong(offset + ACCOUNT_ID_OFFSET, BYTE_ORDER);
        command.debitAccountId = buffer.getLong(offset + DEBIT_ACCOUNT_ID_OFFSET, BYTE_ORDER);
        command.creditAccountId = buffer.getLong(offset + CREDIT_ACCOUNT_ID_OFFSET, BYTE_ORDER);
        command.amountMinor = buffer.getLong(offset + AMOUNT_MINOR_OFFSET, BYTE_ORDER);
        command.overdraftLimitMinor = buffer.getLong(offset + OVERDRAFT_LIMIT_MINOR_OFFSET, BYTE_ORDER);
        command.targetIdHi = buffer.getLong(offset + TARGET_ID_HI_OFFSET, BYTE_ORDER);
        command.targetIdLo = buffer.getLong(offset + TARGET_ID_LO_OFFSET, BYTE_ORDER);
        command.holdTimeoutMs = buffer.getLong(offset + HOLD_TIMEOUT_MS_OFFSET, BYTE_ORDER);
        command.referenceHi = buffer.getLong(offset + REFERENCE_HI_OFFSET, BYTE_ORDER);
        command.referenceLo = buffer.getLong(offset + REFERENCE_LO_OFFSET, BYTE_ORDER);
        command.subBalances = buffer.getInt(offset + SUB_BALANCES_OFFSET, BYTE_ORDER);
        readFlagsReferenceAndMetadata(buffer, flags, offset + REFERENCE_OFFSET, referenceLength, metadataLength, command);
        return DecodeStatus.OK;
    }

    private static byte flags(final Command command)
    {
        int flags = 0;
        if (command.atomic)
        {
            flags |= FLAG_ATOMIC;
        }
        if (command.debitsMustNotExceedCredits)
        {
            flags |= FLAG_DEBITS_MUST_NOT_EXCEED_CREDITS;
        }
        if (command.referenceTaken)
        {
            flags |= FLAG_REFERENCE_TAKEN;
        }
        if (command.referenceUnchecked)
        {
            flags |= FLAG_REFERENCE_UNCHECKED;
        }
        if (command.metadataLength > 0)
        {
            flags |= FLAG_METADATA;
        }
        return (byte)flags;
    }
}
