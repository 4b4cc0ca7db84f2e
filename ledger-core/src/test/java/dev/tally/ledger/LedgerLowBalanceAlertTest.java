package dev.tally.ledger;

import dev.tally.ledger.account.LowBalanceAlert;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.effect.EffectLog;
import dev.tally.ledger.effect.EventType;
import dev.tally.ledger.image.StateImage;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.tally.ledger.ResultAssertions.assertReplayOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Low-balance alerts: an account's available balance (posted - held, over every sub-balance) crossing below its
 * threshold emits one {@code AccountBalanceLow}, nothing more until it is back at or above the threshold, which emits
 * {@code AccountBalanceRecovered} and re-arms it; accounts without a threshold emit nothing; the state is rolled back,
 * snapshotted, hashed and replayed like any other.
 */
class LedgerLowBalanceAlertTest
{
    private static final long FUNDING = 1;
    private static final long ALICE = 2;
    private static final long BOB = 3;
    private static final long HOT = 4;
    private static final long THRESHOLD = 500;

    private LedgerDriver d;
    private Commands cmd;
    /** Every command applied, in order, for the replay tests. */
    private final List<Command> journal = new ArrayList<>();
    /** Every alert event emitted, as "type account available threshold". */
    private final List<String> alerts = new ArrayList<>();

    @BeforeEach
    void open()
    {
        d = new LedgerDriver();
        cmd = d.commands;
        apply(cmd.createFundingAccount("open-funding", FUNDING));
        apply(cmd.createAccountWithAlert("open-alice", ALICE, 1, THRESHOLD));
        apply(cmd.createAccount("open-bob", BOB));
        apply(cmd.transfer("fund-alice", FUNDING, ALICE, 1_000));
    }

    private Result apply(final Command c)
    {
        journal.add(c);
        final Result r = d.apply(c);
        collectAlerts(d.ledger.effects(), alerts);
        return r;
    }

    private static void collectAlerts(final EffectLog effects, final List<String> into)
    {
        for (int i = 0; i < effects.eventCount(); i++)
        {
            if (effects.eventType(i).isBalanceAlert())
            {
                into.add(effects.eventType(i).wireName() + " " + effects.eventSubject(i) + " " + effects.eventAmount(i) + " " +
                    effects.eventExtra(i));
            }
        }
    }

    private AccountView view(final long accountId)
    {
        return d.ledger.readAccount(accountId, 1, new AccountView());
    }

    @Test
    void shouldStartWaitingAtCreationAndArmSilentlyOnceFunded()
    {
        assertEquals(LowBalanceAlert.ARMED, view(ALICE).lowBalanceAlertState);
        assertEquals(THRESHOLD, view(ALICE).lowBalanceThresholdMinor);
        assertEquals(List.of(), alerts, "funding an account that was never above its threshold announces nothing");

        final Result created = apply(cmd.createAccountWithAlert("open-carol", 9, 1, THRESHOLD));
        assertEquals(ResultCode.OK, created.code);
        assertEquals(LowBalanceAlert.WAITING, view(9).lowBalanceAlertState);
    }

    @Test
    void shouldFireOnceWhenADebitTakesAvailableBelowTheThresholdAndRearmWhenItComesBack()
    {
        apply(cmd.transfer("pay-1", ALICE, BOB, 400));
        assertEquals(List.of(), alerts, "600 is still above 500");

        apply(cmd.transfer("pay-2", ALICE, BOB, 101));
        assertEquals(List.of("AccountBalanceLow 2 499 500"), alerts);
        assertEquals(LowBalanceAlert.FIRED, view(ALICE).lowBalanceAlertState);
        assertEquals(1, alertEventsInLastUnit());

        apply(cmd.transfer("pay-3", ALICE, BOB, 99));
        assertEquals(1, alerts.size(), "still below: once per crossing");

        apply(cmd.transfer("top-up", FUNDING, ALICE, 99));
        assertEquals(1, alerts.size(), "499 is still below");
        apply(cmd.transfer("top-up-2", FUNDING, ALICE, 1));
        assertEquals("AccountBalanceRecovered 2 500 500", alerts.get(1), "at the threshold is not below it");
        assertEquals(LowBalanceAlert.ARMED, view(ALICE).lowBalanceAlertState);

        apply(cmd.transfer("pay-4", ALICE, BOB, 1));
        assertEquals("AccountBalanceLow 2 499 500", alerts.get(2), "re-armed: fires again");
    }

