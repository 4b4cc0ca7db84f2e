package dev.tally.ledger;

import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Hot accounts: credits spread over sub-balances; debits and holds draw from several, never below zero. */
class LedgerHotAccountTest
{
    private static final long FUNDING = 1;
    private static final long HOT = 2;
    private static final long BOB = 3;
    private static final int SUBS = 16;

    private final LedgerDriver d = new LedgerDriver();
    private final Commands cmd = d.commands;

    @BeforeEach
    void openAccounts()
    {
        d.apply(cmd.createFundingAccount("open-funding", FUNDING));
        assertEquals(ResultCode.OK, d.apply(cmd.createHotAccount("open-hot", HOT, SUBS)).code);
        d.apply(cmd.createAccount("open-bob", BOB));
    }

    /** 32 credits of 100. */
    private void creditHot()
    {
        for (int i = 0; i < 32; i++)
        {
            assertEquals(ResultCode.OK, d.apply(cmd.transfer("credit-" + i, FUNDING, HOT, 100)).code);
        }
    }

    private int subsWithPosted()
    {
        int count = 0;
        for (int i = 0; i < SUBS; i++)
        {
            count += d.subPosted(HOT, i) > 0 ? 1 : 0;
        }
        return count;
    }

    private void assertNoSubBalanceBelowZero()
    {
        for (int i = 0; i < SUBS; i++)
        {
            assertTrue(d.subHeld(HOT, i) >= 0, "held of sub-balance " + i);
            assertTrue(d.subPosted(HOT, i) - d.subHeld(HOT, i) >= 0, "available of sub-balance " + i);
        }
    }

    @Test
    void shouldSpreadCreditsOverSeveralSubBalances()
    {
        creditHot();

        assertEquals(3_200, d.posted(HOT), "the balance is the sum of the sub-balances");
        assertTrue(subsWithPosted() >= SUBS / 2, "credits landed on " + subsWithPosted() + " of " + SUBS + " sub-balances");
    }

    @Test
    void shouldDrawDebitFromSeveralSubBalancesWithoutTakingAnyBelowZero()
    {
        creditHot();
        final long[] before = new long[SUBS];
        long largest = 0;
        for (int i = 0; i < SUBS; i++)
        {
            before[i] = d.subPosted(HOT, i);
            largest = Math.max(largest, before[i]);
        }
        assertTrue(largest < 3_000, "the debit below needs more than one sub-balance");

        assertEquals(ResultCode.OK, d.apply(cmd.transfer("big-debit", HOT, BOB, 3_000)).code);

        int drawn = 0;
        for (int i = 0; i < SUBS; i++)
        {
            drawn += d.subPosted(HOT, i) < before[i] ? 1 : 0;
        }
        assertTrue(drawn > 1, "drawn from " + drawn + " sub-balances");
        assertNoSubBalanceBelowZero();
        assertEquals(200, d.posted(HOT));
        assertEquals(ResultCode.INSUFFICIENT_FUNDS, d.apply(cmd.transfer("one-too-many", HOT, BOB, 201)).code);
        assertEquals(ResultCode.OK, d.apply(cmd.transfer("the-rest", HOT, BOB, 200)).code);
        for (int i = 0; i < SUBS; i++)
        {
            assertEquals(0, d.subPosted(HOT, i));
        }
    }

    @Test
    void shouldHoldAcrossSubBalancesAndCaptureIt()
    {
        creditHot();

        final Result hold = d.apply(cmd.hold("hold", HOT, 3_100, 60_000));
        assertEquals(ResultCode.OK, hold.code);
        assertEquals(3_100, d.held(HOT));
        assertNoSubBalanceBelowZero();
        assertEquals(ResultCode.INSUFFICIENT_FUNDS, d.apply(cmd.transfer("spend-held", HOT, BOB, 101)).code);

        assertEquals(ResultCode.OK, d.apply(cmd.capture("capture", hold, BOB, 3_000)).code);

        assertNoSubBalanceBelowZero();
        assertEquals(0, d.held(HOT));
        assertEquals(200, d.posted(HOT));
        assertEquals(3_000, d.posted(BOB));
    }

    @Test
    void shouldRejectCreditThatWouldTakeTheAccountPastTheLargestBalance()
    {
        d.apply(cmd.createFundingAccount("open-second-funding", 5));
        assertEquals(ResultCode.OK, d.apply(cmd.transfer("almost-full", FUNDING, HOT, Long.MAX_VALUE - 10)).code);

        // Each credit lands on a sub-balance chosen by its journal index: most land on one that is empty.
        for (int i = 0; i < 8; i++)
        {
            assertEquals(ResultCode.AMOUNT_OVERFLOW, d.apply(cmd.transfer("overflow-" + i, 5, HOT, 100)).code);
        }
        assertEquals(Long.MAX_VALUE - 10, d.posted(HOT));
        assertEquals(ResultCode.OK, d.apply(cmd.transfer("fits", 5, HOT, 10)).code);
        assertEquals(Long.MAX_VALUE, d.posted(HOT));
    }
}
