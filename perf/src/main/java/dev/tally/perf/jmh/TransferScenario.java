package dev.tally.perf.jmh;

/**
 * The transfer streams {@link LedgerTransferBenchmark} measures, by their {@code @Param} name.
 */
enum TransferScenario
{
    /** Debit and credit are two distinct accounts drawn uniformly; every key is new. */
    UNIFORM("uniform", false, 0),
    /** Every transfer credits one merchant account (16 sub-balances by default); debits are uniform. */
    HOT_CREDIT("hotCredit", true, 0),
    /** Like {@link #UNIFORM}, but half the requests are retries of an earlier key with the same fingerprint. */
    DUPLICATES_50("duplicates50", false, 50);

    private final String paramName;
    private final boolean hotCredit;
    private final int duplicatePercent;

    TransferScenario(final String paramName, final boolean hotCredit, final int duplicatePercent)
    {
        this.paramName = paramName;
        this.hotCredit = hotCredit;
        this.duplicatePercent = duplicatePercent;
    }

    /** @return true when every transfer credits the one hot account. */
    boolean hotCredit()
    {
        return hotCredit;
    }

    /** @return the share of requests, in percent, that reuse an earlier key. */
    int duplicatePercent()
    {
        return duplicatePercent;
    }

    /** @return the scenario named {@code paramName} (the JMH {@code @Param} value). */
    static TransferScenario fromParam(final String paramName)
    {
        for (final TransferScenario scenario : values())
        {
            if (scenario.paramName.equals(paramName))
            {
                return scenario;
            }
        }
        throw new IllegalArgumentException("unknown scenario " + paramName);
    }
}
