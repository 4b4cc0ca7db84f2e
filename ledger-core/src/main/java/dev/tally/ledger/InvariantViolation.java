package dev.tally.ledger;

/**
 * A broken ledger invariant: money created or destroyed, a constrained balance below its floor, a
 * journal index going backwards. This is a bug or a corrupt journal, never a business outcome, so it
 * halts the pipeline (the Disruptor's fatal handler) instead of being skipped.
 */
public final class InvariantViolation extends IllegalStateException
{
    private static final long serialVersionUID = 1L;

    public InvariantViolation(final String message)
    {
        super(message);
    }
}
