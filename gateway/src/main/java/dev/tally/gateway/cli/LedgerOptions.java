package dev.tally.gateway.cli;

import dev.tally.ledger.LedgerConfig;
import picocli.CommandLine;

/**
 * The ledger's capacities, shared by {@code serve}, {@code replay} and {@code verify}: a replay must use
 * the capacities the server ran with, because a full table is an outcome ({@code capacity-exceeded})
 * and a different capacity could change what a command did.
 */
public final class LedgerOptions
{
    @CommandLine.Option(names = "--accounts-max", defaultValue = "1000000",
        description = "Accounts held in memory, at most " + LedgerConfig.ACCOUNTS_MAX_LIMIT + " (default: ${DEFAULT-VALUE}).")
    int accountsMax;

    @CommandLine.Option(names = "--sub-balances-max", defaultValue = "2000000",
        description = "Sub-balances across all accounts, at least --accounts-max; 8 x --accounts-max + 2 x this at most " +
            LedgerConfig.ACCOUNT_CELLS_MAX + " (default: ${DEFAULT-VALUE}).")
    int subBalancesMax;

    @CommandLine.Option(names = "--keys-max", defaultValue = "2000000",
        description = "Idempotency keys kept, at most " + LedgerConfig.IDEMPOTENCY_KEYS_MAX_LIMIT + " (default: ${DEFAULT-VALUE}).")
    int keysMax;

    @CommandLine.Option(names = "--transfers-max", defaultValue = "1000000",
        description = "Transfers (and references) kept for reversal, at most " + LedgerConfig.TRANSFERS_MAX_LIMIT +
            " (default: ${DEFAULT-VALUE}).")
    int transfersMax;

    @CommandLine.Option(names = "--holds-max", defaultValue = "1000000",
        description = "Live holds, at most " + LedgerConfig.HOLDS_MAX_LIMIT + " (default: ${DEFAULT-VALUE}).")
    int holdsMax;

    @CommandLine.Option(names = "--key-retention-ms", defaultValue = "86400000",
        description = "How long an idempotency key and its stored reply are kept, in journaled time; also the reference and " +
            "reversal windows unless set apart; at most " + LedgerConfig.WINDOW_MS_LIMIT + " like them (default: ${DEFAULT-VALUE}).")
    long keyRetentionMs;

    @CommandLine.Option(names = "--reference-retention-ms",
        description = "How long a transfer reference stays unique (default: --key-retention-ms).")
    Long referenceRetentionMs;

    @CommandLine.Option(names = "--reversal-window-ms",
        description = "How long a transfer stays in memory for reversal and reads (default: --key-retention-ms).")
    Long reversalWindowMs;

    @CommandLine.Option(names = "--expiries-per-tick-max", defaultValue = "10000",
        description = "Expired holds, keys, references and transfers dropped per tick at most, so that cleanup never stalls " +
            "the business thread; at most " + LedgerConfig.EXPIRIES_PER_TICK_MAX_LIMIT + ", the event ids one tick can " +
            "give (default: ${DEFAULT-VALUE}).")
    int expiriesPerTickMax;

    /**
     * @return the validated ledger configuration.
     * @throws IllegalArgumentException naming the flag of the first invalid capacity.
     */
    public LedgerConfig toConfig()
    {
        // Named here by flag; LedgerConfig checks the same bounds again (and how the capacities relate).
        requireInRange("--accounts-max", accountsMax, LedgerConfig.ACCOUNTS_MAX_LIMIT);
        requireInRange("--sub-balances-max", subBalancesMax, LedgerConfig.ACCOUNT_CELLS_MAX / 2);
        requireInRange("--keys-max", keysMax, LedgerConfig.IDEMPOTENCY_KEYS_MAX_LIMIT);
        requireInRange("--transfers-max", transfersMax, LedgerConfig.TRANSFERS_MAX_LIMIT);   // below the references' limit
        requireInRange("--holds-max", holdsMax, LedgerConfig.HOLDS_MAX_LIMIT);
        requireInRange("--key-retention-ms", keyRetentionMs, LedgerConfig.WINDOW_MS_LIMIT);
        final long references = referenceRetentionMs == null ? keyRetentionMs : referenceRetentionMs;
        final long reversals = reversalWindowMs == null ? keyRetentionMs : reversalWindowMs;
        requireInRange("--reference-retention-ms", references, LedgerConfig.WINDOW_MS_LIMIT);
        requireInRange("--reversal-window-ms", reversals, LedgerConfig.WINDOW_MS_LIMIT);
        requireInRange("--expiries-per-tick-max", expiriesPerTickMax, LedgerConfig.EXPIRIES_PER_TICK_MAX_LIMIT);
        return new LedgerConfig(accountsMax, subBalancesMax, keysMax, transfersMax, transfersMax, holdsMax,
            keyRetentionMs, references, reversals, expiriesPerTickMax);
    }

    private static void requireInRange(final String flag, final long value, final long max)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException(flag + " must be > 0, was " + value);
        }
        if (value > max)
        {
            throw new IllegalArgumentException(flag + " must be <= " + max + ", was " + value);
        }
    }
}
