package dev.tally.ledger;

/**
 * Hard limits of the domain, fixed at compile time. Configurable capacities live in
 * {@link LedgerConfig}; these are the shapes the wire format and the tables are built around.
 */
public final class LedgerLimits
{
    /** Sub-balances of one account: 1 for an ordinary account, up to 64 for a hot one. */
    public static final int SUB_BALANCES_MAX = 64;
    /** Operations in one {@code POST /v1/batch}. */
    public static final int BATCH_OPERATIONS_MAX = 8_190;
    /** Bytes of a transfer reference (visible ASCII). */
    public static final int REFERENCE_LENGTH_MAX = 64;
    /**
     * Bytes of a transfer's metadata in its canonical form (a JSON object of string members, UTF-8; the
     * gateway builds and bounds it). Opaque to the ledger: journaled, carried to PostgreSQL and the outbox.
     */
    public static final int METADATA_LENGTH_MAX = 1_024;
    /** Bytes of an idempotency key (visible ASCII), as the spec allows. */
    public static final int IDEMPOTENCY_KEY_LENGTH_MAX = 255;
    /** Journal indexes fit in 48 bits so that they fit inside a UUIDv7 with room for the leg ordinal. */
    public static final long JOURNAL_INDEX_MAX = (1L << 48) - 1;
    /** Ledger legs one command may produce: one per sub-balance drawn plus the credit leg. */
    public static final int LEGS_PER_COMMAND_MAX = SUB_BALANCES_MAX + 1;

    /**
     * Keys, references and transfers past their windows that each command expires, of each kind, before
     * it runs (a batch: this many per operation, at its first operation). An operation adds at most one of
     * each, so expiry keeps up at any sustained rate and drains a backlog left by a long quiet spell, while
     * bounding the work one command adds: at most 6 index removals. Ticks are not needed for these kinds.
     */
    public static final int EXPIRIES_PER_OPERATION = 2;

    /** Hold timeouts are bounded so that a deadline in nanoseconds cannot overflow: 366 days. */
    public static final long HOLD_TIMEOUT_MAX_MS = 366L * 24 * 60 * 60 * 1000;
    /** Overdraft limits are bounded so that the funds check {@code floor + amount} cannot overflow. */
    public static final long OVERDRAFT_LIMIT_MAX_MINOR = 1L << 62;

    /**
     * The longest Java array every JVM allocates ({@code Integer.MAX_VALUE} itself is refused by some): every
     * table's backing arrays must fit it, and {@link LedgerConfig} refuses capacities that would not.
     */
    public static final int ARRAY_LENGTH_MAX = Integer.MAX_VALUE - 8;

    private LedgerLimits()
    {
    }
}
