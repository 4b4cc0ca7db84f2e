package dev.tally.ledger.query;

import dev.tally.ledger.LedgerLimits;

/**
 * A copy of one account's state, filled on the business thread by {@link dev.tally.ledger.Ledger#readAccount}
 * and rendered elsewhere, or by {@link dev.tally.ledger.Ledger#forEachAccount} for tools. Reused: no allocation per read.
 */
public final class AccountView
{
    public boolean found;
    public long accountId;
    public long tenantId;
    public int currency;
    public int subBalances;
    public boolean debitsMustNotExceedCredits;
    public long overdraftLimitMinor;
    /** Lifecycle status bits ({@link dev.tally.ledger.account.Accounts.Status}): 0 while active. */
    public int status;
    /** The account has metadata, which memory does not keep: a read of it asks PostgreSQL. */
    public boolean hasMetadata;
    /**
     * The last journal index the ledger had applied when it answered {@code readAccount}: the read model holds the
     * account's metadata as of then (or newer) once its watermark reaches this index.
     */
    public long asOfJournalIndex;
    /** Low-balance alert state ({@link dev.tally.ledger.account.LowBalanceAlert}): 0 without a threshold. */
    public int lowBalanceAlertState;
    /** Low-balance threshold, minor units; 0 without one. */
    public long lowBalanceThresholdMinor;
    /** Journaled time of the account's creation, epoch nanoseconds; 0 when not known (see {@code Accounts.createdNs}). */
    public long createdNs;
    public final long[] postedMinor = new long[LedgerLimits.SUB_BALANCES_MAX];
    public final long[] heldMinor = new long[LedgerLimits.SUB_BALANCES_MAX];

    /** @return the sum of posted over sub-balances. */
    public long postedTotal()
    {
        long total = 0;
        for (int i = 0; i < subBalances; i++)
        {
            total += postedMinor[i];
        }
        return total;
    }

    /** @return the sum of held over sub-balances. */
    public long heldTotal()
    {
        long total = 0;
        for (int i = 0; i < subBalances; i++)
        {
            total += heldMinor[i];
        }
        return total;
    }

    /** @return the sum of available ({@code posted - held}) over sub-balances, saturating at {@code Long.MAX_VALUE}. */
    public long availableTotal()
    {
        long total = 0;
        for (int i = 0; i < subBalances; i++)
        {
            final long available = postedMinor[i] - heldMinor[i];
            total = total > 0 && available > Long.MAX_VALUE - total ? Long.MAX_VALUE : total + available;
        }
        return total;
    }

    /** Copies another view (so a reply renderer can own its copy). */
    public AccountView copyFrom(final AccountView other)
    {
        found = other.found;
        accountId = other.accountId;
        tenantId = other.tenantId;
        currency = other.currency;
        subBalances = other.subBalances;
        debitsMustNotExceedCredits = other.debitsMustNotExceedCredits;
        overdraftLimitMinor = other.overdraftLimitMinor;
        status = other.status;
        hasMetadata = other.hasMetadata;
        asOfJournalIndex = other.asOfJournalIndex;
        lowBalanceAlertState = other.lowBalanceAlertState;
        lowBalanceThresholdMinor = other.lowBalanceThresholdMinor;
        createdNs = other.createdNs;
        System.arraycopy(other.postedMinor, 0, postedMinor, 0, other.subBalances);
        System.arraycopy(other.heldMinor, 0, heldMinor, 0, other.subBalances);
        return this;
    }
}
