package dev.tally.journal;

import static dev.tally.journal.RecordHeader.BYTE_ORDER;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The part both command record layouts share after their fields, and before the CRC32C:
 *
 * <pre>
 * offset size  field
 *      f    1  flags              u8   bit 0 atomic, bit 1 debitsMustNotExceedCredits, bit 2 referenceTaken,
 *                                      bit 3 referenceUnchecked, bit 4 metadata
 *    f+1    1  referenceLength    u8   0..{@link LedgerLimits#REFERENCE_LENGTH_MAX}
 *    f+2    n  reference               n = referenceLength ASCII bytes
 *  f+2+n    2  metadataLength     u16  1..{@link LedgerLimits#METADATA_LENGTH_MAX}, only with flag bit 4
 *  f+4+n    m  metadata                m = metadataLength bytes (canonical JSON, UTF-8), only with flag bit 4
 * </pre>
 *
 * A record without flag bits 2 (with the stored transfer's id in {@code targetIdHi/Lo}), 3 or 4 reads them as false
 * and has no metadata, so journals whose records never set them read as they were written.
 */
final class CommandRecordTail
{
    static final int FLAG_ATOMIC = 1;
    static final int FLAG_DEBITS_MUST_NOT_EXCEED_CREDITS = 1 << 1;
    static final int FLAG_REFERENCE_TAKEN = 1 << 2;
    static final int FLAG_REFERENCE_UNCHECKED = 1 << 3;
    /** A transfer's metadata follows the reference text (its length first, u16). */
    static final int FLAG_METADATA = 1 << 4;
    static final int METADATA_LENGTH_SIZE = Short.BYTES;
    /** Bytes of the tail with no reference text and no metadata: flags and reference length. */
    static final int LENGTH_MIN = 2 * Byte.BYTES;

    private CommandRecordTail()
    {
    }

    /**
     * @throws IllegalArgumentException when the command has no type, or its reference or metadata is longer than a
     *                                  record holds: bugs upstream, never data.
     */
    static void checkEncodable(final Command command)
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

    /** @return bytes the tail of {@code command} takes. */
    static int length(final Command command)
    {
        return LENGTH_MIN + command.referenceLength + metadataBytes(command.metadataLength);
    }

    /** @return bytes the metadata takes in a record: none without metadata, else its length field and itself. */
    static int metadataBytes(final int metadataLength)
    {
        return metadataLength == 0 ? 0 : METADATA_LENGTH_SIZE + metadataLength;
    }

    /** Writes the tail of {@code command} at {@code at}. @return bytes written. */
    static int write(final MutableDirectBuffer buffer, final int at, final Command command)
    {
        final int referenceLength = command.referenceLength;
        final int metadataLength = command.metadataLength;
        buffer.putByte(at, flags(command));
        buffer.putByte(at + 1, (byte)referenceLength);
        buffer.putBytes(at + 2, command.reference, 0, referenceLength);
        if (metadataLength > 0)
        {
            final int metadataAt = at + 2 + referenceLength;
            buffer.putShort(metadataAt, (short)metadataLength, BYTE_ORDER);
            buffer.putBytes(metadataAt + METADATA_LENGTH_SIZE, command.metadata.array(), 0, metadataLength);
        }
        return LENGTH_MIN + referenceLength + metadataBytes(metadataLength);
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

    /**
     * Checks the tail at {@code offset + tailOffset} against the record's announced length: the reference length, the
     * metadata length (1..{@link LedgerLimits#METADATA_LENGTH_MAX}, with flag bit 4 only), and that the lengths add up
     * to the record's.
     *
     * @return the metadata length (0: none), or -1 when the record is {@link DecodeStatus#BAD_LENGTH}.
     */
    static int checkedMetadataLength(final DirectBuffer buffer, final int offset, final int tailOffset, final int recordLength)
    {
        final int at = offset + tailOffset;
        final int flags = buffer.getByte(at);
        final int referenceLength = buffer.getByte(at + 1) & 0xFF;
        if (referenceLength > LedgerLimits.REFERENCE_LENGTH_MAX)
        {
            return -1;
        }
        final int bytesBeforeMetadata = tailOffset + LENGTH_MIN + referenceLength + RecordHeader.CHECKSUM_SIZE;
        int metadataLength = 0;
        if ((flags & FLAG_METADATA) != 0)
        {
            if (bytesBeforeMetadata + METADATA_LENGTH_SIZE > recordLength)
            {
                return -1;
            }
            metadataLength = buffer.getShort(at + LENGTH_MIN + referenceLength, BYTE_ORDER) & 0xFFFF;
            if (metadataLength == 0 || metadataLength > LedgerLimits.METADATA_LENGTH_MAX)
            {
                return -1;
            }
        }
        return bytesBeforeMetadata + metadataBytes(metadataLength) == recordLength ? metadataLength : -1;
    }

    /** Reads the tail at {@code at} into {@code command}; {@link #checkedMetadataLength} passed it first. */
    static void read(final DirectBuffer buffer, final int at, final int metadataLength, final Command command)
    {
        final int flags = buffer.getByte(at);
        final int referenceLength = buffer.getByte(at + 1) & 0xFF;
        final int referenceAt = at + LENGTH_MIN;
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
}