    @Test
    void shouldEmitNothingForAccountsWithoutAThreshold()
    {
        apply(cmd.transfer("fund-bob", FUNDING, BOB, 1_000));
        apply(cmd.transfer("drain-bob", BOB, FUNDING, 1_000));
        apply(cmd.transfer("overdraw-funding", FUNDING, BOB, 5_000));
        assertEquals(List.of(), alerts);
        assertEquals(LowBalanceAlert.NONE, view(BOB).lowBalanceAlertState);
        assertEquals(0, view(BOB).lowBalanceThresholdMinor);
    }

    @Test
    void shouldCountAHoldAsItReservesAndReleaseItOnVoidAndExpiry()
    {
        final Result hold = apply(cmd.hold("hold-1", ALICE, 600, 60_000));
        assertEquals(List.of("AccountBalanceLow 2 400 500"), alerts, "available is posted - held");

        apply(cmd.voidHold("void-1", hold));
        assertEquals("AccountBalanceRecovered 2 1000 500", alerts.get(1));

        apply(cmd.hold("hold-2", ALICE, 700, 1_000));
        assertEquals("AccountBalanceLow 2 300 500", alerts.get(2));
        final Result tick = apply(cmd.tick(2_000));
        assertEquals(1, tick.extra, "the hold expired");
        assertEquals("AccountBalanceRecovered 2 1000 500", alerts.get(3));
        final EffectLog effects = d.ledger.effects();
        assertEquals(EventType.HOLD_EXPIRED, effects.eventType(0));
        assertEquals(1, effects.eventTenant(1), "a tick's alert carries the account's tenant");
        assertEquals(1, effects.eventOrdinal(1), "after the expiry's event, with an ordinal of its own");
    }

    @Test
    void shouldCaptureAsOneCommandReleasingThenDebiting()
    {
        final Result hold = apply(cmd.hold("hold", ALICE, 300, 60_000));
        assertEquals(List.of(), alerts, "700 available");
        apply(cmd.capture("capture", hold, BOB, 250));
        assertEquals(List.of(), alerts, "750 available once the rest is released");
        final Result hold2 = apply(cmd.hold("hold-2", ALICE, 300, 60_000));
        assertEquals(List.of("AccountBalanceLow 2 450 500"), alerts);
        apply(cmd.capture("capture-2", hold2, BOB, 300));
        assertEquals(1, alerts.size(), "the release and the debit in one command: still below, nothing new");
    }

    @Test
    void shouldWaitSilentlyWhenSetBelowTheBalanceAndStartAfreshOnEveryChange()
    {
        final Result set = apply(cmd.lowBalanceAlert("set-high", ALICE, 2_000));
        assertEquals(ResultCode.OK, set.code);
        assertEquals(ALICE, set.accountA);
        assertEquals(2_000, set.amountMinor);
        assertEquals(LowBalanceAlert.WAITING, set.extra);
        assertEquals(0, d.eventCount(), "a set announces nothing: its reply says where the balance stands");

        apply(cmd.transfer("pay", ALICE, BOB, 100));
        assertEquals(List.of(), alerts, "waiting: it was never at the threshold");
        apply(cmd.transfer("top-up", FUNDING, ALICE, 1_100));
        assertEquals(List.of(), alerts, "reaching it arms it silently");
        assertEquals(LowBalanceAlert.ARMED, view(ALICE).lowBalanceAlertState);
        apply(cmd.transfer("pay-2", ALICE, BOB, 1));
        assertEquals(List.of("AccountBalanceLow 2 1999 2000"), alerts);

        final Result lowered = apply(cmd.lowBalanceAlert("set-low", ALICE, 100));
        assertEquals(LowBalanceAlert.ARMED, lowered.extra);
        assertEquals(1, alerts.size(), "a fired alert set anew starts afresh without an event");

        final Result removed = apply(cmd.lowBalanceAlert("remove", ALICE, 0));
        assertEquals(ResultCode.OK, removed.code);
        assertEquals(LowBalanceAlert.NONE, removed.extra);
        apply(cmd.transfer("drain", ALICE, BOB, 1_999));
        assertEquals(1, alerts.size());
        assertEquals(LowBalanceAlert.NONE, view(ALICE).lowBalanceAlertState);
        assertEquals(0, view(ALICE).lowBalanceThresholdMinor);
    }

