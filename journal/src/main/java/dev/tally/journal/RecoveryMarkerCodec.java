package dev.tally.journal;

import static dev.tally.journal.RecordHeader.BYTE_ORDER;

import java.util.zip.CRC32C;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The record the journal appends when it reopens over a torn tail: "the records between the last good
 * command and this marker are dropped; the sequence resumes after {@code resumeAfterIndex}".
 *
 * <p>Chronicle Queue cannot truncate a file, so a torn region stays on disk. The marker makes the cut
 * explicit and durable, so every later reader skips exactly the same records and the journal index
 * stays gap-free across the cut.
 *
 * <pre>
 * offset size  field
 *      0    1  version                    u8   = {@link #VERSION}
 *      1    1  record type                u8   = {@link #RECORD_TYPE}
 *      2    2  record length              u16  = {@link #ENCODED_LENGTH}
 *      4    4  reserved                   i32  = 0 (keeps the longs 8-byte aligned)
 *      8    8  resumeAfterIndex           i64  last good journal index before the cut
 *     16    8  lastTimestampNs            i64  journaled time of that command
 *     24    8  droppedRecordCount         i64  records in the torn region
 *     32    4  crc32c                     over bytes [0, 32)
 * </pre>
 */
final class RecoveryMarkerCodec
{
    static final int VERSION = 1;
    static final int RECORD_TYPE = RecordHeader.CONTROL_TYPE_MIN;

    static final int RESERVED_OFFSET = RecordHeader.LENGTH;
    static final int RESUME_AFTER_INDEX_OFFSET = RESERVED_OFFSET + Integer.BYTES;
    static final int LAST_TIMESTAMP_NS_OFFSET = RESUME_AFTER_INDEX_OFFSET + Long.BYTES;
    static final int DROPPED_RECORD_COUNT_OFFSET = LAST_TIMESTAMP_NS_OFFSET + Long.BYTES;
    static final int CHECKSUM_OFFSET = DROPPED_RECORD_COUNT_OFFSET + Long.BYTES;
    static final int ENCODED_LENGTH = CHECKSUM_OFFSET + RecordHeader.CHECKSUM_SIZE;

    private final CRC32C crc = new CRC32C();
    private final byte[] crcScratch = new byte[ENCODED_LENGTH];

    private long resumeAfterIndex;
    private long lastTimestampNs;
    private long droppedRecordCount;

    /** @return true when the record at {@code offset} claims to be a recovery marker (not yet verified). */
    static boolean isMarker(final DirectBuffer buffer, final int offset, final int lengthAvailable)
    {
        return lengthAvailable >= RecordHeader.LENGTH && RecordHeader.recordType(buffer, offset) == RECORD_TYPE;
    }

    int encode(
        final MutableDirectBuffer buffer,
        final int offset,
        final long resumeAfterIndex,
        final long lastTimestampNs,
        final long droppedRecordCount)
    {
        buffer.putByte(offset + RecordHeader.VERSION_OFFSET, (byte)VERSION);
        buffer.putByte(offset + RecordHeader.RECORD_TYPE_OFFSET, (byte)RECORD_TYPE);
        buffer.putShort(offset + RecordHeader.RECORD_LENGTH_OFFSET, (short)ENCODED_LENGTH, BYTE_ORDER);
        buffer.putInt(offset + RESERVED_OFFSET, 0, BYTE_ORDER);
        buffer.putLong(offset + RESUME_AFTER_INDEX_OFFSET, resumeAfterIndex, BYTE_ORDER);
        buffer.putLong(offset + LAST_TIMESTAMP_NS_OFFSET, lastTimestampNs, BYTE_ORDER);
        buffer.putLong(offset + DROPPED_RECORD_COUNT_OFFSET, droppedRecordCount, BYTE_ORDER);
        final int checksum = RecordHeader.crc32c(crc, crcScratch, buffer, offset, CHECKSUM_OFFSET);
        buffer.putInt(offset + CHECKSUM_OFFSET, checksum, BYTE_ORDER);
        return ENCODED_LENGTH;
    }

    /** Verifies and reads the marker at {@code offset}; on {@link DecodeStatus#OK} the getters hold it. */
    DecodeStatus decode(final DirectBuffer buffer, final int offset, final int lengthAvailable)
    {
        final DecodeStatus status = RecordHeader.verify(
            crc, crcScratch, buffer, offset, lengthAvailable, VERSION, ENCODED_LENGTH);
        if (DecodeStatus.OK != status)
        {
            return status;
        }
        if (RecordHeader.recordLength(buffer, offset) != ENCODED_LENGTH)
        {
            return DecodeStatus.BAD_LENGTH;
        }
        resumeAfterIndex = buffer.getLong(offset + RESUME_AFTER_INDEX_OFFSET, BYTE_ORDER);
        lastTimestampNs = buffer.getLong(offset + LAST_TIMESTAMP_NS_OFFSET, BYTE_ORDER);
        droppedRecordCount = buffer.getLong(offset + DROPPED_RECORD_COUNT_OFFSET, BYTE_ORDER);
        return DecodeStatus.OK;
    }

    long resumeAfterIndex()
    {
        return resumeAfterIndex;
    }

    long lastTimestampNs()
    {
        return lastTimestampNs;
    }

    long droppedRecordCount()
    {
        return droppedRecordCount;
    }
}
