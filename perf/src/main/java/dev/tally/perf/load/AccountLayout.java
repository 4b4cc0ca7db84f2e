package dev.tally.perf.load;

/**
 * The accounts of one run and which of them each transfer touches, as pure functions of the run's seed
 * and the transfer's sequence number, so any request can be rebuilt byte for byte later (to retry it,
 * or to resolve an unknown outcome) without remembering it.
 *
 * <pre>
 *   index:   0          1 .. customers          customers + 1 (hot scenarios only)
 *   account: funding    customers (constrained)  hot account
 *   id:      baseId + index; baseId is unique per run, so runs never collide on one server
 * </pre>
 */
final class AccountLayout
{
    /** Every load transfer moves 1.00 (TRY, two minor digits). */
    static final long AMOUNT_MINOR = 100;
    /** What setup credits each customer that may be debited: 10,000,000.00, about ten million transfers' worth. */
    static final long CUSTOMER_FUND_MINOR = 1_000_000_000L;
    /** What setup credits a constrained hot debit account: 10,000,000,000,000.00. */
    static final long HOT_FUND_MINOR = 1_000_000_000_000_000L;
    /** Funding transfers that fill a constrained hot account (so several of its sub-balances hold money). */
    static final int HOT_FUND_PARTS = 64;
    static final String CURRENCY = "TRY";

    static final int FUNDING_INDEX = 0;

    private static final int ID_BITS = 27;

    private final Scenario scenario;
    private final int accounts;
    private final int customers;
    private final long baseId;
    private final long seed;
    private final boolean hotConstrained;

    /**
     * @param spec   the run.
     * @param runTag a run-unique number (30 bits used): it makes account ids and idempotency keys unique.
     */
    AccountLayout(final LoadSpec spec, final long runTag)
    {
        if (spec.accounts() >= 1 << ID_BITS)
        {
            throw new IllegalArgumentException("accounts must be below " + (1 << ID_BITS));
        }
        this.scenario = spec.scenario();
        this.accounts = spec.accounts();
        this.customers = accounts - 1 - (scenario.hasHotAccount() ? 1 : 0);
        this.baseId = ((runTag & 0x3FFF_FFFFL) + 1) << ID_BITS;
        this.seed = spec.seed();
        this.hotConstrained = scenario == Scenario.HOT_CREDIT || (scenario == Scenario.HOT_DEBIT && spec.hotDebitConstrained());
    }

    /** @return accounts of the run, funding and hot included. */
    int accounts()
    {
        return accounts;
    }

    int customers()
    {
        return customers;
    }

    /** @return the hot account's index, or -1 when the scenario has none. */
    int hotIndex()
    {
        return scenario.hasHotAccount() ? accounts - 1 : -1;
    }

    /** @return the account id of an index. */
    long id(final int index)
    {
        return baseId + index;
    }

    /** @return true when the account at this index must never go below zero available. */
    boolean constrained(final int index)
    {
        if (index == FUNDING_INDEX)
        {
            return false;
        }
        return index != hotIndex() || hotConstrained;
    }

    /** @return what setup puts on the account at this index (negative for the funding account). */
    long setupPostedMinor(final int index)
    {
        if (index == FUNDING_INDEX)
        {
            return -(fundedCustomers() * CUSTOMER_FUND_MINOR + hotFundMinor());
        }
        if (index == hotIndex())
        {
            return hotFundMinor();
        }
        return scenario.fundsCustomers() ? CUSTOMER_FUND_MINOR : 0;
    }

    /** @return customers setup funds (all or none). */
    long fundedCustomers()
    {
        return scenario.fundsCustomers() ? customers : 0;
    }

    /** @return what setup puts on the hot account (0 unless it is a constrained hot debit account). */
    long hotFundMinor()
    {
        return scenario == Scenario.HOT_DEBIT && hotConstrained ? HOT_FUND_MINOR : 0;
    }

    /** @return the debited account's index of transfer {@code op} of request {@code keySeq}. */
    int debitIndex(final long keySeq, final int op)
    {
        switch (scenario)
        {
            case HOT_DEBIT:
                return hotIndex();
            case RETRIES:
                return FUNDING_INDEX;
            case HOT_CREDIT:
            case UNIFORM:
            case BATCH:
            default:
                return 1 + (int)Long.remainderUnsigned(mix(keySeq, op, 0), customers);
        }
    }

    /** @return the credited account's index of transfer {@code op} of request {@code keySeq}; never the debited one. */
    int creditIndex(final long keySeq, final int op)
    {
        switch (scenario)
        {
            case HOT_CREDIT:
                return hotIndex();
            case HOT_DEBIT:
            case RETRIES:
                return 1 + (int)Long.remainderUnsigned(mix(keySeq, op, 1), customers);
            case UNIFORM:
            case BATCH:
            default:
                final int debit = debitIndex(keySeq, op);
                final int other = 1 + (int)Long.remainderUnsigned(mix(keySeq, op, 1), customers - 1);
                return other >= debit ? other + 1 : other;
        }
    }

    /** SplitMix64's finaliser over the seed, the request, the operation and a stream number. */
    long mix(final long keySeq, final int op, final int stream)
    {
        long z = seed + keySeq * 0x9E37_79B9_7F4A_7C15L + op * 0xBF58_476D_1CE4_E5B9L + stream * 0x94D0_49BB_1331_11EBL;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    /** @return minor units (two digits) as a decimal string in major units, e.g. 100 as {@code 1.00}. */
    static String major(final long minor)
    {
        final long abs = Math.abs(minor);
        final String text = (abs / 100) + "." + (abs % 100 < 10 ? "0" : "") + (abs % 100);
        return minor < 0 ? "-" + text : text;
    }

    /**
     * @param text a decimal string with exactly two minor digits, optionally negative ({@code -11.00}).
     * @return its value in minor units.
     */
    static long minor(final String text)
    {
        final int dot = text.indexOf('.');
        if (dot < 0 || dot != text.length() - 3)
        {
            throw new IllegalArgumentException("not an amount with two minor digits: " + text);
        }
        return Long.parseLong(text.substring(0, dot) + text.substring(dot + 1));
    }
}
