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
    @CommandLine.Option(names = "--accounts-max", defaultValue = "1000000", description = "Accounts held in memory (default: ${DEFAULT-VALUE}).")
    int accountsMax;

    @CommandLine.Option(names = "--sub-balances-max", defaultValue = "2000000", description = "Sub-balances across all accounts (default: ${DEFAULT-VALUE}).")
    int subBalancesMax;

    @CommandLine.Option(names = "--keys-max", defaultValue = "2000000", description = "Idempotency keys kept (default: ${DEFAULT-VALUE}).")
    int keysMax;

    @CommandLine.Option(names = "--transfers-max", defaultValue = "1000000", description = "Transfers (and references) kept for reversal (default: ${DEFAULT-VALUE}).")
    int transfersMax;

    @CommandLine.Option(names = "--holds-max", defaultValue = "1000000", description = "Live holds (default: ${DEFAULT-VALUE}).")
    int holdsMax;

    @CommandLine.Option(names = "--key-retention-ms", defaultValue = "86400000",
        description = "Idempotency key, reference and reversal window in journaled time (default: ${DEFAULT-VALUE}).")
    long keyRetentionMs;

    /**
     * @return the validated ledger configuration.
     * @throws IllegalArgumentException naming the flag of the first invalid capacity.
     */
    public LedgerConfig toConfig()
    {
        // Named here by flag; LedgerConfig checks the same bounds again (and how the capacities relate).
        requirePositive("--accounts-max", accountsMax);
        requirePositive("--sub-balances-max", subBalancesMax);
        requirePositive("--keys-max", keysMax);
        requirePositive("--transfers-max", transfersMax);
        requirePositive("--holds-max", holdsMax);
        requirePositive("--key-retention-ms", keyRetentionMs);
        return new LedgerConfig(accountsMax, subBalancesMax, keysMax, transfersMax, transfersMax, holdsMax,
            keyRetentionMs, keyRetentionMs, keyRetentionMs, 10_000);
    }

    private static void requirePositive(final String flag, final long value)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException(flag + " must be > 0, was " + value);
        }
    }
}
