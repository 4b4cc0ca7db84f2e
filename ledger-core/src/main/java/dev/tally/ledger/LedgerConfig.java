package dev.tally.ledger;

/**
 * Capacities and retention windows of the in-memory state. Every table is allocated once, at its
 * maximum, when the ledger is built (static allocation: no growth, no surprise pauses); reaching a
 * maximum is a {@link dev.tally.ledger.result.ResultCode#CAPACITY_EXCEEDED} rejection, never an
 * out-of-memory crash. Per-item costs are documented in docs/ARCHITECTURE.md ("Memory").
 *
 * <p>Each capacity is bounded by what its table can address: every backing array must fit one Java array,
 * so that no offset computed in {@code int} can wrap (the {@code *_LIMIT} constants, which {@link LedgerLimits}
 * derives from each table's layout); each window by what
 * its nanoseconds fit in a {@code long}; the expiries of a tick by the ids its events can take. A larger
 * value is refused here, at start-up, never met later by a command halfway through its changes.
 *
 * @param accountsMax         accounts the ledger can hold.
 * @param subBalancesMax      sub-balances across all accounts (an ordinary account uses 1).
 * @param idempotencyKeysMax  idempotency keys kept inside their retention window.
 * @param referencesMax       transfer references kept inside their retention window.
 * @param transfersMax        transfers kept in memory for reversal and reads.
 * @param holdsMax            live holds (active or unknown).
 * @param keyRetentionMs      how long a key (and its stored result) lives, in journaled time.
 * @param referenceRetentionMs how long a reference stays unique in memory (PostgreSQL's UNIQUE
 *                            constraint is the backstop after that).
 * @param reversalWindowMs    how long a transfer stays reversible from memory.
 * @param expiriesPerTickMax  keys, references, transfers and holds expired by one tick, each: bounds
 *                            the work one tick does on the business thread. At most
 *                            {@link #EXPIRIES_PER_TICK_MAX_LIMIT}: each expired hold is an event of the
 *                            tick, and a command's events are told apart by a 14-bit ordinal in their ids.
 */
