package dev.tally.journal;

import java.util.zip.CRC32C;

import dev.tally.ledger.command.CommandType;
import org.agrona.DirectBuffer;

/**
 * Computes and checks the CRC32C a command record ends with ({@link RecordHeader}), reusing one {@link CRC32C} and one
 * scratch array: allocation-free. The layouts of one {@link CommandCodec} share it; one per thread.
 */
final class RecordChecksum
{
    private final CRC32C crc = new CRC32C();
    private final byte[] scratch = new byte[CommandCodec.ENCODED_LENGTH_MAX];

    /** @return the CRC32C of {@code length} bytes from {@code offset}. */
    int compute(final DirectBuffer buffer, final int offset, final int length)
    {
        return RecordHeader.crc32c(crc, scratch, buffer, offset, length);
    }

    /**
     * @return {@link RecordHeader#verify}'s verdict on the record at {@code offset} (version, announced length,
     *         checksum), then whether its type is a command type ({@link DecodeStatus#UNKNOWN_TYPE} if not).
     */
    DecodeStatus verifyCommand(
        final DirectBuffer buffer, final int offset, final int lengthAvailable, final int version, final int recordLengthMin)
    {
        final DecodeStatus status = RecordHeader.verify(crc, scratch, buffer, offset, lengthAvailable, version, recordLengthMin);
        if (DecodeStatus.OK != status)
        {
            return status;
        }
        return null == CommandType.fromCode(RecordHeader.recordType(buffer, offset)) ? DecodeStatus.UNKNOWN_TYPE : DecodeStatus.OK;
    }
}
