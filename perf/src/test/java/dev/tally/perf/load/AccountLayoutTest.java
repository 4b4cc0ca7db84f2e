package dev.tally.perf.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AccountLayoutTest
{
    @Test
    void shouldPickTwoDistinctCustomersForEveryUniformTransfer()
    {
        final AccountLayout layout = new AccountLayout(spec(Scenario.UNIFORM, 4), 7);
        for (long keySeq = 0; keySeq < 10_000; keySeq++)
        {
            final int debit = layout.debitIndex(keySeq, 0);
            final int credit = layout.creditIndex(keySeq, 0);
            assertNotEquals(debit, credit);
            assertTrue(debit >= 1 && debit <= layout.customers() && credit >= 1 && credit <= layout.customers());
        }
    }

    @Test
    void shouldRebuildTheSameTransferFromItsSequenceNumber()
    {
        final AccountLayout first = new AccountLayout(spec(Scenario.BATCH, 1_000), 7);
        final AccountLayout again = new AccountLayout(spec(Scenario.BATCH, 1_000), 7);

        assertEquals(first.debitIndex(123, 45), again.debitIndex(123, 45));
        assertEquals(first.creditIndex(123, 45), again.creditIndex(123, 45));
        assertEquals(first.id(0), again.id(0));
    }

    @Test
    void shouldRouteHotScenariosThroughTheHotAccount()
    {
        final AccountLayout credit = new AccountLayout(spec(Scenario.HOT_CREDIT, 100), 1);
        final AccountLayout debit = new AccountLayout(spec(Scenario.HOT_DEBIT, 100), 1);

        assertEquals(99, credit.creditIndex(5, 0));
        assertEquals(99, debit.debitIndex(5, 0));
        assertTrue(debit.constrained(99));
        assertFalse(debit.constrained(AccountLayout.FUNDING_INDEX));
        assertEquals(AccountLayout.HOT_FUND_MINOR, debit.setupPostedMinor(99));
        assertEquals(-AccountLayout.HOT_FUND_MINOR, debit.setupPostedMinor(AccountLayout.FUNDING_INDEX));
    }

    @Test
    void shouldConvertBetweenMinorUnitsAndDecimalStrings()
    {
        assertEquals("1.00", AccountLayout.major(100));
        assertEquals("-0.05", AccountLayout.major(-5));
        assertEquals(-1100, AccountLayout.minor("-11.00"));
        assertEquals(5, AccountLayout.minor("0.05"));
    }

    private static LoadSpec spec(final Scenario scenario, final int accounts)
    {
        return new LoadSpec(scenario, Mode.CLOSED, 1, 1, 1, 1, 0, accounts, 100, 16, true, 10, 1, 1, 42);
    }
}
