package dev.tally.gateway.api;

/**
 * Every member a request body may carry, across all operations. Each has one JSON type, so a body can be
 * parsed before its operation is known (a batch operation's {@code "op"} may follow its {@code "body"});
 * which members an operation allows and requires is {@link Operation}'s business.
 */
enum BodyField
{
    // in the order problems name them when several are missing or not allowed
    ID("id"),
    ACCOUNT_ID("accountId"),
    DEBIT_ACCOUNT_ID("debitAccountId"),
    CREDIT_ACCOUNT_ID("creditAccountId"),
    AMOUNT("amount"),
    CURRENCY("currency"),
    REFERENCE("reference"),
    METADATA("metadata"),
    EXPIRES_IN_MS("expiresInMs"),
    SUB_BALANCES("subBalances"),
    DEBITS_MUST_NOT_EXCEED_CREDITS("debitsMustNotExceedCredits"),
    OVERDRAFT_LIMIT("overdraftLimit"),
    /** A freeze's scope: true freezes credits as well as debits. */
    CREDITS("credits"),
    /** An account's low-balance threshold at its creation, in the account's currency. */
    LOW_BALANCE_ALERT("lowBalanceAlert"),
    /** The threshold of {@code PUT /v1/accounts/{id}/low-balance-alert}. */
    THRESHOLD("threshold");

    private static final BodyField[] VALUES = values();

    private final String jsonName;
    private final int bit;

    BodyField(final String jsonName)
    {
        this.jsonName = jsonName;
        this.bit = 1 << ordinal();
    }

    String jsonName()
    {
        return jsonName;
    }

    int bit()
    {
        return bit;
    }

    /** @return the field with this JSON member name, or {@code null}. */
    static BodyField ofJsonName(final String name)
    {
        for (final BodyField field : VALUES)
        {
            if (field.jsonName.equals(name))
            {
                return field;
            }
        }
        return null;
    }

    /** @return the lowest field whose bit is set in {@code mask}, or {@code null}. */
    static BodyField first(final int mask)
    {
        return mask == 0 ? null : VALUES[Integer.numberOfTrailingZeros(mask)];
    }

    static int mask(final BodyField... fields)
    {
        int mask = 0;
        for (final BodyField field : fields)
        {
            mask |= field.bit;
        }
        return mask;
    }
}
