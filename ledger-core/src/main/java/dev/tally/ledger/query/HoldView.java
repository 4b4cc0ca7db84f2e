package dev.tally.ledger.query;

/**
 * A copy of one live hold, filled by {@link dev.tally.ledger.Ledger#forEachLiveHold} for tools that read a stopped
 * ledger, or on the business thread for a read of one hold ({@link TransferView#HOLD_BY_ID}). Reused from hold to hold.
 */
public final class HoldView
{
    /** A read of one hold: memory holds it live (active or unknown) for the tenant. */
    public boolean found;
    /** Journal index and time of the command that created the hold: its UUIDv7 id derives from them. */
    public long journalIndex;
    public long timestampNs;
    public long tenantId;
    public long accountId;
    public long amountMinor;
    public int currency;
    /** Journaled time at which an active hold expires, epoch nanoseconds. */
    public long deadlineNs;
    /** The hold's outcome is unknown: it never expires, only a capture or a void resolves it. */
    public boolean unknown;

    /** Copies another view (so a reply renderer can own its copy). */
    public HoldView copyFrom(final HoldView other)
    {
        found = other.found;
        journalIndex = other.journalIndex;
        timestampNs = other.timestampNs;
        tenantId = other.tenantId;
        accountId = other.accountId;
        amountMinor = other.amountMinor;
        currency = other.currency;
        deadlineNs = other.deadlineNs;
        unknown = other.unknown;
        return this;
    }
}