    @Test
    void shouldStoreAndReplayASetAndRefuseWhatItCannotSet()
    {
        final Result set = apply(cmd.lowBalanceAlert("set", ALICE, 2_000));
        assertReplayOf(set, apply(cmd.resend(cmd.lowBalanceAlert("set", ALICE, 2_000))));
        assertEquals(ResultCode.KEY_REUSED, apply(cmd.lowBalanceAlert("set", ALICE, 3_000)).code);
        assertEquals(2_000, view(ALICE).lowBalanceThresholdMinor);

        assertEquals(ResultCode.ACCOUNT_NOT_FOUND, apply(cmd.lowBalanceAlert("unknown", 99, 10)).code);
        assertEquals(ResultCode.CURRENCY_MISMATCH,
            apply(Commands.inCurrency(cmd.lowBalanceAlert("eur", ALICE, 10), Commands.EUR)).code);
        assertEquals(ResultCode.INVALID_COMMAND, apply(cmd.lowBalanceAlert("negative", ALICE, -1)).code);
        cmd.tenant(77);
        assertEquals(ResultCode.ACCOUNT_NOT_FOUND, apply(cmd.lowBalanceAlert("other-tenant", ALICE, 10)).code);
        cmd.tenant(1);
        apply(cmd.close("close-bob", BOB));
        final Result closed = apply(cmd.lowBalanceAlert("closed", BOB, 10));
        assertEquals(ResultCode.ACCOUNT_CLOSED, closed.code);
        assertEquals(BOB, closed.extra);
        assertEquals(2_000, view(ALICE).lowBalanceThresholdMinor, "no refusal changed anything");
    }

    @Test
    void shouldConvertAThresholdSentWithoutACurrency()
    {
        final Command thousandths = cmd.lowBalanceAlert("set", ALICE, 7_250);   // 7.250 USD
        thousandths.currency = 0;
        Commands.seal(thousandths);
        final Result set = apply(thousandths);
        assertEquals(ResultCode.OK, set.code);
        assertEquals(725, set.amountMinor);

        final Command tooPrecise = cmd.lowBalanceAlert("too-precise", ALICE, 7_255);
        tooPrecise.currency = 0;
        Commands.seal(tooPrecise);
        assertEquals(ResultCode.INVALID_AMOUNT, apply(tooPrecise).code);
        assertEquals(725, view(ALICE).lowBalanceThresholdMinor);
    }

    @Test
    void shouldCompareTheSumOfEveryHotSubBalance()
    {
        apply(cmd.createHotAccount("open-hot", HOT, 16));
        for (int i = 0; i < 40; i++)
        {
            apply(cmd.transfer("collect-" + i, FUNDING, HOT, 100));
        }
        apply(cmd.lowBalanceAlert("hot-alert", HOT, 1_500));
        assertEquals(LowBalanceAlert.ARMED, view(HOT).lowBalanceAlertState);

        apply(cmd.transfer("payout-1", HOT, BOB, 2_000));
        assertEquals(List.of(), alerts, "2,000 left over 16 sub-balances");
        final Result payout = apply(cmd.transfer("payout-2", HOT, BOB, 600));
        assertEquals(ResultCode.OK, payout.code);
        assertEquals(List.of("AccountBalanceLow 4 1400 1500"), alerts, "one event, whatever sub-balances the debit drew on");
        assertEquals(1, alertEventsInLastUnit());

        for (int i = 0; i < 3; i++)
        {
            apply(cmd.transfer("collect-again-" + i, FUNDING, HOT, 50));
        }
        assertEquals(List.of("AccountBalanceLow 4 1400 1500", "AccountBalanceRecovered 4 1500 1500"), alerts,
            "credits spread over the sub-balances count too; the third re-arms nothing more");
    }

    @Test
    void shouldRollBackTheAlertWithItsAtomicBatch()
    {
        final long business = d.businessDigest();

        final Result[] results = d.applyBatch(Commands.batch(true,
            cmd.transfer("op-0", ALICE, BOB, 900),
            cmd.lowBalanceAlert("op-1", BOB, 50),
            cmd.transfer("op-2", BOB, ALICE, 5_000)));

        assertEquals(ResultCode.LINKED_OPERATION_FAILED, results[0].code);
        assertEquals(ResultCode.INSUFFICIENT_FUNDS, results[2].code);
        assertEquals(0, d.eventCount(), "the crossing's event went with the batch");
        assertEquals(LowBalanceAlert.ARMED, view(ALICE).lowBalanceAlertState);
        assertEquals(LowBalanceAlert.NONE, view(BOB).lowBalanceAlertState);
        assertEquals(business, d.businessDigest());

        apply(cmd.transfer("after", ALICE, BOB, 900));
        assertEquals(List.of("AccountBalanceLow 2 100 500"), alerts, "still armed: it fires on the next crossing");
    }

