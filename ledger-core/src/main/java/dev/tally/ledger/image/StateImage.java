package dev.tally.ledger.image;

import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.account.Accounts;
import dev.tally.ledger.hold.HoldTable;
import dev.tally.ledger.idempotency.IdempotencyTable;
import dev.tally.ledger.transfer.ColdTransfers;
import dev.tally.ledger.transfer.ReferenceTable;
import dev.tally.ledger.transfer.TransferTable;

/**
 * The whole business state of a {@link dev.tally.ledger.Ledger} at one journal index, as flat primitive
 * arrays: what a snapshot file holds. {@code Ledger.copyTo} fills it (a handful of
 * {@code System.arraycopy} calls over the live part of each table, plus one scan of the hold slots);
 * {@code Ledger.restore} builds a fresh ledger from it. No I/O here: the snapshotter encodes the arrays.
 *
 * <p>Sections, each in the owning table's own entry layout, oldest entry first:
 * <pre>
 *   accountRecords       8 longs per account, creation order (the 64-byte record, see {@link Accounts})
 *   subBalancePairs      2 longs (posted, held) per global sub-balance slot
 *   keys                 12 longs per stored idempotency key and result (see {@link IdempotencyTable})
 *   references           4 longs per reference (digest, transfer index, time)
 *   transfers            11 longs per transfer kept for reversal (see {@link TransferTable})
 *   transferReferenceLos 1 long per transfer (low half of its reference digest)
 *   transferReferenceText {@value dev.tally.ledger.LedgerLimits#REFERENCE_LENGTH_MAX} bytes per transfer
 *   holds                8 longs per live hold (see {@link HoldTable#IMAGE_STRIDE})
 *   coldTransfers        13 longs per transfer brought back from the cold index (see {@link ColdTransfers})
 *   lowBalanceThresholds 1 long per account, creation order: its low-balance threshold (0 without one); empty in an
 *                        image read from a snapshot older than low-balance alerts
 * </pre>
 * Hash indexes, heaps and free lists are not imaged: they are rebuilt on restore from the entries, and
 * nothing a command can observe depends on their layout (lookups answer by digest, the expiry heap
 * orders by the total order (deadline, journal index)).
 *
 * <p>One instance is reused from snapshot to snapshot; its sections grow only when the state outgrew them.
 */
public final class StateImage
{
    private final LongSection accountRecords = new LongSection();
    private final LongSection subBalancePairs = new LongSection();
    private final LongSection keys = new LongSection();
    private final LongSection references = new LongSection();
    private final LongSection transfers = new LongSection();
    private final LongSection transferReferenceLos = new LongSection();
    private final LongSection coldTransfers = new LongSection();
    private final LongSection lowBalanceThresholds = new LongSection();
    private final ByteSection transferReferenceText = new ByteSection();
    private final LongSection holds = new LongSection();
    private final long[] config = new long[CONFIG_VALUES];
    private long lastJournalIndex;
    private long nowNs;
    private long commandsApplied;
    private long transfersPosted;

    /** Values {@link #config()} is stored as: every field of {@link LedgerConfig}, in declaration order. */
    public static final int CONFIG_VALUES = 10;

    /** Sets where in the journal the image was taken, and the counters that go with it. */
    public void position(final long lastJournalIndex, final long nowNs, final long commandsApplied, final long transfersPosted)
    {
        this.lastJournalIndex = lastJournalIndex;
        this.nowNs = nowNs;
        this.commandsApplied = commandsApplied;
        this.transfersPosted = transfersPosted;
    }

    /** Records the configuration the ledger ran with: a restore into another one could behave differently. */
    public void config(final LedgerConfig c)
    {
        // Field by field, not through an array literal: this runs on the business thread at every snapshot.
        final long[] v = config;
        v[0] = c.accountsMax();
        v[1] = c.subBalancesMax();
        v[2] = c.idempotencyKeysMax();
        v[3] = c.referencesMax();
        v[4] = c.transfersMax();
        v[5] = c.holdsMax();
        v[6] = c.keyRetentionMs();
        v[7] = c.referenceRetentionMs();
        v[8] = c.reversalWindowMs();
        v[9] = c.expiriesPerTickMax();
    }

    /** @return the configuration the imaged ledger ran with. */
    public LedgerConfig config()
    {
        final long[] v = config;
        return new LedgerConfig((int)v[0], (int)v[1], (int)v[2], (int)v[3], (int)v[4], (int)v[5], v[6], v[7], v[8], (int)v[9]);
    }

    /** @return the configuration as {@link #CONFIG_VALUES} longs (the snapshot codec writes them). */
    public long[] configValues()
    {
        return config;
    }

    /** @return the journal index of the last command the imaged state includes. */
    public long lastJournalIndex()
    {
        return lastJournalIndex;
    }

    /** @return journaled time of that command, epoch nanoseconds. */
    public long nowNs()
    {
        return nowNs;
    }

    public long commandsApplied()
    {
        return commandsApplied;
    }

    public long transfersPosted()
    {
        return transfersPosted;
    }

    public LongSection accountRecords()
    {
        return accountRecords;
    }

    public LongSection subBalancePairs()
    {
        return subBalancePairs;
    }

    public LongSection keys()
    {
        return keys;
    }

    public LongSection references()
    {
        return references;
    }

    public LongSection transfers()
    {
        return transfers;
    }

    public LongSection transferReferenceLos()
    {
        return transferReferenceLos;
    }

    public LongSection coldTransfers()
    {
        return coldTransfers;
    }

    public LongSection lowBalanceThresholds()
    {
        return lowBalanceThresholds;
    }

    public ByteSection transferReferenceText()
    {
        return transferReferenceText;
    }

    public LongSection holds()
    {
        return holds;
    }

    /**
     * @return the {@code stateHash()} of the ledger this image was copied from, computed from the image
     * alone (the snapshotter thread computes it, not the business thread); the same fold, in the same
     * order, as {@code Ledger.stateHash()}.
     */
    public long stateHash()
    {
        final StateDigest digest = new StateDigest();
        digest.add(lastJournalIndex).add(nowNs);
        Accounts.digestImage(this, digest);
        HoldTable.digestImage(holds, digest);
        IdempotencyTable.digestImage(keys, digest);
        ReferenceTable.digestImage(references, digest);
        TransferTable.digestImage(this, digest);
        ColdTransfers.digestImage(coldTransfers, digest);
        return digest.value();
    }
}
