package dev.tally.ledger;

import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Concurrent intents on one account never overdraw it: the single writer serialises them. */
class LedgerFundsTest
{
    private static final long FUNDING = 1;
    private static final long ALICE = 2;
    private static final long BOB = 3;
    private static final long OVERDRAWN = 4;

    private final LedgerDriver d = new LedgerDriver();
    private final Commands cmd = d.commands;

    @BeforeEach
    void openAccounts()
    {
        d.apply(cmd.createFundingAccount("open-funding", FUNDING));
        d.apply(cmd.createAccount("open-alice", ALICE));
        d.apply(cmd.createAccount("open-bob", BOB));
    }

    @Test
    void shouldApplyExactlyTwoOfFourTransfersOfThousandOnBalanceOfTwoThousand()
    {
        d.apply(cmd.transfer("fund", FUNDING, ALICE, 2_000));

        final Map<ResultCode, Integer> outcomes = new EnumMap<>(ResultCode.class);
        for (int i = 0; i < 4; i++)
        {
            outcomes.merge(d.apply(cmd.transfer("pay-" + i, ALICE, BOB, 1_000)).code, 1, Integer::sum);
        }

        assertEquals(Map.of(ResultCode.OK, 2, ResultCode.INSUFFICIENT_FUNDS, 2), outcomes);
        assertEquals(0, d.posted(ALICE));
        assertEquals(2_000, d.posted(BOB));
    }

    @Test
    void shouldApplyExactlyTenOfFiftyDebitsOfOneOnBalanceOfTen()
    {
        d.apply(cmd.transfer("fund", FUNDING, ALICE, 10));

        final Map<ResultCode, Integer> outcomes = new EnumMap<>(ResultCode.class);
        for (int i = 0; i < 50; i++)
        {
            outcomes.merge(d.apply(cmd.transfer("debit-" + i, ALICE, BOB, 1)).code, 1, Integer::sum);
        }

        assertEquals(Map.of(ResultCode.OK, 10, ResultCode.INSUFFICIENT_FUNDS, 40), outcomes);
        assertEquals(0, d.posted(ALICE));
        assertEquals(10, d.posted(BOB));
    }

    @Test
    void shouldRejectTransferWhenDebitExceedsAvailable()
    {
        d.apply(cmd.transfer("fund", FUNDING, ALICE, 500));

        assertEquals(ResultCode.INSUFFICIENT_FUNDS, d.apply(cmd.transfer("too-much", ALICE, BOB, 501)).code);
        assertEquals(ResultCode.OK, d.apply(cmd.transfer("all-of-it", ALICE, BOB, 500)).code);
        assertEquals(0, d.available(ALICE));
    }

    @Test
    void shouldLetUnconstrainedFundingAccountGoNegative()
    {
        assertEquals(ResultCode.OK, d.apply(cmd.transfer("fund", FUNDING, ALICE, 1_000_000)).code);

        assertEquals(-1_000_000, d.posted(FUNDING));
    }

    @Test
    void shouldAllowOverdraftDownToItsLimitAndNoFurther()
    {
        d.apply(cmd.createAccount("open-overdrawn", OVERDRAWN, Commands.USD, 1, true, 500));

        assertEquals(ResultCode.OK, d.apply(cmd.transfer("down-to-limit", OVERDRAWN, BOB, 500)).code);
        assertEquals(ResultCode.INSUFFICIENT_FUNDS, d.apply(cmd.transfer("one-more", OVERDRAWN, BOB, 1)).code);
        assertEquals(ResultCode.INSUFFICIENT_FUNDS, d.apply(cmd.hold("hold-one", OVERDRAWN, 1, 1_000)).code);
        assertEquals(-500, d.posted(OVERDRAWN));
    }

    @Test
    void shouldRejectHugeDebitFromOverdrawnAccountInsteadOfWrappingAround()
    {
        final long limit = 1L << 62;
        d.apply(cmd.createAccount("open-overdrawn", OVERDRAWN, Commands.USD, 1, true, limit));
        assertEquals(ResultCode.OK, d.apply(cmd.transfer("to-the-limit", OVERDRAWN, BOB, limit)).code);

        // available - amount = -2^62 - (2^63 - 1) does not fit in a long: it must not wrap to a positive number
        final Result huge = d.apply(cmd.transfer("huge", OVERDRAWN, ALICE, Long.MAX_VALUE));

        assertEquals(ResultCode.INSUFFICIENT_FUNDS, huge.code);
        assertEquals(-limit, d.posted(OVERDRAWN));
        assertEquals(0, d.posted(ALICE));
    }

    @Test
    void shouldRejectHoldThatWouldOverflowHeldOfOverdraftAccount()
    {
        final long limit = 1L << 62;
        d.apply(cmd.createAccount("open-overdrawn", OVERDRAWN, Commands.USD, 1, true, limit));
        d.apply(cmd.transfer("fund", FUNDING, OVERDRAWN, Long.MAX_VALUE - 10));
        assertEquals(ResultCode.OK, d.apply(cmd.hold("hold-all", OVERDRAWN, Long.MAX_VALUE - 10, 1_000)).code);

        // within the overdraft, but held would pass 2^63 - 1
        final Result overflow = d.apply(cmd.hold("hold-more", OVERDRAWN, limit, 1_000));

        assertEquals(ResultCode.AMOUNT_OVERFLOW, overflow.code, "a rejection, not a halted ledger");
        assertEquals(Long.MAX_VALUE - 10, d.held(OVERDRAWN));
    }

