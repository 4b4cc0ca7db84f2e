package dev.tally.ledger.transfer;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.image.LongSection;
import dev.tally.ledger.image.RingCopy;
import dev.tally.ledger.table.DigestRing;

/**
 * The second line of defence: a transfer reference is unique per tenant. A ring of (reference digest,
 * transfer journal index, time) in insertion order, expiring after its own retention window; the
 * reference digest covers the tenant. PostgreSQL's UNIQUE (tenant, reference) is the backstop for
 * references older than the window.
 *
 * <p>One reference costs 32 bytes of ring plus 16 bytes of index: 48 bytes.
 */
public final class ReferenceTable
{
    private static final int STRIDE = LedgerLimits.REFERENCE_LONGS;

    private static final int TRANSFER_INDEX = 2;
    private static final int TIME = 3;

    private final DigestRing references;
    /** {@link #references}' records, read and written in place. */
    private final long[] ring;

    /** @param capacity the most references kept at once, at most {@link LedgerLimits#REFERENCES_CAPACITY_MAX}. */
    public ReferenceTable(final int capacity)
    {
        references = new DigestRing(capacity, STRIDE, TIME);
        ring = references.ring();
    }

    /** @return the journal index of the transfer holding the reference, or -1. */
    public long find(final long referenceHi, final long referenceLo)
    {
        final int position = references.find(referenceHi, referenceLo);
        return position < 0 ? -1 : ring[position * STRIDE + TRANSFER_INDEX];
    }

    /** @return the journaled time of the transfer holding the reference, or -1. */
    public long findTimestampNs(final long referenceHi, final long referenceLo)
    {
        final int position = references.find(referenceHi, referenceLo);
        return position < 0 ? -1 : ring[position * STRIDE + TIME];
    }

    public boolean hasRoom()
    {
        return references.hasRoom();
    }

    /** Records a reference; the caller checked it is absent and that there is room. */
    public void add(final long referenceHi, final long referenceLo, final long transferIndex, final long timestampNs)
    {
        final int offset = references.append(referenceHi, referenceLo) * STRIDE;
        ring[offset + TRANSFER_INDEX] = transferIndex;
        ring[offset + TIME] = timestampNs;
    }

    /** Removes the newest reference (atomic batch rollback only). */
    public void removeNewest()
    {
        references.removeNewest();
    }

    /** Forgets references recorded at or before {@code cutoffNs}, oldest first, at most {@code max}. */
    public int expire(final long cutoffNs, final int max)
    {
        return references.expire(cutoffNs, max);
    }

    public int size()
    {
        return references.size();
    }

    public void digest(final StateDigest digest)
    {
        references.digest(digest);
    }

    /** Folds an image's references exactly as {@link #digest} folds the table they were copied from. */
    public static void digestImage(final LongSection image, final StateDigest digest)
    {
        RingCopy.digest(image, STRIDE, digest);
    }

    /** @return the longs {@link #copyTo} fills. */
    public int imageLength()
    {
        return references.imageLength();
    }

    /** Copies every reference, oldest first, into {@code image}: at most two array copies. */
    public void copyTo(final LongSection image)
    {
        references.copyTo(image);
    }

    /** Fills this fresh (empty) table from an image and rebuilds the index. */
    public void restoreFrom(final LongSection image)
    {
        references.restoreFrom("reference", image);
    }
}
