package dev.tally.ledger;

/**
 * Forgets keys, references and transfers that left their windows of journaled time, the oldest first: each is a ring
 * in time order, so this reads the ring heads (sequential) and removes one index entry per key or reference. Driven by
 * journaled time only, so that a replay forgets the same items at the same place.
 */
final class Retention
{
    private final LedgerState state;
    private final long keyRetentionNs;
    private final long referenceRetentionNs;
    private final long reversalWindowNs;

    Retention(final LedgerConfig config, final LedgerState state)
    {
        this.state = state;
        // LedgerConfig bounds the windows (WINDOW_MS_LIMIT) so that these cannot overflow.
        keyRetentionNs = config.keyRetentionMs() * 1_000_000L;
        referenceRetentionNs = config.referenceRetentionMs() * 1_000_000L;
        reversalWindowNs = config.reversalWindowMs() * 1_000_000L;
    }

    /** Forgets what left its window by journaled time {@code nowNs}: at most {@code max} of each kind. */
    void expire(final long nowNs, final int max)
    {
        state.keys.expire(nowNs - keyRetentionNs, max);
        state.references.expire(nowNs - referenceRetentionNs, max);
        state.transfers.expire(nowNs - reversalWindowNs, max);
    }
}
