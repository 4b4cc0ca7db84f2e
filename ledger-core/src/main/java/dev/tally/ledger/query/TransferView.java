package dev.tally.ledger.query;

import dev.tally.ledger.LedgerLimits;

/**
 * A copy of one in-memory transfer, filled on the business thread by
 * {@link dev.tally.ledger.Ledger#readTransfer} and rendered elsewhere, or by
 * {@link dev.tally.ledger.Ledger#readTransferAt} for tools. Reused: no allocation per read.
 */
public final class TransferView
{
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
