package dev.tally.ledger.id;

import dev.tally.ledger.LedgerLimits;

/**
 * Deterministic, time-ordered UUIDv7 ids derived only from journaled data, so that a replay produces
 * the same ids and PostgreSQL can deduplicate on them.
 *
 * <pre>
 *  most significant 64 bits                          least significant 64 bits
 *  +----------------------+------+------+--------+   +----+----------------------------+-----------+
 *  | unix ms (48 bits)    | ver=7| kind | 0 (8)  |   | 10 | journal index (48 bits)    | ordinal   |
 *  |                      | (4)  | (4)  |        |   |(2) |                            | (14 bits) |
 *  +----------------------+------+------+--------+   +----+----------------------------+-----------+
 * </pre>
 * The 74 "random" bits of RFC 9562 carry the kind, the journal index and an ordinal instead: the
 * journal index is unique per command, so (kind, index, ordinal) is unique per id, and ids sort by
 * time, then by index.
 */
public final class Uuid7
{
    /** A transfer, a reversal, or the transfer a capture posts. */
    public static final int KIND_TRANSFER = 0;
    /** A hold (reservation). */
    public static final int KIND_HOLD = 1;
    /** A ledger entry (one leg of a transfer). */
    public static final int KIND_ENTRY = 2;
    /** An outbox event. */
    public static final int KIND_EVENT = 3;

    /** Ordinals fit in {@value LedgerLimits#ID_ORDINAL_BITS} bits. */
    public static final int ORDINAL_MAX = (1 << LedgerLimits.ID_ORDINAL_BITS) - 1;

    private static final long VERSION_BITS = 0x7000L;
    private static final long VARIANT_BITS = 0x8000_0000_0000_0000L;
    private static final long VARIANT_MASK = 0xC000_0000_0000_0000L;

    private Uuid7()
    {
    }

    /**
     * @param timestampNs journaled time of the command, epoch nanoseconds.
     * @param kind        one of the {@code KIND_*} constants.
     * @return the most significant 64 bits.
     */
    public static long hi(final long timestampNs, final int kind)
    {
        final long unixMs = timestampNs / 1_000_000L;
        return (unixMs << 16) | VERSION_BITS | ((long)(kind & 0xF) << 8);
    }

    /**
     * @param journalIndex the command's journal index.
     * @param ordinal      which of the command's ids of this kind, from 0.
     * @return the least significant 64 bits.
     */
    public static long lo(final long journalIndex, final int ordinal)
    {
        return VARIANT_BITS | (journalIndex << 14) | (ordinal & ORDINAL_MAX);
    }

    /** @return the journal index encoded in an id's low half, or -1 if the bits are not ours. */
    public static long journalIndex(final long hi, final long lo)
    {
        if ((lo & VARIANT_MASK) != VARIANT_BITS || (hi & 0xF000L) != VERSION_BITS)
        {
            return -1;
        }
        final long index = (lo & ~VARIANT_MASK) >>> 14;
        return index <= LedgerLimits.JOURNAL_INDEX_MAX ? index : -1;
    }

    /** @return the journaled time an id's high half was made from, truncated to the millisecond it keeps. */
    public static long timestampNs(final long hi)
    {
        return (hi >>> 16) * 1_000_000L;
    }

    /** @return the kind encoded in an id's high half. */
    public static int kind(final long hi)
    {
        return (int)((hi >>> 8) & 0xF);
    }

    /** @return the ordinal encoded in an id's low half. */
    public static int ordinal(final long lo)
    {
        return (int)(lo & ORDINAL_MAX);
    }

    /** Formats an id as the canonical 36-character string (off the hot path). */
    public static String toString(final long hi, final long lo)
    {
        return new java.util.UUID(hi, lo).toString();
    }
}
