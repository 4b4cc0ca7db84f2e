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
 * at fixed offsets of an Agrona buffer (a flyweight: no intermediate object, no allocation).
 *
 * <p>Layout, version 1, little-endian. Every command type uses the same layout so that the codec is
 * lossless whatever fields a type uses; only the reference text (just {@code referenceLength} bytes are written)
 * and a transfer's metadata (only when it has some) are variable.
 *
 * <pre>
 * offset size  field
 *      0    1  version                    u8   = {@link #VERSION}
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
 * <p>A record is 162 to 226 bytes without metadata (the layout of records written before metadata existed,
 * unchanged), up to 1,252 with it. A binary older than flag bit 4 reads a record that has metadata as
 * {@code BAD_LENGTH}: do not roll back past it onto a journal that has such records.
 *
 * <p>Decoding checks, in this order, the length available, the version, the announced length, the CRC32C, the
 * type, the reference length and the metadata length (1..{@link LedgerLimits#METADATA_LENGTH_MAX}, and that the
 * lengths add up to the record's), and reports the first failure as a {@link DecodeStatus}; a record that fails
 * any check leaves the target command unspecified.
 *
 * <p>One instance per thread: it owns a {@link CRC32C} and a scratch array that it reuses.
 */
public final class CommandCodec
{
    /** Version byte of the layout above. Bump it (and keep decoding the old one) on any change. */
    public static final int VERSION = 1;

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

    /** Bytes of a record whose reference is empty: everything but the reference text. */
    public static final int FIXED_LENGTH = REFERENCE_OFFSET + RecordHeader.CHECKSUM_SIZE;
    /** Bytes of the smallest record. */
    public static final int ENCODED_LENGTH_MIN = FIXED_LENGTH;
    /** Bytes of the largest record: a full-length reference and the most metadata. */
    public static final int ENCODED_LENGTH_MAX =
        FIXED_LENGTH + LedgerLimits.REFERENCE_LENGTH_MAX + METADATA_LENGTH_SIZE + LedgerLimits.METADATA_LENGTH_MAX;

    private final CRC32C crc = new CRC32C();
    private final byte[] crcScratch = new byte[ENCODED_LENGTH_MAX];

    /** @return bytes {@code command} takes once encoded. */
    public static int encodedLength(final Command command)
    {
        return FIXED_LENGTH + command.referenceLength + metadataBytes(command.metadataLength);
    }

    /** @return bytes the metadata takes in a record: none without metadata, else its length field and itself. */
    private static int metadataBytes(final int metadataLength)
    {
        return metadataLength == 0 ? 0 : METADATA_LENGTH_SIZE + metadataLength;
    }

    /**
     * Writes {@code command} at {@code offset}.
     *
     * @return the number of bytes written.
     * @throws IllegalArgumentException when the command has no type, its reference length is outside
     *                                  0..{@link LedgerLimits#REFERENCE_LENGTH_MAX}, or the buffer is
     *                                  too small: all of them bugs upstream, never data.
     */
    public int encode(final Command command, final MutableDirectBuffer buffer, final int offset)
    {
        final CommandType type = command.type;
        final int referenceLength = command.referenceLength;
        if (null == type)
        {
            throw new IllegalArgumentException("command has no type");
        }
        if (referenceLength < 0 || referenceLength > LedgerLimits.REFERENCE_LENGTH_MAX)
        {
            throw new IllegalArgumentException("referenceLength out of range: " + referenceLength);
        }
        final int metadataLength = command.metadataLength;
        if (metadataLength < 0 || metadataLength > LedgerLimits.METADATA_LENGTH_MAX)
        {
            throw new IllegalArgumentException("metadataLength out of range: " + metadataLength);
        }
        final int recordLength = FIXED_LENGTH + referenceLength + metadataBytes(metadataLength);
        if (offset < 0 || buffer.capacity() - offset < recordLength)
        {
            throw new IllegalArgumentException("buffer too small for a record of " + recordLength + " bytes");
        }

        buffer.putByte(offset + RecordHeader.VERSION_OFFSET, (byte)VERSION);
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

    /**
     * Reads the record at {@code offset} into {@code command} after checking it.
     *
     * @param lengthAvailable bytes readable from {@code offset}; may exceed the record.
     * @return {@link DecodeStatus#OK} and a filled {@code command}, or why the record was refused.
     */
    public DecodeStatus decode(
        final DirectBuffer buffer, final int offset, final int lengthAvailable, final Command command)
    {
        final DecodeStatus status = RecordHeader.verify(
            crc, crcScratch, buffer, offset, lengthAvailable, VERSION, ENCODED_LENGTH_MIN);
        if (DecodeStatus.OK != status)
        {
            return status;
        }
        final CommandType type = CommandType.fromCode(RecordHeader.recordType(buffer, offset));
        if (null == type)
        {
            return DecodeStatus.UNKNOWN_TYPE;
        }
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
        command.atomic = (flags & FLAG_ATOMIC) != 0;
        command.debitsMustNotExceedCredits = (flags & FLAG_DEBITS_MUST_NOT_EXCEED_CREDITS) != 0;
        command.referenceTaken = (flags & FLAG_REFERENCE_TAKEN) != 0;
        command.referenceUnchecked = (flags & FLAG_REFERENCE_UNCHECKED) != 0;
        command.referenceLength = referenceLength;
        buffer.getBytes(offset + REFERENCE_OFFSET, command.reference, 0, referenceLength);
        command.metadataLength = metadataLength;
        if (metadataLength > 0)
        {
            buffer.getBytes(offset + REFERENCE_OFFSET + referenceLength + METADATA_LENGTH_SIZE, command.metadata.reserve(metadataLength), 0,
                metadataLength);
        }
        return DecodeStatus.OK;
    }

    /** @return the journal index of the record at {@code offset}, read without any check. */
    public static long journalIndex(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + JOURNAL_INDEX_OFFSET, BYTE_ORDER);
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