public record LedgerConfig(
    int accountsMax,
    int subBalancesMax,
    int idempotencyKeysMax,
    int referencesMax,
    int transfersMax,
    int holdsMax,
    long keyRetentionMs,
    long referenceRetentionMs,
    long reversalWindowMs,
    int expiriesPerTickMax)
{
    /** 24 hours, the spec's default key retention. */
    public static final long DAY_MS = 24L * 60 * 60 * 1000;

    /** Largest {@code accountsMax}: 8 longs of record and at least 2 of sub-balance pair per account, in one array. */
    public static final int ACCOUNTS_MAX_LIMIT = LedgerLimits.ACCOUNTS_CAPACITY_MAX;
    /** Longs the account records (8 per account) and sub-balance pairs (2 per sub-balance) may fill together. */
    public static final int ACCOUNT_CELLS_MAX = LedgerLimits.ACCOUNT_CELLS_MAX;
    /** Largest {@code idempotencyKeysMax}: 12 longs per key in one array. */
    public static final int IDEMPOTENCY_KEYS_MAX_LIMIT = LedgerLimits.IDEMPOTENCY_KEYS_CAPACITY_MAX;
    /** Largest {@code referencesMax}: 4 longs per reference in one array. */
    public static final int REFERENCES_MAX_LIMIT = LedgerLimits.REFERENCES_CAPACITY_MAX;
    /** Largest {@code transfersMax}: 64 bytes of reference text per transfer in one array. */
    public static final int TRANSFERS_MAX_LIMIT = LedgerLimits.TRANSFERS_CAPACITY_MAX;
    /** Largest {@code holdsMax}: the holds' index keeps 4 longs or more per hold in one array. */
    public static final int HOLDS_MAX_LIMIT = LedgerLimits.HOLDS_CAPACITY_MAX;
    /** Largest retention window or reversal window, in ms (about 292 years): its nanoseconds must fit a long. */
    public static final long WINDOW_MS_LIMIT = Long.MAX_VALUE / 1_000_000L;
    /** Largest {@code expiriesPerTickMax}: the expired holds of one tick take event ordinals 0, 1, 2… */
    public static final int EXPIRIES_PER_TICK_MAX_LIMIT = LedgerLimits.EXPIRIES_PER_TICK_MAX;

    /** Validates every limit once, at startup, with a message that names it. */
    public LedgerConfig
    {
        requireInRange("accountsMax", accountsMax, ACCOUNTS_MAX_LIMIT, "its records and sub-balances fill one array");
        requirePositive("subBalancesMax", subBalancesMax);   // its bound depends on accountsMax: below
        requireInRange("idempotencyKeysMax", idempotencyKeysMax, IDEMPOTENCY_KEYS_MAX_LIMIT, "its records fill one array");
        requireInRange("referencesMax", referencesMax, REFERENCES_MAX_LIMIT, "its records fill one array");
        requireInRange("transfersMax", transfersMax, TRANSFERS_MAX_LIMIT, "their reference texts fill one array");
        requireInRange("holdsMax", holdsMax, HOLDS_MAX_LIMIT, "its index fills one array");
        requireInRange("keyRetentionMs", keyRetentionMs, WINDOW_MS_LIMIT, "its nanoseconds fit a long");
        requireInRange("referenceRetentionMs", referenceRetentionMs, WINDOW_MS_LIMIT, "its nanoseconds fit a long");
        requireInRange("reversalWindowMs", reversalWindowMs, WINDOW_MS_LIMIT, "its nanoseconds fit a long");
        requireInRange("expiriesPerTickMax", expiriesPerTickMax, EXPIRIES_PER_TICK_MAX_LIMIT,
            "a tick's expired holds are told apart by a 14-bit ordinal in their event ids");
        if (subBalancesMax < accountsMax)
        {
            throw new IllegalArgumentException(
                "subBalancesMax (" + subBalancesMax + ") must be >= accountsMax (" + accountsMax + "): every account has one");
        }
        final long subBalancesAllowed = (ACCOUNT_CELLS_MAX - 8L * accountsMax) / 2;
        if (subBalancesMax > subBalancesAllowed)
        {
            throw new IllegalArgumentException("subBalancesMax must be <= " + subBalancesAllowed + " with accountsMax " +
                accountsMax + ", was " + subBalancesMax + ": accountsMax x 8 + subBalancesMax x 2 longs must fit one array (" +
                ACCOUNT_CELLS_MAX + "), the account records and sub-balance pairs share it");
        }
    }

    /** Production defaults: about 1 GiB of heap (see docs/ARCHITECTURE.md, "Memory"). */
    public static LedgerConfig defaults()
    {
        return new LedgerConfig(1_000_000, 2_000_000, 2_000_000, 1_000_000, 1_000_000, 1_000_000,
            DAY_MS, DAY_MS, DAY_MS, 10_000);
    }

    /** Small tables for tests and demos. */
    public static LedgerConfig small()
    {
        return new LedgerConfig(10_000, 40_000, 100_000, 100_000, 100_000, 10_000, DAY_MS, 7 * DAY_MS, 7 * DAY_MS, 1_000);
    }

    /** @return a copy with other retention windows. */
    public LedgerConfig withRetention(final long keyRetentionMs, final long referenceRetentionMs, final long reversalWindowMs)
    {
        return new LedgerConfig(accountsMax, subBalancesMax, idempotencyKeysMax, referencesMax, transfersMax, holdsMax,
            keyRetentionMs, referenceRetentionMs, reversalWindowMs, expiriesPerTickMax);
    }

    /** @return a copy with other capacities. */
    public LedgerConfig withCapacity(
        final int accountsMax, final int subBalancesMax, final int idempotencyKeysMax, final int transfersMax, final int holdsMax)
    {
        return new LedgerConfig(accountsMax, subBalancesMax, idempotencyKeysMax, Math.max(1, transfersMax), transfersMax,
            holdsMax, keyRetentionMs, referenceRetentionMs, reversalWindowMs, expiriesPerTickMax);
    }

    private static void requirePositive(final String name, final long value)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
    }

    private static void requireInRange(final String name, final long value, final long max, final String why)
    {
        requirePositive(name, value);
        if (value > max)
        {
            throw new IllegalArgumentException(name + " must be <= " + max + " (" + why + "), was " + value);
        }
    }
}
