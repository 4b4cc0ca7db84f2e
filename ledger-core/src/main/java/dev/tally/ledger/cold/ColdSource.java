package dev.tally.ledger.cold;

import dev.tally.ledger.LedgerLimits;

/**
 * The cold index as {@link ColdLookup} reads it, before a command is journaled. Each method fills {@code into} and returns
 * true when the item is there; it may throw when the index cannot answer, and the command is then marked unchecked.
 */
public interface ColdSource
{
    /**
     * Looks up together what the find calls that follow will ask ({@link ColdLookup#ask}), in their order, and keeps the
     * answers for them; a find of something not prefetched is looked up alone. Call only after reading the watermark
     * the commands are stamped with, as before any lookup. The default keeps nothing.
     */
    default void prefetch(final ColdAsks asks)
    {
    }

    /** @param into {@link LedgerLimits#COLD_KEY_LONGS} longs. */
    boolean findKey(long digestHi, long digestLo, long[] into);

    /** @param into 2 longs: the journal index and time of the transfer that holds the reference. */
    boolean findReference(long digestHi, long digestLo, long[] into);

    /** @param into {@link LedgerLimits#COLD_TRANSFER_LONGS} longs. */
    boolean findTransfer(long journalIndex, long[] into);

    /**
     * @param into {@link LedgerLimits#REFERENCE_LENGTH_MAX} bytes.
     * @return the length of the reference text filed with the transfer created at {@code journalIndex}, 0 when none.
     */
    int findTransferReference(long journalIndex, byte[] into);
}
