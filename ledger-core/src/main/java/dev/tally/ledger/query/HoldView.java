package dev.tally.ledger.query;

/**
 * A copy of one live hold, filled by {@link dev.tally.ledger.Ledger#forEachLiveHold} for tools that read a stopped
 * ledger. Reused from hold to hold.
 */
public final class HoldView
{
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
}
