package dev.tally.ledger.cold;

import dev.tally.ledger.LedgerLimits;

/**
 * Where the ledger files what it may later let leave its memory: the cold index, which answers for it from then on.
 * Called on the business thread by {@link dev.tally.ledger.Ledger#fileCold} after a unit of work, once per item the unit
 * added or changed; the arrays are the ledger's scratch, valid only during the call.
 */
public interface ColdSink
{
    /**
     * An idempotency key and its stored result.
     *
     * @param record {@link LedgerLimits#COLD_KEY_LONGS} longs: fingerprint, result origin and fields.
     */
    void key(long digestHi, long digestLo, long[] record);

    /** A transfer's reference, with the journal index and time of the transfer that holds it. */
    void reference(long digestHi, long digestLo, long transferIndex, long timestampNs);

    /**
     * A transfer as it stands (created by the unit, or reversed in part or whole by it).
     *
     * @param record {@link LedgerLimits#COLD_TRANSFER_LONGS} longs: the transfer's fields and its reference digest's low half.
     */
    void transfer(long journalIndex, long[] record);

    /**
     * A new transfer's reference text, filed once with the transfer (a reversal refiles the record alone): what a read of
     * the transfer shows once memory let it go.
     */
    void transferReference(long journalIndex, byte[] text, int length);
}
