package dev.tally.ledger;

import dev.tally.ledger.effect.EffectLog;
import dev.tally.ledger.effect.EventType;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Holds: reserve, capture all or part, void, expire on journaled time, and unknown holds that never expire. */
class LedgerHoldTest
{
    private static final long FUNDING = 1;
    private static final long ALICE = 2;
    private static final long MERCHANT = 3;
    private static final long TIMEOUT_MS = 1_000;

    private final LedgerDriver d = new LedgerDriver();
    private final Commands cmd = d.commands;

    @BeforeEach
    void openAccounts()
    {
        d.apply(cmd.createFundingAccount("open-funding", FUNDING));
        d.apply(cmd.createAccount("open-alice", ALICE));
        d.apply(cmd.createAccount("open-merchant", MERCHANT));
        d.apply(cmd.transfer("fund-alice", FUNDING, ALICE, 1_000));
    }

    @Test
    void shouldGiveEveryHoldThatTheLargestTickBudgetExpiresItsOwnEventId()
    {
        final int holds = LedgerConfig.EXPIRIES_PER_TICK_MAX_LIMIT;
        final long day = LedgerConfig.DAY_MS;
        final LedgerDriver full = new LedgerDriver(new LedgerConfig(10, 10, holds + 10, 10, 10, holds, day, day, day, holds));
        final Commands commands = full.commands;
        full.apply(commands.createFundingAccount("open-funding", FUNDING));
        for (int i = 0; i < holds; i++)
        {
            assertEquals(ResultCode.OK, full.apply(commands.hold("hold-" + i, FUNDING, 1, 60_000)).code);
        }

        final Result tick = full.apply(commands.tick(120_000));

        assertEquals(holds, tick.extra, "holds expired by this tick");
        final EffectLog effects = full.ledger.effects();
        final Set<Long> ids = new HashSet<>();
        for (int i = 0; i < effects.eventCount(); i++)
        {
            assertEquals(EventType.HOLD_EXPIRED, effects.eventType(i));
            ids.add(Uuid7.lo(effects.eventCommandIndex(i), effects.eventOrdinal(i)));
        }
        assertEquals(holds, ids.size(), "one id per event: the outbox keeps them all");
    }

    @Test
    void shouldRejectSpendingHeldMoneyThenCapturePartAndReleaseTheRest()
    {
        final Result hold = d.apply(cmd.hold("hold", ALICE, 700, TIMEOUT_MS));
        assertEquals(ResultCode.OK, hold.code);
        assertEquals(700, d.held(ALICE));
        assertEquals(300, d.available(ALICE));

        assertEquals(ResultCode.INSUFFICIENT_FUNDS, d.apply(cmd.transfer("overspend", ALICE, MERCHANT, 400)).code);
        assertEquals(ResultCode.INSUFFICIENT_FUNDS, d.apply(cmd.hold("second-hold", ALICE, 301, TIMEOUT_MS)).code);

        final Result capture = d.apply(cmd.capture("capture", hold, MERCHANT, 500));

        assertEquals(ResultCode.OK, capture.code);
        assertEquals(500, capture.amountMinor);
        assertEquals(hold.originIndex, capture.extra);
        assertEquals(0, d.held(ALICE), "the 200 not captured are released");
        assertEquals(500, d.posted(ALICE));
        assertEquals(500, d.posted(MERCHANT));
        assertEquals(2, d.entryCount());
        assertEquals(EventType.HOLD_CAPTURED, d.ledger.effects().eventType(0));
        assertEquals(200, d.ledger.effects().eventExtra(0), "the event says how much was released");
        assertEquals(ResultCode.HOLD_NOT_ACTIVE, d.apply(cmd.capture("capture-again", hold, MERCHANT, 100)).code);
    }

