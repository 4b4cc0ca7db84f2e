package dev.tally.ledger;

import dev.tally.ledger.cold.ColdSink;
import dev.tally.ledger.effect.EffectLog;
import dev.tally.ledger.effect.EventType;

/**
 * Files what the last unit of work added or changed into a {@link ColdSink}: the keys it stored, the references and
 * transfers it added, and the transfers it reversed as they now stand. The three rings only ever append (a rolled-back
 * atomic batch takes its own additions back), so a mark per ring, the count of records ever added when the last unit was
 * filed, finds the unit's records; a reversal's original is found through the unit's events.
 *
 * <p>Not part of the ledger's state: the marks restart at the restored tables' counts, and the caller files after every
 * unit, from the first one it applies. Allocation-free.
 */
final class ColdFiling
{
    private final LedgerState state;
    private final EffectLog effects;
    private final long[] keyRecord = new long[LedgerLimits.COLD_KEY_LONGS];
    private final long[] transferRecord = new long[LedgerLimits.COLD_TRANSFER_LONGS];
    private final byte[] referenceText = new byte[LedgerLimits.REFERENCE_LENGTH_MAX];
    private long keysFiled;
    private long referencesFiled;
    private long transfersFiled;

    ColdFiling(final LedgerState state, final EffectLog effects)
    {
        this.state = state;
        this.effects = effects;
        restart();
    }

    /** Starts from the tables as they stand: what they hold now was filed by whoever put it there. */
    void restart()
    {
        keysFiled = state.keys.addedCount();
        referencesFiled = state.references.addedCount();
        transfersFiled = state.transfers.addedCount();
    }

    /** Files the last unit's records into {@code sink}, oldest first within each kind. */
    void file(final ColdSink sink)
    {
        final long keysAdded = state.keys.addedCount();
        for (long added = keysFiled; added < keysAdded; added++)
        {
            final int position = state.keys.positionOfAdded(added);
            state.keys.copyCold(position, keyRecord);
            sink.key(state.keys.digestHi(position), state.keys.digestLo(position), keyRecord);
        }
        keysFiled = keysAdded;

        final long referencesAdded = state.references.addedCount();
        for (long added = referencesFiled; added < referencesAdded; added++)
        {
            sink.reference(state.references.addedDigestHi(added), state.references.addedDigestLo(added),
                state.references.addedTransferIndex(added), state.references.addedTimestampNs(added));
        }
        referencesFiled = referencesAdded;

        final long transfersAdded = state.transfers.addedCount();
        for (long added = transfersFiled; added < transfersAdded; added++)
        {
            final int position = state.transfers.positionOfAdded(added);
            state.transfers.copyCold(position, transferRecord);
            sink.transfer(state.transfers.journalIndex(position), transferRecord);
            final int referenceLength = state.transfers.copyReference(position, referenceText);
            if (referenceLength > 0)
            {
                sink.transferReference(state.transfers.journalIndex(position), referenceText, referenceLength);
            }
        }
        transfersFiled = transfersAdded;

        for (int i = 0; i < effects.eventCount(); i++)
        {
            if (effects.eventType(i) == EventType.TRANSFER_REVERSED)
            {
                fileReversed(effects.eventExtra(i), sink);
            }
        }
    }

    /** Files the original of a reversal as it now stands, from memory or from the transfers brought back. */
    private void fileReversed(final long originalIndex, final ColdSink sink)
    {
        final int position = state.transfers.find(originalIndex);
        if (position >= 0)
        {
            state.transfers.copyCold(position, transferRecord);
        }
        else
        {
            final int slot = state.coldTransfers.find(originalIndex);
            if (slot < 0)
            {
                throw new InvariantViolation("reversed transfer " + originalIndex + " is neither in memory nor brought back");
            }
            state.coldTransfers.copy(slot, transferRecord);
        }
        sink.transfer(originalIndex, transferRecord);
    }
}