    @Test
    void shouldKeepATicksEventOrdinalsWithinTheirBitsWhenTheAccountsItReleasesHaveAlerts()
    {
        final int max = LedgerLimits.EXPIRIES_PER_TICK_MAX;
        final LedgerConfig config = new LedgerConfig(100, 1_000, 2 * max, 1_000, 1_000, max + 100, LedgerConfig.DAY_MS,
            7 * LedgerConfig.DAY_MS, 7 * LedgerConfig.DAY_MS, max);
        for (final boolean alert : new boolean[] {false, true})
        {
            final LedgerDriver driver = new LedgerDriver(config);
            final Commands commands = driver.commands;
            driver.apply(commands.createFundingAccount("funding", FUNDING));
            driver.apply(alert ? commands.createAccountWithAlert("alice", ALICE, 1, 1) : commands.createAccount("alice", ALICE));
            driver.apply(commands.transfer("fund", FUNDING, ALICE, 1_000_000));
            for (int i = 0; i < max; i++)
            {
                assertEquals(ResultCode.OK, driver.apply(commands.hold("hold-" + i, ALICE, 1, 1_000)).code);
            }
            final Result tick = driver.apply(commands.tick(60_000));
            final EffectLog effects = driver.ledger.effects();
            final java.util.Set<Integer> ordinals = new java.util.HashSet<>();
            for (int i = 0; i < effects.eventCount(); i++)
            {
                assertTrue(effects.eventOrdinal(i) <= dev.tally.ledger.id.Uuid7.ORDINAL_MAX && ordinals.add(effects.eventOrdinal(i)),
                    "every event of the tick has an ordinal of its own");
            }
            // Without thresholds a tick expires as many as before alerts existed; with one, each released account counts an
            // event it may add, so half as many go in this tick and the rest in the next.
            assertEquals(alert ? max / 2 : max, tick.extra, "holds expired by the first tick");
            assertEquals(alert ? max / 2 : 0, driver.apply(commands.tick(1)).extra, "and by the next");
        }
    }

    @Test
    void shouldCoverTheAlertInTheStateHash()
    {
        final long before = d.ledger.stateHash();
        final LedgerDriver other = new LedgerDriver();
        final Commands otherCmd = other.commands;
        other.apply(otherCmd.createFundingAccount("open-funding", FUNDING));
        other.apply(otherCmd.createAccountWithAlert("open-alice", ALICE, 1, THRESHOLD + 1));
        other.apply(otherCmd.createAccount("open-bob", BOB));
        other.apply(otherCmd.transfer("fund-alice", FUNDING, ALICE, 1_000));
        assertNotEquals(before, other.ledger.stateHash(), "another threshold, another hash");
    }

    @Test
    void shouldAgreeWithAModelOfCrossingsOnRandomCommands()
    {
        for (int seed = 0; seed < 20; seed++)
        {
            open();
            journal.clear();
            alerts.clear();
            apply(cmd.createHotAccount("open-hot", HOT, 16));
            runRandomly(new Random(seed), 400);
        }
    }

    @Test
    void shouldKeepAlertsThroughASnapshotAndAReplayWithTheSameEvents()
    {
        final Random random = new Random(34);
        apply(cmd.createHotAccount("open-hot", HOT, 16));
        apply(cmd.lowBalanceAlert("hot-alert", HOT, 700));
        apply(cmd.lowBalanceAlert("bob-alert", BOB, 300));
        runRandomly(random, 150);
        final int cut = journal.size();
        final StateImage image = new StateImage();
        d.ledger.copyTo(image);
        assertEquals(d.ledger.stateHash(), image.stateHash());
        runRandomly(random, 300);
        assertTrue(alerts.stream().anyMatch(a -> a.startsWith("AccountBalanceLow")), "the workload crosses thresholds");
        assertTrue(alerts.stream().anyMatch(a -> a.startsWith("AccountBalanceRecovered")), "and back");

        final Ledger restored = Ledger.restore(LedgerDriver.CONFIG, image);
        final List<String> restoredAlerts = new ArrayList<>();
        for (final Command c : journal.subList(cut, journal.size()))
        {
            restored.apply(c);
            collectAlerts(restored.effects(), restoredAlerts);
        }
        final Ledger replayed = new Ledger(LedgerDriver.CONFIG);
        final List<String> replayedAlerts = new ArrayList<>();
        for (final Command c : journal)
        {
            replayed.apply(c);
            collectAlerts(replayed.effects(), replayedAlerts);
        }

        assertEquals(d.ledger.stateHash(), restored.stateHash());
        assertEquals(d.ledger.stateHash(), replayed.stateHash());
        assertEquals(alerts, replayedAlerts, "a replay emits the same events");
        assertEquals(alerts.subList(alerts.size() - restoredAlerts.size(), alerts.size()), restoredAlerts);
        assertEquals(view(HOT).lowBalanceAlertState, restored.readAccount(HOT, 1, new AccountView()).lowBalanceAlertState);
    }

