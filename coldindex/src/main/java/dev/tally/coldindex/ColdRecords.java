package dev.tally.coldindex;

import dev.tally.ledger.LedgerLimits;

/**
 * The records the cold index stores, as arrays of {@code long}s whose layouts the ledger owns: it files what leaves its
 * memory as it keeps it there, and reads it back into the same fields. The index only knows their lengths.
 *
 * <pre>
 *  kind        key (bytes, big-endian)                       value
 *  key         digest (16)                                    10 longs: fingerprint, the stored result
 *  reference   digest (16)                                    {@value #REFERENCE_LONGS} longs: the transfer's journal index and time
 *  transfer    journal index (8)                              12 longs: the transfer as the ledger keeps it
 * </pre>
 */
public final class ColdRecords
{
    /** An idempotency key's record: its fingerprint and stored result (the ledger's key record without the digest). */
    public static final int KEY_LONGS = LedgerLimits.COLD_KEY_LONGS;
    /** A reference's record: the journal index and the journaled time of the transfer that holds it. */
    public static final int REFERENCE_LONGS = 2;
    /** A transfer's record: its fields as the ledger keeps them, its reference digest's low half included. */
    public static final int TRANSFER_LONGS = LedgerLimits.COLD_TRANSFER_LONGS;

    static final int DIGEST_BYTES = 16;
    static final int INDEX_BYTES = 8;

    private ColdRecords()
    {
    }
}