    @Test
    void shouldConvertAnAmountGivenWithoutCurrencyFromThousandthsWithTheHoldsExponent()
    {
        final Result hold = d.apply(cmd.hold("hold", ALICE, 700, TIMEOUT_MS));

        // "2.505" USD has more decimals than USD allows: rejected, not stored, nothing changes
        final Result tooPrecise = d.apply(Commands.inCurrency(cmd.capture("capture-precise", hold, MERCHANT, 2_505), 0));
        assertEquals(ResultCode.INVALID_AMOUNT, tooPrecise.code);
        assertEquals(700, d.held(ALICE));

        // "2.50" USD = 2,500 thousandths = 250 cents
        final Result capture = d.apply(Commands.inCurrency(cmd.capture("capture", hold, MERCHANT, 2_500), 0));
        assertEquals(ResultCode.OK, capture.code);
        assertEquals(250, capture.amountMinor);
        assertEquals(250, d.posted(MERCHANT));
        assertEquals(0, d.held(ALICE));
    }

    @Test
    void shouldCaptureWholeHoldWhenAmountIsZero()
    {
        final Result hold = d.apply(cmd.hold("hold", ALICE, 700, TIMEOUT_MS));

        final Result capture = d.apply(cmd.capture("capture", hold, MERCHANT, 0));

        assertEquals(ResultCode.OK, capture.code);
        assertEquals(700, capture.amountMinor);
        assertEquals(700, d.posted(MERCHANT));
        assertEquals(0, d.held(ALICE));
    }

    @Test
    void shouldRejectCaptureOfMoreThanTheHold()
    {
        final Result hold = d.apply(cmd.hold("hold", ALICE, 700, TIMEOUT_MS));

        assertEquals(ResultCode.CAPTURE_EXCEEDS_HOLD, d.apply(cmd.capture("capture", hold, MERCHANT, 701)).code);
        assertEquals(700, d.held(ALICE));
        assertEquals(0, d.posted(MERCHANT));
    }

    @Test
    void shouldRejectCaptureAmountStatedInAnotherCurrency()
    {
        final Result hold = d.apply(cmd.hold("hold", ALICE, 700, TIMEOUT_MS));

        assertEquals(ResultCode.CURRENCY_MISMATCH, d.apply(Commands.inCurrency(cmd.capture("capture", hold, MERCHANT, 100), Commands.EUR)).code);
        assertEquals(700, d.held(ALICE));
        assertEquals(ResultCode.OK, d.apply(Commands.inCurrency(cmd.capture("capture-usd", hold, MERCHANT, 100), Commands.USD)).code);
    }

    @Test
    void shouldReleaseEverythingOnVoidAndRejectLaterCapture()
    {
        final Result hold = d.apply(cmd.hold("hold", ALICE, 700, TIMEOUT_MS));

        final Result voided = d.apply(cmd.voidHold("void", hold));

        assertEquals(ResultCode.OK, voided.code);
        assertEquals(700, voided.amountMinor);
        assertEquals(0, d.held(ALICE));
        assertEquals(1_000, d.posted(ALICE));
        assertEquals(ResultCode.HOLD_NOT_ACTIVE, d.apply(cmd.capture("capture", hold, MERCHANT, 0)).code);
    }

    @Test
    void shouldExpireHoldAtTheFirstTickAtOrPastItsDeadline()
    {
        final Result hold = d.apply(cmd.hold("hold", ALICE, 700, TIMEOUT_MS));

        final Result early = d.apply(cmd.tick(TIMEOUT_MS - 2));
        assertEquals(hold.originTimestampNs + (TIMEOUT_MS - 1) * 1_000_000L, cmd.nowNs());
        assertEquals(0, early.extra);
        assertEquals(700, d.held(ALICE));

        final Result due = d.apply(cmd.tick(0));

        assertEquals(1, due.extra, "holds expired by this tick");
        assertEquals(0, d.held(ALICE));
        assertEquals(0, d.ledger.holds().size());
        assertEquals(EventType.HOLD_EXPIRED, d.ledger.effects().eventType(0));
        assertEquals(hold.originIndex, d.ledger.effects().eventSubject(0));
    }