    /**
     * Random transfers, holds, voids, ticks and threshold changes between the funding account, Alice, Bob and the hot
     * account, each checked against a model of the alerts: after every command, every account with a threshold moves as
     * {@link LowBalanceAlert} draws it, from the available balance the ledger reports, and the command's alert events are
     * exactly those moves (an account the command did not change has the same balance, so the model moves it nowhere).
     */
    private void runRandomly(final Random random, final int commands)
    {
        final long[] accounts = {ALICE, BOB, HOT};
        final Map<Long, long[]> model = new HashMap<>();   // account -> {state, threshold}
        for (final long account : accounts)
        {
            model.put(account, new long[] {view(account).lowBalanceAlertState, view(account).lowBalanceThresholdMinor});
        }
        final List<Result> holds = new ArrayList<>();
        for (int i = 0; i < commands; i++)
        {
            final long account = accounts[random.nextInt(accounts.length)];
            final String key = "random-" + journal.size();
            final int before = alerts.size();
            switch (random.nextInt(6))
            {
                case 0: apply(cmd.transfer(key, FUNDING, account, 1 + random.nextInt(400))); break;
                case 1: apply(cmd.transfer(key, account, FUNDING, 1 + random.nextInt(400))); break;
                case 2:
                    final Result hold = apply(cmd.hold(key, account, 1 + random.nextInt(300), 500 + random.nextInt(3_000)));
                    if (hold.code == ResultCode.OK)
                    {
                        holds.add(hold);
                    }
                    break;
                case 3:
                    if (!holds.isEmpty())
                    {
                        apply(cmd.voidHold(key, holds.remove(random.nextInt(holds.size()))));
                    }
                    break;
                case 4:
                    final long threshold = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(1_200);
                    final Result set = apply(cmd.lowBalanceAlert(key, account, threshold));
                    assertEquals(ResultCode.OK, set.code);
                    model.put(account, new long[] {set.extra, threshold});
                    assertEquals(threshold == 0 ? LowBalanceAlert.NONE : d.available(account) >= threshold ? LowBalanceAlert.ARMED :
                        LowBalanceAlert.WAITING, set.extra, "a set starts armed or waiting, by the balance");
                    break;
                default: apply(cmd.tick(random.nextInt(1_500))); break;
            }
            final List<String> expected = new ArrayList<>();
            for (final long id : accounts)
            {
                moveModel(id, model.get(id), expected);
            }
            final List<String> emitted = new ArrayList<>(alerts.subList(before, alerts.size()));
            expected.sort(null);
            emitted.sort(null);
            assertEquals(expected, emitted, () -> "command " + journal.get(journal.size() - 1).type + " at " + journal.size());
        }
    }

    /** Moves one account's modelled alert {state, threshold} by its balance now, adding the event a move emits. */
    private void moveModel(final long accountId, final long[] alert, final List<String> events)
    {
        final long available = d.available(accountId);
        final long threshold = alert[1];
        if (alert[0] == LowBalanceAlert.ARMED && available < threshold)
        {
            alert[0] = LowBalanceAlert.FIRED;
            events.add("AccountBalanceLow " + accountId + " " + available + " " + threshold);
        }
        else if (alert[0] != LowBalanceAlert.NONE && alert[0] != LowBalanceAlert.ARMED && available >= threshold)
        {
            if (alert[0] == LowBalanceAlert.FIRED)
            {
                events.add("AccountBalanceRecovered " + accountId + " " + available + " " + threshold);
            }
            alert[0] = LowBalanceAlert.ARMED;
        }
        assertEquals(alert[0], view(accountId).lowBalanceAlertState, "the ledger's state of account " + accountId);
    }

    private int alertEventsInLastUnit()
    {
        int n = 0;
        final EffectLog effects = d.ledger.effects();
        for (int i = 0; i < effects.eventCount(); i++)
        {
            n += effects.eventType(i).isBalanceAlert() ? 1 : 0;
        }
        return n;
    }
}
