package dev.tally.journal;

import static dev.tally.journal.RecordHeader.BYTE_ORDER;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import org.agrona.DirectBuffer;

/**
 * Reads command record layout version 1, the layout of journals written before version 2: this build reads it so that
 * they replay, and never writes it. Every field at a fixed offset, little-endian:
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
 *                                               bit 3 referenceUnchecked, bit 4 metadata ({@link CommandRecordTail})
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
 * <p>Decoding checks, in this order, the length available, the version, the announced length, the CRC32C, the type,
 * the reference length and the metadata length, and reports the first failure as a {@link DecodeStatus}; a record that
 * fails any check leaves the target command unspecified. The tests write this layout with their own writer, to prove
 * that old journals still read.
 */
final class Layout1Reader
{
    /** Version byte of this layout. */
    static final int VERSION = 1;

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
    /** Where the part both layouts share starts ({@link CommandRecordTail}). */
    static final int FLAGS_OFFSET = SUB_BALANCES_OFFSET + Integer.BYTES;
    static final int REFERENCE_LENGTH_OFFSET = FLAGS_OFFSET + Byte.BYTES;
    static final int REFERENCE_OFFSET = REFERENCE_LENGTH_OFFSET + Byte.BYTES;

    /** Bytes of a record whose reference is empty, everything but the reference text. */
    static final int FIXED_LENGTH = REFERENCE_OFFSET + RecordHeader.CHECKSUM_SIZE;

    private final RecordChecksum checksum;

    Layout1Reader(final RecordChecksum checksum)
    {
        this.checksum = checksum;
    }

    /**
     * Reads the record at {@code offset} into {@code command} after checking it.
     *
     * @param lengthAvailable bytes readable from {@code offset}; may exceed the record.
     */
    DecodeStatus decode(final DirectBuffer buffer, final int offset, final int lengthAvailable, final Command command)
    {
        final DecodeStatus status = checksum.verifyCommand(buffer, offset, lengthAvailable, VERSION, FIXED_LENGTH);
        if (DecodeStatus.OK != status)
        {
            return status;
        }
        final CommandType type = CommandType.fromCode(RecordHeader.recordType(buffer, offset));
        final int recordLength = RecordHeader.recordLength(buffer, offset);
        final int metadataLength = CommandRecordTail.checkedMetadataLength(buffer, offset, FLAGS_OFFSET, recordLength);
        if (metadataLength < 0)
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
        command.coldWatermark = 0;   // layout 1 predates the cold index
        CommandRecordTail.read(buffer, offset + FLAGS_OFFSET, metadataLength, command);
        command.rejectionNamesAccount = false;   // written before the rule (Layout2Codec.NAMES_REJECTED_ACCOUNT)
        return DecodeStatus.OK;
    }
}
