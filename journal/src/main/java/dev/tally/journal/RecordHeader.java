package dev.tally.journal;

import java.nio.ByteOrder;
import java.util.zip.CRC32C;

import org.agrona.DirectBuffer;

/**
 * The four bytes every journal record starts with, and the checksum every record ends with.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  |    version    |  record type  |  record length (u16, bytes)   |
 *  +---------------+---------------+-------------------------------+
 *  |                   ... body of the record type ...            |
 *  +---------------------------------------------------------------+
 *  |          CRC32C over every byte before this field             |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>All multi-byte fields are little-endian. Record types below {@link #CONTROL_TYPE_MIN} are
 * {@link dev.tally.ledger.command.CommandType#code() command type codes}; types from
 * {@link #CONTROL_TYPE_MIN} up are records the journal writes about itself (see
 * {@link RecoveryMarkerCodec}).
 */
final class RecordHeader
{
    static final ByteOrder BYTE_ORDER = ByteOrder.LITTLE_ENDIAN;

    static final int VERSION_OFFSET = 0;
    static final int VERSION_SIZE = Byte.BYTES;
    static final int RECORD_TYPE_OFFSET = VERSION_OFFSET + VERSION_SIZE;
    static final int RECORD_TYPE_SIZE = Byte.BYTES;
    static final int RECORD_LENGTH_OFFSET = RECORD_TYPE_OFFSET + RECORD_TYPE_SIZE;
    static final int RECORD_LENGTH_SIZE = Short.BYTES;
    /** Bytes of the common header. */
    static final int LENGTH = RECORD_LENGTH_OFFSET + RECORD_LENGTH_SIZE;

    /** Bytes of the trailing CRC32C. */
    static final int CHECKSUM_SIZE = Integer.BYTES;

    /** First record type that is not a command: the journal's own control records. */
    static final int CONTROL_TYPE_MIN = 0x80;

    private RecordHeader()
    {
    }

    static int version(final DirectBuffer buffer, final int offset)
    {
        return buffer.getByte(offset + VERSION_OFFSET) & 0xFF;
    }

    static int recordType(final DirectBuffer buffer, final int offset)
    {
        return buffer.getByte(offset + RECORD_TYPE_OFFSET) & 0xFF;
    }

    static int recordLength(final DirectBuffer buffer, final int offset)
    {
        return buffer.getShort(offset + RECORD_LENGTH_OFFSET, BYTE_ORDER) & 0xFFFF;
    }

    /**
     * Computes CRC32C over a range of any Agrona buffer without allocating: straight from the backing
     * array when there is one, otherwise through {@code scratch} in chunks.
     */
    static int crc32c(
        final CRC32C crc, final byte[] scratch, final DirectBuffer buffer, final int offset, final int length)
    {
        crc.reset();
        final byte[] array = buffer.byteArray();
        if (null != array)
        {
            crc.update(array, buffer.wrapAdjustment() + offset, length);
        }
        else
        {
            int done = 0;
            while (done < length)
            {
                final int chunk = Math.min(scratch.length, length - done);
                buffer.getBytes(offset + done, scratch, 0, chunk);
                crc.update(scratch, 0, chunk);
                done += chunk;
            }
        }
        return (int)crc.getValue();
    }

    /**
     * Checks the common header and the checksum of the record at {@code offset}.
     *
     * @param lengthAvailable bytes readable from {@code offset}.
     * @return {@link DecodeStatus#OK} when the header is of {@code expectedVersion}, the announced
     * length fits in {@code lengthAvailable} and the CRC32C matches.
     */
    static DecodeStatus verify(
        final CRC32C crc,
        final byte[] scratch,
        final DirectBuffer buffer,
        final int offset,
        final int lengthAvailable,
        final int expectedVersion,
        final int recordLengthMin)
    {
        if (lengthAvailable < LENGTH)
        {
            return DecodeStatus.TRUNCATED;
        }
        if (version(buffer, offset) != expectedVersion)
        {
            return DecodeStatus.UNKNOWN_VERSION;
        }
        final int recordLength = recordLength(buffer, offset);
        if (recordLength > lengthAvailable)
        {
            return DecodeStatus.TRUNCATED;
        }
        if (recordLength < recordLengthMin)
        {
            return DecodeStatus.BAD_LENGTH;
        }
        final int checksumOffset = offset + recordLength - CHECKSUM_SIZE;
        final int stored = buffer.getInt(checksumOffset, BYTE_ORDER);
        final int computed = crc32c(crc, scratch, buffer, offset, recordLength - CHECKSUM_SIZE);
        return stored == computed ? DecodeStatus.OK : DecodeStatus.BAD_CHECKSUM;
    }
}
