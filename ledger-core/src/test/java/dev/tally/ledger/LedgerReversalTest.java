package dev.tally.ledger;

import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A reversal is a new transfer, full or partial, never of more than what is left. */
class LedgerReversalTest
{
    private static final long FUNDING = 1;
    private static final long ALICE = 2;
    private static final long BOB = 3;
    private static final long REVERSAL_WINDOW_MS = 10_000;

    private final LedgerDriver d = new LedgerDriver(LedgerDriver.CONFIG.withRetention(LedgerConfig.DAY_MS, LedgerConfig.DAY_MS, REVERSAL_WINDOW_MS));
    private final Commands cmd = d.commands;
    private Result payment;

    @BeforeEach
    void payBob()
    {
        d.apply(cmd.createFundingAccount("open-funding", FUNDING));
        d.apply(cmd.createAccount("open-alice", ALICE));
        d.apply(cmd.createAccount("open-bob", BOB));
        d.apply(cmd.transfer("fund-alice", FUNDING, ALICE, 5_000));
        payment = d.apply(cmd.transfer("pay", ALICE, BOB, 1_000));
    }

    @Test
    void shouldReverseWholeTransferWhenAmountIsZero()
    {
        final Result reversal = d.apply(cmd.reverse("refund", payment, 0));

        assertEquals(ResultCode.OK, reversal.code);
        assertEquals(1_000, reversal.amountMinor);
        assertEquals(BOB, reversal.accountA, "the reversal debits the account the transfer credited");
        assertEquals(ALICE, reversal.accountB);
        assertEquals(payment.originIndex, reversal.extra);
        assertEquals(5_000, d.posted(ALICE));
        assertEquals(0, d.posted(BOB));
        assertEquals(2, d.entryCount(), "new entries: the original ones are never changed");
        assertEquals(ResultCode.REVERSAL_EXCEEDS_REMAINING, d.apply(cmd.reverse("refund-again", payment, 0)).code);
    }

    @Test
    void shouldRefuseAnAmountWithoutCurrencyThatHasMoreDecimalsThanTheTransfersCurrency()
    {
        // "2.505" in thousandths of a major unit, no currency: USD has two decimals, so it names no whole cent
        final Result tooPrecise = d.apply(Commands.inCurrency(cmd.reverse("refund-precise", payment, 2_505), 0));
        assertEquals(ResultCode.INVALID_AMOUNT, tooPrecise.code);
        assertEquals(1_000, d.posted(BOB), "nothing reversed");
        final Result exact = d.apply(Commands.inCurrency(cmd.reverse("refund-exact", payment, 2_500), 0));
        assertEquals(ResultCode.OK, exact.code);
        assertEquals(250, exact.amountMinor, "2.50 USD = 250 cents");
    }

    @Test
    void shouldReversePartiallyAndRejectOverReversal()
    {
        assertEquals(ResultCode.OK, d.apply(cmd.reverse("refund-300", payment, 300)).code);
        assertEquals(ResultCode.OK, d.apply(cmd.reverse("refund-600", payment, 600)).code);

        final Result over = d.apply(cmd.reverse("refund-200", payment, 200));

        assertEquals(ResultCode.REVERSAL_EXCEEDS_REMAINING, over.code);
        assertEquals(100, d.posted(BOB));
        final Result rest = d.apply(cmd.reverse("refund-rest", payment, 0));
        assertEquals(ResultCode.OK, rest.code);
        assertEquals(100, rest.amountMinor, "zero means all that is left");
        assertEquals(0, d.posted(BOB));
        assertEquals(1_000, d.ledger.transfers().reversed(d.ledger.transfers().find(payment.originIndex)));
    }

    @Test
    void shouldNotReverseAReversal()
    {
        final Result reversal = d.apply(cmd.reverse("refund", payment, 400));

        assertEquals(ResultCode.TRANSFER_NOT_FOUND, d.apply(cmd.reverse("refund-the-refund", reversal, 0)).code);
    }

    @Test
    void shouldRejectReversalWhenTheCreditedAccountSpentTheMoney()
    {
        d.apply(cmd.transfer("bob-spends", BOB, ALICE, 900));

        assertEquals(ResultCode.INSUFFICIENT_FUNDS, d.apply(cmd.reverse("refund", payment, 0)).code);
        assertEquals(ResultCode.OK, d.apply(cmd.reverse("refund-100", payment, 100)).code);
        assertEquals(0, d.posted(BOB));
    }

    @Test
    void shouldNotFindTransferOfAnotherTenant()
    {
        cmd.tenant(2);

        assertEquals(ResultCode.TRANSFER_NOT_FOUND, d.apply(cmd.reverse("refund", payment, 0)).code);
        assertEquals(1_000, d.posted(BOB));
    }

    @Test
    void shouldNotFindTransferOutsideTheReversalWindow()
    {
        d.apply(cmd.tick(REVERSAL_WINDOW_MS));

        assertEquals(ResultCode.TRANSFER_NOT_FOUND, d.apply(cmd.reverse("refund", payment, 0)).code);
    }

    @Test
    void shouldNotFindTransferByAnIdWithTheWrongTime()
    {
        final long wrongHi = Commands.transferIdHi(payment) + (1L << 16);

        assertEquals(ResultCode.TRANSFER_NOT_FOUND, d.apply(cmd.reverse("refund", wrongHi, Commands.transferIdLo(payment), 0)).code);
    }

    @Test
    void shouldRejectReversalAmountStatedInAnotherCurrency()
    {
        assertEquals(ResultCode.CURRENCY_MISMATCH, d.apply(Commands.inCurrency(cmd.reverse("refund-eur", payment, 100), Commands.EUR)).code);
        assertEquals(ResultCode.OK, d.apply(Commands.inCurrency(cmd.reverse("refund-usd", payment, 100), Commands.USD)).code);
        assertEquals(900, d.posted(BOB));
    }

    @Test
    void shouldReverseWhatAHoldCaptured()
    {
        final Result hold = d.apply(cmd.hold("hold", ALICE, 800, 60_000));
        final Result capture = d.apply(cmd.capture("capture", hold, BOB, 500));

        assertEquals(ResultCode.OK, d.apply(cmd.reverse("refund-capture", capture, 0)).code);
        assertEquals(1_000, d.posted(BOB));
        assertEquals(4_000, d.posted(ALICE));
    }
}