    @Test
    void shouldRejectHoldOrDebitThatWouldPushAvailableOfUnconstrainedAccountBelowTheLongRange()
    {
        // FUNDING (unconstrained) is at posted -(2^63 - 11): 11 more of holds or debits take available to Long.MIN_VALUE
        d.apply(cmd.transfer("fund", FUNDING, ALICE, Long.MAX_VALUE - 10));

        final Result tooMuch = d.apply(cmd.hold("hold-12", FUNDING, 12, 1_000));

        assertEquals(ResultCode.AMOUNT_OVERFLOW, tooMuch.code, "posted - held would wrap to a huge positive available");
        assertEquals(0, d.held(FUNDING));
        assertEquals(ResultCode.OK, d.apply(cmd.hold("hold-10", FUNDING, 10, 1_000)).code);
        assertEquals(Long.MIN_VALUE + 1, d.available(FUNDING));
        assertEquals(ResultCode.AMOUNT_OVERFLOW, d.apply(cmd.transfer("debit-2", FUNDING, BOB, 2)).code,
            "a debit lowers available as a hold does");
        assertEquals(ResultCode.OK, d.apply(cmd.transfer("debit-1", FUNDING, BOB, 1)).code);
        assertEquals(Long.MIN_VALUE, d.available(FUNDING));
        assertEquals(-(Long.MAX_VALUE - 9), d.posted(FUNDING));
    }

    @Test
    void shouldKeepAvailableOfUnconstrainedHotAccountInTheLongRangeInTotal()
    {
        d.apply(cmd.createAccount("open-hot-funding", OVERDRAWN, Commands.USD, 4, false, 0));
        // spread posted over the sub-balances so that no single one is near the bound, only their sum
        for (int i = 0; i < 4; i++)
        {
            assertEquals(ResultCode.OK, d.apply(cmd.transfer("out-" + i, OVERDRAWN, ALICE, Long.MAX_VALUE / 4)).code);
        }
        final long available = d.available(OVERDRAWN);
        final long room = available - Long.MIN_VALUE;

        assertEquals(ResultCode.AMOUNT_OVERFLOW, d.apply(cmd.hold("hold-over", OVERDRAWN, room + 1, 1_000)).code);
        assertEquals(ResultCode.OK, d.apply(cmd.hold("hold-to-bound", OVERDRAWN, room, 1_000)).code);
        assertEquals(Long.MIN_VALUE, d.available(OVERDRAWN));
    }

    @Test
    void shouldRejectTransferToTheSameAccount()
    {
        d.apply(cmd.transfer("fund", FUNDING, ALICE, 100));

        assertEquals(ResultCode.SAME_ACCOUNT, d.apply(cmd.transfer("self", ALICE, ALICE, 10)).code);
    }

    @Test
    void shouldRejectTransferInAnotherCurrency()
    {
        d.apply(cmd.createAccount("open-euro", 5, Commands.EUR, 1, true, 0));
        d.apply(cmd.transfer("fund", FUNDING, ALICE, 100));

        assertEquals(ResultCode.CURRENCY_MISMATCH, d.apply(cmd.transfer("usd-to-eur", ALICE, 5, 10)).code);
        assertEquals(ResultCode.CURRENCY_MISMATCH, d.apply(cmd.transfer("eur-amount", ALICE, BOB, 10, Commands.EUR, null)).code);
        assertEquals(100, d.posted(ALICE));
    }

    @Test
    void shouldNotLetAnotherTenantSeeOrMoveTheAccounts()
    {
        d.apply(cmd.transfer("fund", FUNDING, ALICE, 100));
        cmd.tenant(2);

        assertEquals(ResultCode.ACCOUNT_NOT_FOUND, d.apply(cmd.transfer("steal", ALICE, BOB, 10)).code);
        assertEquals(ResultCode.ACCOUNT_NOT_FOUND, d.apply(cmd.hold("hold", ALICE, 10, 1_000)).code);
        assertEquals(100, d.posted(ALICE));
    }

    @Test
    void shouldGiveEachTenantItsOwnAccountWhenTwoTenantsChooseTheSameId()
    {
        d.apply(cmd.transfer("fund", FUNDING, ALICE, 100));
        cmd.tenant(2);
        assertEquals(ResultCode.OK, d.apply(cmd.createAccount("t2-funding", FUNDING, Commands.USD, 1, false, 0)).code);
        assertEquals(ResultCode.OK, d.apply(cmd.createAccount("t2-alice", ALICE)).code);
        assertEquals(ResultCode.OK, d.apply(cmd.transfer("t2-fund", FUNDING, ALICE, 7)).code);

        final dev.tally.ledger.account.Accounts accounts = d.ledger.accounts();
        assertEquals(100, accounts.postedTotal(accounts.slotOf(ALICE, 1)), "tenant 1's account is untouched");
        assertEquals(7, accounts.postedTotal(accounts.slotOf(ALICE, 2)), "tenant 2's account is its own");
        assertEquals(ResultCode.ACCOUNT_EXISTS, d.apply(cmd.createAccount("t2-alice-again", ALICE)).code);
    }

    @Test
    void shouldRejectSecondAccountWithTheSameIdAndUnknownCurrency()
    {
        assertEquals(ResultCode.ACCOUNT_EXISTS, d.apply(cmd.createAccount("again", ALICE)).code);
        assertEquals(ResultCode.INVALID_COMMAND,
            d.apply(cmd.createAccount("xxx", 9, dev.tally.ledger.currency.CurrencyCode.pack("XXX"), 1, true, 0)).code);
        assertEquals(ResultCode.INVALID_COMMAND, d.apply(cmd.createAccount("unconstrained-overdraft", 9, Commands.USD, 1, false, 5)).code);
        assertEquals(ResultCode.INVALID_COMMAND, d.apply(cmd.createAccount("too-hot", 9, Commands.USD, 65, true, 0)).code);
        assertTrue(!d.exists(9));
    }
}
