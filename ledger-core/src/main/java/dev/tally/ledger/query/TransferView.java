package dev.tally.ledger.query;

import dev.tally.ledger.LedgerLimits;

/**
 * A copy of one in-memory transfer, filled on the business thread by
 * {@link dev.tally.ledger.Ledger#readTransfer} and rendered elsewhere, or by
 * {@link dev.tally.ledger.Ledger#readTransferAt} for tools. Reused: no allocation per read.
 *
 * <p>A read through the ring asks one of three things, which the reader writes in {@link #lookup} before it hands the
 * view to the business thread (every other field is the business thread's answer): a transfer by id, a transfer by
 * its reference, or a hold by id, whose answer goes in {@link #hold}. One view for the three keeps the ring's slot as it
 * is: a read by id and a read by reference end the same way (a transfer, or "not in memory").
 */
public final class TransferView
{
    /** {@link #lookup}: the transfer whose id is given. */
    public static final int BY_ID = 0;
    /** {@link #lookup}: the tenant's transfer holding the reference whose digest is given in place of an id. */
    public static final int BY_REFERENCE = 1;
    /** {@link #lookup}: the live hold whose id is given; the answer is {@link #hold}. */
    public static final int HOLD_BY_ID = 2;

    /** What is asked: {@link #BY_ID}, {@link #BY_REFERENCE} or {@link #HOLD_BY_ID}. Written by the reader, never by the ledger. */
    public int lookup;
    /**
     * The last journal index the ledger had applied when it answered: whatever it had applied by then is in the read
     * model once the read model's watermark reaches this index (reads of what memory no longer holds wait for that).
     */
    public long asOfJournalIndex;
    /**
     * {@link #BY_REFERENCE} when {@link #found} is false: memory knows the reference but no longer the transfer, whose
     * journal index and time (hence id) are in {@link #journalIndex} and {@link #timestampNs}.
     */
    public boolean referenceResolved;
    /** {@link #HOLD_BY_ID}: the hold, {@link HoldView#found} false when memory holds no such live hold of the tenant. */
    public final HoldView hold = new HoldView();
    public boolean found;
    /** Journal index and time of the command that created the transfer: its UUIDv7 id derives from them. */
    public long journalIndex;
    public long timestampNs;
    public long tenantId;
    /** {@link dev.tally.ledger.transfer.TransferKind}. */
    public int kind;
    public long debitAccountId;
    public long creditAccountId;
    public long amountMinor;
    public long reversedMinor;
    public int currency;
    /** For a reversal: journal index of the reversed transfer; otherwise 0. */
    public long reversesIndex;
    /** For a reversal: journaled time of the reversed transfer (its id derives from index and time). */
    public long reversesTimestampNs;
    public final byte[] reference = new byte[LedgerLimits.REFERENCE_LENGTH_MAX];
    public int referenceLength;
    /** The transfer carries metadata, which memory does not keep: a read of it asks PostgreSQL. */
    public boolean hasMetadata;

    /** @return the reference text, or null when the transfer has none (allocates: tools and tests only). */
    public String referenceText()
    {
        return referenceLength == 0 ? null : new String(reference, 0, referenceLength, java.nio.charset.StandardCharsets.US_ASCII);
    }

    public TransferView copyFrom(final TransferView other)
    {
        lookup = other.lookup;
        asOfJournalIndex = other.asOfJournalIndex;
        referenceResolved = other.referenceResolved;
        hold.copyFrom(other.hold);
        found = other.found;
        journalIndex = other.journalIndex;
        timestampNs = other.timestampNs;
        tenantId = other.tenantId;
        kind = other.kind;
        debitAccountId = other.debitAccountId;
        creditAccountId = other.creditAccountId;
        amountMinor = other.amountMinor;
        reversedMinor = other.reversedMinor;
        currency = other.currency;
        reversesIndex = other.reversesIndex;
        reversesTimestampNs = other.reversesTimestampNs;
        referenceLength = other.referenceLength;
        hasMetadata = other.hasMetadata;
        System.arraycopy(other.reference, 0, reference, 0, other.referenceLength);
        return this;
    }
}
