package dev.tally.journal;

import static dev.tally.journal.RecordHeader.BYTE_ORDER;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Command record layout version 2, the layout written: writes and reads one {@link Command} in place in an Agrona buffer
 * (a flyweight: no intermediate object, no allocation). Little-endian. Every command type uses the same layout, so it
 * is lossless whatever fields a type uses.
 *
 * <p>The fields of version 1 ({@link Layout1Reader}) in the same order, but only those that are not zero, with a bit set
 * for each in {@code present}. A type writes none of the fields it does not use (a transfer has no account, overdraft
 * limit, target or hold timeout), so a transfer takes 110 bytes (106 at batch position 0; 16 more with a reference,
 * plus its text) where version 1 takes 162: fewer bytes for the journaler to copy, page in, checksum and force.
 *
 * <p>A record that follows another in the same journal document ({@code following}) does not repeat what the batch
 * shares: bit 21 says its journal index is the one before's + 1, bits 22 to 25 and 27 that its time, tenant, batch
 * size, currency and cold watermark are the one before's. A transfer of a batch request then takes 78 bytes. Such a record is read only right
 * after the one before it; the first record of a document has none of these bits.
 *
 * <pre>
 * offset size  field
 *      0    1  version                    u8   = {@link #VERSION} (2)
 *      1    1  record type                u8   {@link CommandType#code()}
 *      2    2  record length              u16
 *      4    4  present                    u32  bit i set: field i below is in the record; bits 21..25 and 27: the field
 *                                              is as in the record before, in the same document (see above); bit 31:
 *                                              {@link #NAMES_REJECTED_ACCOUNT}; 28..30 clear
 *      8       fields                          each present field, in the order of this list, at its size:
 *                                              0 batchSize i32, 1 journalIndex i64, 2 timestampNs i64, 3 tenantId i64,
 *                                              4 keyHi i64, 5 keyLo i64, 6 fingerprintHi i64, 7 fingerprintLo i64,
 *                                              8 batchPosition i32, 9 currency i32, 10 accountId i64,
 *                                              11 debitAccountId i64, 12 creditAccountId i64, 13 amountMinor i64,
 *                                              14 overdraftLimitMinor i64, 15 targetIdHi i64, 16 targetIdLo i64,
 *                                              17 holdTimeoutMs i64, 18 referenceHi i64, 19 referenceLo i64,
 *                                              20 subBalances i32, 26 coldWatermark i64; an absent field reads as 0
 *      f    1  flags                      u8   as in version 1 ({@link CommandRecordTail})
 *    f+1    1  referenceLength            u8
 *    f+2    n  reference
 *  f+2+n    2  metadataLength             u16  only with flag bit 4
 *  f+4+n    m  metadata
 *      e    4  crc32c                     over bytes [0, e)
 * </pre>
 *
 * <p>Decoding checks, in this order, the length available, the version, the announced length, the CRC32C, the type,
 * the fields present, the reference length and the metadata length, and reports the first failure as a
 * {@link DecodeStatus}; a record that fails any check leaves the target command unspecified.
 *
 * <p>One instance per thread (its {@link CommandCodec}'s): it keeps a cursor, and the fields of the record it encoded
 * last and of the one decoded last, which the record after may take.
 */
final class Layout2Codec
{
    /** Version byte of this layout. */
    static final int VERSION = 2;

    /** Where {@code present} sits, and where the fields it announces start. */
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
    /** The cold index's watermark the journal stage read (bits 21 to 25 are the "as before" bits). */
    static final int FIELD_COLD_WATERMARK = 26;
    /** The bits of {@code present} that announce a field. */
    static final int FIELD_BITS = (1 << (FIELD_SUB_BALANCES + 1)) - 1 | 1 << FIELD_COLD_WATERMARK;
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
    static final int SAME_COLD_WATERMARK = 1 << 27;
    static final int AS_BEFORE_BITS =
        SEQUEL_JOURNAL_INDEX | SAME_TIMESTAMP_NS | SAME_TENANT_ID | SAME_BATCH_SIZE | SAME_CURRENCY | SAME_COLD_WATERMARK;
    /**
     * Bit of {@code present} that announces no field: the command was decided under the rule that a transfer's
     * {@code account-not-found} or {@code currency-mismatch} names its account ({@link Command#rejectionNamesAccount}).
     * Every record written now has it; a record without it (written before the rule) replays to the result it had.
     */
    static final int NAMES_REJECTED_ACCOUNT = 1 << 31;
    /** The fields of four bytes; the others take eight. */
    static final int INT_FIELD_BITS =
        1 << FIELD_BATCH_SIZE | 1 << FIELD_BATCH_POSITION | 1 << FIELD_CURRENCY | 1 << FIELD_SUB_BALANCES;
    /** Bytes of the fields when every one is present, 18 longs and 4 ints (a compile-time constant). */
    static final int FIELDS_LENGTH_MAX = 18 * Long.BYTES + 4 * Integer.BYTES;
    /** Bytes of everything but the fields, the reference text and the metadata. */
    static final int FRAME_LENGTH = FIELDS_OFFSET + CommandRecordTail.LENGTH_MIN + RecordHeader.CHECKSUM_SIZE;

    /** Bytes of the smallest record: no field, no reference. */
    static final int ENCODED_LENGTH_MIN = FRAME_LENGTH;
    /** Bytes of the largest record: every field, a full-length reference, the most metadata and both cold records. */
    static final int ENCODED_LENGTH_MAX = FRAME_LENGTH + FIELDS_LENGTH_MAX + LedgerLimits.REFERENCE_LENGTH_MAX +
        CommandRecordTail.METADATA_LENGTH_SIZE + LedgerLimits.METADATA_LENGTH_MAX + CommandRecordTail.COLD_BYTES_MAX;

    private final RecordChecksum checksum;
    /** Where the next field goes, or comes from, and which fields are present. */
    private int cursor;
    private int present;
    /** The fields a following record may take from the one before it: the last encoded, and the last decoded. */
    private final Predecessor encoded = new Predecessor();
    private final Predecessor decoded = new Predecessor();

    Layout2Codec(final RecordChecksum checksum)
    {
        this.checksum = checksum;
    }

    /** @return bytes {@code command} takes once encoded, standing alone. */
    static int encodedLength(final Command command)
    {
        return FRAME_LENGTH + fieldsLength(presentFields(command)) + command.referenceLength +
            CommandRecordTail.metadataBytes(command.metadataLength) + CommandRecordTail.coldBytes(command);
    }

    /** @return the bits of the fields of {@code command} that are not zero: the ones this layout writes. */
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
            bit(FIELD_REFERENCE_LO, command.referenceLo != 0) | bit(FIELD_SUB_BALANCES, command.subBalances != 0) |
            bit(FIELD_COLD_WATERMARK, command.coldWatermark != 0);
    }

    private static int bit(final int field, final boolean set)
    {
        return set ? 1 << field : 0;
    }

    /** @return bytes the fields of {@code presentBits} take. */
    static int fieldsLength(final int presentBits)
    {
        return Integer.bitCount(presentBits & INT_FIELD_BITS) * Integer.BYTES +
            Integer.bitCount(presentBits & ~INT_FIELD_BITS) * Long.BYTES;
    }

    /** @return the bits of the fields that {@code asBefore} takes from the record before. */
    static int fieldBitsOf(final int asBefore)
    {
        return bit(FIELD_JOURNAL_INDEX, (asBefore & SEQUEL_JOURNAL_INDEX) != 0) |
            bit(FIELD_TIMESTAMP_NS, (asBefore & SAME_TIMESTAMP_NS) != 0) | bit(FIELD_TENANT_ID, (asBefore & SAME_TENANT_ID) != 0) |
            bit(FIELD_BATCH_SIZE, (asBefore & SAME_BATCH_SIZE) != 0) | bit(FIELD_CURRENCY, (asBefore & SAME_CURRENCY) != 0) |
            bit(FIELD_COLD_WATERMARK, (asBefore & SAME_COLD_WATERMARK) != 0);
    }

    /**
     * Writes {@code command} at {@code offset}; when {@code following}, as the record right after the one encoded last,
     * in the same document, taking from it what they share.
     *
     * @return the number of bytes written.
     * @throws IllegalArgumentException see {@link CommandCodec#encode}.
     */
    int encode(final Command command, final MutableDirectBuffer buffer, final int offset, final boolean following)
    {
        CommandRecordTail.checkEncodable(command);
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
        putOrSame(buffer, FIELD_COLD_WATERMARK, command.coldWatermark, before, SAME_COLD_WATERMARK);
        if (command.rejectionNamesAccount)
        {
            present |= NAMES_REJECTED_ACCOUNT;
        }
        final int recordLength = cursor - offset + CommandRecordTail.write(buffer, cursor, command) + RecordHeader.CHECKSUM_SIZE;
        buffer.putByte(offset + RecordHeader.VERSION_OFFSET, (byte)VERSION);
        buffer.putByte(offset + RecordHeader.RECORD_TYPE_OFFSET, (byte)command.type.code());
        buffer.putShort(offset + RecordHeader.RECORD_LENGTH_OFFSET, (short)recordLength, BYTE_ORDER);
        buffer.putInt(offset + PRESENT_OFFSET, present, BYTE_ORDER);

        final int checksumOffset = recordLength - RecordHeader.CHECKSUM_SIZE;
        buffer.putInt(offset + checksumOffset, checksum.compute(buffer, offset, checksumOffset), BYTE_ORDER);
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

    /** @return true when a record was decoded last (of either layout): a following record may take from it. */
    boolean hasDecoded()
    {
        return decoded.known;
    }

    /** Remembers {@code command} as the record decoded last, or forgets it ({@code null}: the decode failed). */
    void decoded(final Command command)
    {
        if (null == command)
        {
            decoded.known = false;
        }
        else
        {
            decoded.set(command);
        }
    }

    /**
     * Reads the record at {@code offset} into {@code command} after checking it; when {@code following}, it may take
     * fields from the record decoded last.
     *
     * @param lengthAvailable bytes readable from {@code offset}; may exceed the record.
     */
    DecodeStatus decode(
        final DirectBuffer buffer, final int offset, final int lengthAvailable, final Command command, final boolean following)
    {
        final DecodeStatus status = checksum.verifyCommand(buffer, offset, lengthAvailable, VERSION, ENCODED_LENGTH_MIN);
        if (DecodeStatus.OK != status)
        {
            return status;
        }
        final CommandType type = CommandType.fromCode(RecordHeader.recordType(buffer, offset));
        final int recordLength = RecordHeader.recordLength(buffer, offset);
        final int presentBits = buffer.getInt(offset + PRESENT_OFFSET, BYTE_ORDER);
        final int asBefore = presentBits & AS_BEFORE_BITS;
        if ((presentBits & ~(FIELD_BITS | AS_BEFORE_BITS | NAMES_REJECTED_ACCOUNT)) != 0 || (asBefore != 0 && !following) ||
            (fieldBitsOf(asBefore) & presentBits) != 0)
        {
            return DecodeStatus.BAD_LENGTH;
        }
        final int fieldsLength = fieldsLength(presentBits & FIELD_BITS);
        if (FRAME_LENGTH + fieldsLength > recordLength)
        {
            return DecodeStatus.BAD_LENGTH;
        }
        final int tailOffset = FIELDS_OFFSET + fieldsLength;
        final int metadataLength = CommandRecordTail.checkedMetadataLength(buffer, offset, tailOffset, recordLength);
        if (metadataLength < 0)
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
        command.coldWatermark = (presentBits & SAME_COLD_WATERMARK) != 0 ? decoded.coldWatermark :
            getLong(buffer, FIELD_COLD_WATERMARK);
        CommandRecordTail.read(buffer, offset + tailOffset, metadataLength, command);
        command.rejectionNamesAccount = (presentBits & NAMES_REJECTED_ACCOUNT) != 0;
        return DecodeStatus.OK;
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

    /** The fields of the last record encoded, or decoded, that the record after it may take instead of writing them. */
    private static final class Predecessor
    {
        boolean known;
        long journalIndex;
        long timestampNs;
        long tenantId;
        int batchSize;
        int currency;
        long coldWatermark;

        void set(final Command command)
        {
            coldWatermark = command.coldWatermark;
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
                case SAME_COLD_WATERMARK:
                    return coldWatermark;
                default:
                    return currency;
            }
        }
    }
}
