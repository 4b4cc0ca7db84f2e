package dev.tally.journal;

/**
 * Outcome of decoding one journal record. Anything but {@link #OK} means the bytes must not be
 * applied; a reader turns it into a torn-tail or corruption verdict, never into a silent skip.
 */
public enum DecodeStatus
{
    /** The record is intact and was decoded. */
    OK,
    /** Fewer bytes than the record header announces, or fewer than the smallest record. */
    TRUNCATED,
    /** The version byte names a layout this build does not know. */
    UNKNOWN_VERSION,
    /** The CRC32C stored in the record does not match its bytes. */
    BAD_CHECKSUM,
    /** The checksum is right but the record type is not one this decoder handles. */
    UNKNOWN_TYPE,
    /** The checksum is right but a length field disagrees with the layout (reference length, record length). */
    BAD_LENGTH
}
