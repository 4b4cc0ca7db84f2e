package dev.tally.perf.load;

import java.util.Locale;

/**
 * What the load generator sends. Every scenario moves {@link AccountLayout#AMOUNT_MINOR} per transfer
 * and uses a fresh, run-unique idempotency key per transfer unless it says otherwise.
 */
public enum Scenario
{
    /** One transfer per request between two distinct customer accounts drawn uniformly. */
    UNIFORM("uniform", 1_000_000),
    /** One transfer per request from a random customer into one hot merchant account (16 sub-balances by default). */
    HOT_CREDIT("hotCredit", 100_000),
    /** One transfer per request out of one hot account into a random customer. */
    HOT_DEBIT("hotDebit", 100_000),
    /**
     * One transfer per request from the funding account into a random customer; half of the requests
     * repeat an earlier, already acknowledged request byte for byte (same key, same payload) and must be
     * answered as a replay without moving money.
     */
    RETRIES("retries", 100_000),
    /**
     * {@code uniform}, where 1 % of the requests repeat an acknowledged request byte for byte from at least
     * {@value RequestSource#COLD_DISTANCE} acknowledgements earlier (on the same client thread): against a server whose
     * key table is smaller than that (e.g. {@code bench --keys-max 100000 --retention-ms 86400000}), memory has let
     * those keys go and the cold index answers them. Each must be a replay.
     */
    COLD_RETRIES("coldRetries", 1_000_000),
    /** {@code POST /v1/batch} with B uniform transfers per request, non-atomic. */
    BATCH("batch", 1_000_000);

    private final String cliName;
    private final int accountsDefault;

    Scenario(final String cliName, final int accountsDefault)
    {
        this.cliName = cliName;
        this.accountsDefault = accountsDefault;
    }

    /** @return the name on the command line and in the RESULT line. */
    public String cliName()
    {
        return cliName;
    }

    /** @return accounts created when {@code --accounts} is not given (funding and hot accounts included). */
    public int accountsDefault()
    {
        return accountsDefault;
    }

    /** @return true when customers are debited, so setup must fund them. */
    boolean fundsCustomers()
    {
        return this == UNIFORM || this == HOT_CREDIT || this == BATCH || this == COLD_RETRIES;
    }

    /** @return true when the scenario has a hot account besides the funding account. */
    boolean hasHotAccount()
    {
        return this == HOT_CREDIT || this == HOT_DEBIT;
    }

    /**
     * @param name a command-line name, case-insensitive ({@code hotCredit}, {@code hotcredit}, {@code HOT_CREDIT}).
     * @return the scenario.
     */
    public static Scenario parse(final String name)
    {
        final String wanted = name.trim().replace("_", "").toLowerCase(Locale.ROOT);
        for (final Scenario scenario : values())
        {
            if (scenario.cliName.toLowerCase(Locale.ROOT).equals(wanted))
            {
                return scenario;
            }
        }
        throw new IllegalArgumentException("unknown scenario '" + name + "': uniform, hotCredit, hotDebit, retries, coldRetries or batch");
    }
}
