package dev.tally.ledger.account;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.batch.UndoLog;
import dev.tally.ledger.currency.CurrencyCode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What an atomic batch's undo log holds for the sub-balances an operation changes, and that it puts them back. */
class AccountsUndoTest
{
    private static final int SUBS = LedgerLimits.SUB_BALANCES_MAX;
    private static final int USD = CurrencyCode.pack("USD");

    private final UndoLog undo = new UndoLog(1_000);
    private final Accounts accounts = new Accounts(4, 4 + SUBS, undo);
    private final int hot = accounts.add(10, 1, USD, SUBS, true, 0);
    private final int merchant = accounts.add(11, 1, USD, 1, true, 0);
    private long journalIndex;

    @Test
    void shouldRecordEachSubBalanceOnceWhenACaptureReleasesThenDebitsAllOfAHotAccount()
    {
        // money in every sub-balance, all of it held: the capture's release and its debit each touch all 64
        for (int n = 0; n < 100_000 && !everySubHasPosted(); n++)
        {
            accounts.credit(hot, 1_000, ++journalIndex);
        }
        assertTrue(everySubHasPosted());
        final long total = accounts.availableTotal(hot);
        assertEquals(Accounts.Funds.OK, accounts.checkDraw(hot, total, true, ++journalIndex));
        accounts.draw(hot, total, true, journalIndex);
        final long[] before = balances();

        accounts.clearTouched();   // a new command: the capture, inside an atomic batch
        undo.begin();
        accounts.release(hot, total);
        accounts.draw(hot, total, false, ++journalIndex);
        accounts.credit(merchant, total, journalIndex);

        assertEquals(SUBS + 1, undo.size(), "one record per sub-balance changed, not one per change");
        for (int i = undo.size() - 1; i >= 0; i--)
        {
            assertEquals(UndoLog.SUB_BALANCE, undo.kind(i));
            accounts.restoreSub((int)undo.operand(i, 0), undo.operand(i, 1), undo.operand(i, 2));
        }
        undo.end();
        assertEquals(java.util.Arrays.toString(before), java.util.Arrays.toString(balances()), "the rollback puts back every value");
    }

    private boolean everySubHasPosted()
    {
        for (int i = 0; i < SUBS; i++)
        {
            if (accounts.subPosted(hot, i) == 0)
            {
                return false;
            }
        }
        return true;
    }

    /** Posted and held of every sub-balance of both accounts. */
    private long[] balances()
    {
        final long[] values = new long[2 * SUBS + 2];
        for (int i = 0; i < SUBS; i++)
        {
            values[2 * i] = accounts.subPosted(hot, i);
            values[2 * i + 1] = accounts.subHeld(hot, i);
        }
        values[2 * SUBS] = accounts.subPosted(merchant, 0);
        values[2 * SUBS + 1] = accounts.subHeld(merchant, 0);
        return values;
    }
}
