package dev.tally.journal;

import static dev.tally.journal.Layout1Reader.*;
import static dev.tally.journal.RecordHeader.BYTE_ORDER;

import dev.tally.ledger.command.Command;
import org.agrona.MutableDirectBuffer;

/**
 * Writes command record layout version 1 ({@link Layout1Reader} draws it), as binaries before version 2 did: the tests
 * make old journals with it, to prove that they still read.
 */
final class Layout1Writer
{
    private final RecordChecksum checksum = new RecordChecksum();

    /** Writes {@code command} at {@code offset} in layout version 1. @return the number of bytes written. */
    int encode(final Command command, final MutableDirectBuffer buffer, final int offset)
    {
        CommandRecordTail.checkEncodable(command);
        final int recordLength = FLAGS_OFFSET + CommandRecordTail.length(command) + RecordHeader.CHECKSUM_SIZE;
        if (offset < 0 || buffer.capacity() - offset < recordLength)
        {
            throw new IllegalArgumentException("buffer too small for a record of " + recordLength + " bytes");
        }

        buffer.putByte(offset + RecordHeader.VERSION_OFFSET, (byte)VERSION);
        buffer.putByte(offset + RecordHeader.RECORD_TYPE_OFFSET, (byte)command.type.code());
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
        CommandRecordTail.write(buffer, offset + FLAGS_OFFSET, command);

        final int checksumOffset = recordLength - RecordHeader.CHECKSUM_SIZE;
        buffer.putInt(offset + checksumOffset, checksum.compute(buffer, offset, checksumOffset), BYTE_ORDER);
        return recordLength;
    }
}
