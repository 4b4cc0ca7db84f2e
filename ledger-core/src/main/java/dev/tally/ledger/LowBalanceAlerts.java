package dev.tally.ledger;

import dev.tally.ledger.account.Accounts;
import dev.tally.ledger.account.LowBalanceAlert;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.effect.EventType;

/**
 * Decides, after each command, whether an account's available balance crossed its low-balance threshold, and emits the
 * outbox event of a crossing ({@link LowBalanceAlert} draws the states).
 *
 * <p>The balance compared is the account's available total, {@code posted - held} over all its sub-balances, so a hold
 * counts as soon as it reserves. It is evaluated once per command, after the command, for each account whose alert
 * bits are set among the sub-balances the command changed: an account without a threshold costs one test of its record's
 * {@code SHAPE} word, which the walk over the touched sub-balances reads anyway. An account with one pays a sum over its
 * sub-balances (adjacent pairs: a 16-way hot account's are 4 cache lines, which its funds check has just summed, so
 * they are in cache). A running total kept beside each account would make that O(1), at the price of a write on every
 * first change of every account's sub-balance, thresholds or not: not worth it while a hot account has 64 sub-balances
 * at most.
 *
 * <p>Business thread only. Allocation-free; deterministic (the state is the ledger's, changed only by commands).
 */
final class LowBalanceAlerts
{
    private final Accounts accounts;
    private final Postings postings;

    LowBalanceAlerts(final LedgerState state, final Postings postings)
    {
        this.accounts = state.accounts;
        this.postings = postings;
    }

    /**
     * @return the state a threshold starts in for the account as it stands: {@link LowBalanceAlert#ARMED} when
     * available is at or above it, else {@link LowBalanceAlert#WAITING}.
     */
    int initialState(final int slot, final long thresholdMinor)
    {
        return accounts.availableTotal(slot) >= thresholdMinor ? LowBalanceAlert.ARMED : LowBalanceAlert.WAITING;
    }

    /**
     * Moves the alert of an account the command {@code c} changed, which has one, to the state its available balance
     * calls for, emitting {@link EventType#ACCOUNT_BALANCE_LOW} when it fires and {@link EventType#ACCOUNT_BALANCE_RECOVERED}
     * when a fired alert re-arms. Evaluating twice in a command changes nothing the second time.
     */
    void evaluate(final Command c, final int slot)
    {
        final int state = accounts.lowBalanceAlertState(slot);
        final long threshold = accounts.lowBalanceThreshold(slot);
        final long available = accounts.availableTotal(slot);
        if (state == LowBalanceAlert.ARMED)
        {
            if (available < threshold)
            {
                accounts.setLowBalanceAlert(slot, LowBalanceAlert.FIRED, threshold);
                postings.accountEvent(EventType.ACCOUNT_BALANCE_LOW, c, slot, available, threshold);
            }
        }
        else if (available >= threshold)
        {
            accounts.setLowBalanceAlert(slot, LowBalanceAlert.ARMED, threshold);
            if (state == LowBalanceAlert.FIRED)
            {
                postings.accountEvent(EventType.ACCOUNT_BALANCE_RECOVERED, c, slot, available, threshold);
            }
        }
    }

    /**
     * @return how many events evaluating the account after a tick may add: 1 when it has an alert (a release can only
     * re-arm it), else 0. A tick counts them while it expires holds, so that its events' ordinals stay within an id's
     * 14 bits; a ledger without thresholds expires exactly as many holds per tick as before they existed.
     */
    int eventsAfterRelease(final int slot)
    {
        return accounts.hasLowBalanceAlert(slot) ? 1 : 0;
    }
}