    @Test
    void shouldTreatHoldPastItsDeadlineAsNotActiveEvenBeforeTheTick()
    {
        final Result hold = d.apply(cmd.hold("hold", ALICE, 700, TIMEOUT_MS));
        cmd.advanceMs(TIMEOUT_MS);

        assertEquals(ResultCode.HOLD_NOT_ACTIVE, d.apply(cmd.capture("late-capture", hold, MERCHANT, 0)).code);
        assertEquals(700, d.held(ALICE), "the money comes back with the tick");
        d.apply(cmd.tick(0));
        assertEquals(0, d.held(ALICE));
        assertEquals(0, d.posted(MERCHANT));
    }

    @Test
    void shouldNeverExpireHoldMarkedUnknown()
    {
        final Result hold = d.apply(cmd.hold("hold", ALICE, 700, TIMEOUT_MS));
        assertEquals(ResultCode.OK, d.apply(cmd.markUnknown("unknown", hold)).code);
        assertEquals(EventType.HOLD_MARKED_UNKNOWN, d.ledger.effects().eventType(0));
        assertEquals(ResultCode.OK, d.apply(cmd.markUnknown("unknown-again", hold)).code);
        assertEquals(0, d.eventCount(), "already unknown: nothing changes");

        final Result yearLater = d.apply(cmd.tick(400L * 24 * 60 * 60 * 1000));

        assertEquals(0, yearLater.extra);
        assertEquals(700, d.held(ALICE));
        assertEquals(1, d.ledger.holds().unknownCount());
        final Result capture = d.apply(cmd.capture("resolved", hold, MERCHANT, 650));
        assertEquals(ResultCode.OK, capture.code, "only an explicit capture or void resolves it");
        assertEquals(0, d.held(ALICE));
        assertEquals(650, d.posted(MERCHANT));
        assertEquals(0, d.ledger.holds().unknownCount());
    }

    @Test
    void shouldVoidUnknownHold()
    {
        final Result hold = d.apply(cmd.hold("hold", ALICE, 700, TIMEOUT_MS));
        d.apply(cmd.markUnknown("unknown", hold));
        d.apply(cmd.tick(TIMEOUT_MS * 10));

        assertEquals(ResultCode.OK, d.apply(cmd.voidHold("void", hold)).code);
        assertEquals(0, d.held(ALICE));
    }

    @Test
    void shouldNotLetAnotherTenantTouchTheHold()
    {
        final Result hold = d.apply(cmd.hold("hold", ALICE, 700, TIMEOUT_MS));
        cmd.tenant(2);

        assertEquals(ResultCode.HOLD_NOT_ACTIVE, d.apply(cmd.voidHold("void", hold)).code);
        assertEquals(ResultCode.HOLD_NOT_ACTIVE, d.apply(cmd.capture("capture", hold, MERCHANT, 0)).code);
        assertEquals(700, d.held(ALICE));
    }

    @Test
    void shouldRejectHoldWithoutTimeoutOrAmount()
    {
        assertEquals(ResultCode.INVALID_COMMAND, d.apply(cmd.hold("no-timeout", ALICE, 10, 0)).code);
        assertEquals(ResultCode.INVALID_COMMAND, d.apply(cmd.hold("no-amount", ALICE, 0, TIMEOUT_MS)).code);
        assertEquals(0, d.held(ALICE));
    }

    @Test
    void shouldExpireHoldsOnHundredsOfAccountsInOneTick()
    {
        final int accounts = 300;
        for (int i = 0; i < accounts; i++)
        {
            final long id = 100 + i;
            d.apply(cmd.createAccount("open-" + id, id));
            d.apply(cmd.transfer("fund-" + id, FUNDING, id, 10));
            assertEquals(ResultCode.OK, d.apply(cmd.hold("hold-" + id, id, 10, TIMEOUT_MS)).code);
        }

        final Result tick = d.apply(cmd.tick(TIMEOUT_MS));

        assertEquals(accounts, tick.extra);
        assertEquals(accounts, d.ledger.effects().eventCount());
        assertEquals(accounts, d.ledger.effects().balanceCount(), "one balance row per released account");
        for (int i = 0; i < accounts; i++)
        {
            assertEquals(0, d.held(100 + i));
        }
    }
}
