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
        description = "How long an idempotency key and its stored reply are kept, in journaled time; also the reference and " +
            "reversal windows unless set apart (default: ${DEFAULT-VALUE}).")
    long keyRetentionMs;

    @CommandLine.Option(names = "--reference-retention-ms",
        description = "How long a transfer reference stays unique (default: --key-retention-ms).")
    Long referenceRetentionMs;

    @CommandLine.Option(names = "--reversal-window-ms",
        description = "How long a transfer stays in memory for reversal and reads (default: --key-retention-ms).")
    Long reversalWindowMs;

    @CommandLine.Option(names = "--expiries-per-tick-max", defaultValue = "10000",
        description = "Expired keys, references and transfers dropped per tick at most, so that cleanup never stalls the " +
            "business thread (default: ${DEFAULT-VALUE}).")
    int expiriesPerTickMax;

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
        final long references = referenceRetentionMs == null ? keyRetentionMs : referenceRetentionMs;
        final long reversals = reversalWindowMs == null ? keyRetentionMs : reversalWindowMs;
        requirePositive("--reference-retention-ms", references);
        requirePositive("--reversal-window-ms", reversals);
        requirePositive("--expiries-per-tick-max", expiriesPerTickMax);
        return new LedgerConfig(accountsMax, subBalancesMax, keysMax, transfersMax, transfersMax, holdsMax,
            keyRetentionMs, references, reversals, expiriesPerTickMax);
    }

    private static void requirePositive(final String flag, final long value)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException(flag + " must be > 0, was " + value);
        }
    }
}
