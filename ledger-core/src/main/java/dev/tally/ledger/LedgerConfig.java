package dev.tally.ledger;

/**
 * Capacities and retention windows of the in-memory state. Every table is allocated once, at its
 * maximum, when the ledger is built (static allocation: no growth, no surprise pauses); reaching a
 * maximum is a {@link dev.tally.ledger.result.ResultCode#CAPACITY_EXCEEDED} rejection, never an
 * out-of-memory crash. Per-item costs are documented in docs/ARCHITECTURE.md ("Memory").
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
 *                            the work one tick does on the business thread.
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

    /** Validates every limit once, at startup, with a message that names it. */
    public LedgerConfig
    {
        requirePositive("accountsMax", accountsMax);
        requirePositive("subBalancesMax", subBalancesMax);
        requirePositive("idempotencyKeysMax", idempotencyKeysMax);
        requirePositive("referencesMax", referencesMax);
        requirePositive("transfersMax", transfersMax);
        requirePositive("holdsMax", holdsMax);
        requirePositive("keyRetentionMs", keyRetentionMs);
        requirePositive("referenceRetentionMs", referenceRetentionMs);
        requirePositive("reversalWindowMs", reversalWindowMs);
        requirePositive("expiriesPerTickMax", expiriesPerTickMax);
        if (subBalancesMax < accountsMax)
        {
            throw new IllegalArgumentException(
                "subBalancesMax (" + subBalancesMax + ") must be >= accountsMax (" + accountsMax + "): every account has one");
        }
        if ((long)accountsMax * 8 + (long)subBalancesMax * 2 > Integer.MAX_VALUE - 64)
        {
            throw new IllegalArgumentException("accountsMax x 8 + subBalancesMax x 2 longs must fit one array (" +
                (Integer.MAX_VALUE - 64) + "): the account records and sub-balance pairs share it");
        }
        final int hashCapacityMax = 1 << 29;
        if (idempotencyKeysMax > hashCapacityMax || referencesMax > hashCapacityMax || transfersMax > hashCapacityMax ||
            holdsMax > hashCapacityMax || accountsMax > hashCapacityMax)
        {
            throw new IllegalArgumentException("a capacity exceeds " + hashCapacityMax);
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
}
