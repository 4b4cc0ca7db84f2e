package dev.tally.journal;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Encodes and decodes one {@link Command} as a journal record, reading and writing the fields in place in an Agrona
 * buffer (a flyweight: no intermediate object, no allocation).
 *
 * <p>It writes layout version 2 ({@link Layout2Codec}, which draws it) and reads versions 1 ({@link Layout1Reader},
 * which draws it: what journals written before version 2 hold) and 2. Both start with the common header
 * ({@link RecordHeader}: version, type, length), end with the same flags, reference text and metadata
 * ({@link CommandRecordTail}) and a CRC32C ({@link RecordChecksum}), and carry every command type in one layout, so the
 * codec is lossless whatever fields a type uses. A record says its own version, so a journal may hold both.
 *
 * <p>A record that follows another in the same journal document ({@link #encodeFollowing}) does not repeat what the
 * batch shares (journal index + 1, time, tenant, batch size, currency); it is read only right after the one before it
 * ({@link #decodeFollowing}).
 *
 * <p>One instance per thread: its layouts reuse a {@link java.util.zip.CRC32C}, a scratch array and a cursor.
 */
public final class CommandCodec
{
    /** Version byte of the layout written. Bump it (and keep decoding the old ones) on any change. */
    public static final int VERSION = Layout2Codec.VERSION;
    /** Version byte of the fixed-offset layout written before version 2, still read. */
    public static final int VERSION_1 = Layout1Reader.VERSION;
    /** Bytes of the smallest record: version 2, no field, no reference. */
    public static final int ENCODED_LENGTH_MIN = Layout2Codec.ENCODED_LENGTH_MIN;
    /**
     * Bytes of the largest record: version 2 with every field, a full-length reference and the most metadata (a version 1
     * record is at most 4 bytes shorter: it has no {@code present} bits).
     */
    public static final int ENCODED_LENGTH_MAX = Layout2Codec.ENCODED_LENGTH_MAX;

    private final RecordChecksum checksum = new RecordChecksum();
    private final Layout2Codec layout2 = new Layout2Codec(checksum);
    private final Layout1Reader layout1 = new Layout1Reader(checksum);

    /** @return bytes {@code command} takes once encoded in the current layout, standing alone. */
    public static int encodedLength(final Command command)
    {
        return Layout2Codec.encodedLength(command);
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
        return layout2.encode(command, buffer, offset, false);
    }

    /**
     * As {@link #encode}, for the record right after the one this codec encoded last, in the same document: the fields
     * that are as in that one (journal index + 1, time, tenant, batch size, currency) are not written again. Only
     * {@link #decodeFollowing}, right after decoding that record, reads it.
     */
    public int encodeFollowing(final Command command, final MutableDirectBuffer buffer, final int offset)
    {
        return layout2.encode(command, buffer, offset, true);
    }

    /**
     * Reads the record at {@code offset}, of any layout this build knows, into {@code command} after checking it: a
     * record that stands alone, as the first of a document does.
     *
     * @param lengthAvailable bytes readable from {@code offset}; may exceed the record.
     * @return {@link DecodeStatus#OK} and a filled {@code command}, or why the record was refused (the first check that
     *         failed; {@code command} is then unspecified).
     */
    public DecodeStatus decode(final DirectBuffer buffer, final int offset, final int lengthAvailable, final Command command)
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
        return decode(buffer, offset, lengthAvailable, command, layout2.hasDecoded());
    }

    private DecodeStatus decode(
        final DirectBuffer buffer, final int offset, final int lengthAvailable, final Command command, final boolean following)
    {
        final DecodeStatus status =
            lengthAvailable >= RecordHeader.LENGTH && RecordHeader.version(buffer, offset) == Layout1Reader.VERSION ?
            layout1.decode(buffer, offset, lengthAvailable, command) :
            layout2.decode(buffer, offset, lengthAvailable, command, following);
        layout2.decoded(DecodeStatus.OK == status ? command : null);
        return status;
    }
}
