package dev.tally.ledger;

import dev.tally.ledger.account.Accounts;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.effect.EventType;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.tally.ledger.ResultAssertions.assertReplayOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * The account lifecycle: a freeze refuses debits (and credits when it says so) on every path that moves or reserves
 * money, a closed account refuses everything, closing needs zero posted and held, voids and expiries still release,
 * and every outcome is stored, replayed and rolled back like any other.
 */
class LedgerLifecycleTest
{
    private static final long FUNDING = 1;
    private static final long ALICE = 2;
    private static final long BOB = 3;
    private static final long OTHER_TENANT = 77;

    private LedgerDriver d;
    private Commands cmd;
    /** Every command applied, in order, for the replay test. */
    private final List<Command> journal = new ArrayList<>();

    @BeforeEach
    void open()
    {
        d = new LedgerDriver();
        cmd = d.commands;
        apply(cmd.createFundingAccount("open-funding", FUNDING));
        apply(cmd.createAccount("open-alice", ALICE));
        apply(cmd.createAccount("open-bob", BOB));
        apply(cmd.transfer("fund-alice", FUNDING, ALICE, 1_000));
    }

    private Result apply(final Command c)
    {
        journal.add(c);
        return d.apply(c);
    }

    private int status(final long accountId)
    {
        final AccountView view = d.ledger.readAccount(accountId, 1, new AccountView());
        return view.status;
    }

    private static void assertRefused(final ResultCode code, final long accountId, final Result r)
    {
        assertEquals(code, r.code, r::toString);
        assertEquals(accountId, r.extra, "the rejection names the account that refused");
    }

    @Test
    void shouldRefuseDebitsButTakeCreditsWhenDebitsAreFrozen()
    {
        final Result freeze = apply(cmd.freeze("freeze", ALICE, false));

        assertEquals(ResultCode.OK, freeze.code);
        assertEquals(ALICE, freeze.accountA);
        assertEquals(Accounts.Status.DEBITS_FROZEN, status(ALICE));
        assertEquals(EventType.ACCOUNT_FROZEN, d.ledger.effects().eventType(0));
        assertEquals(0, d.ledger.effects().eventExtra(0), "debits only");
        assertRefused(ResultCode.ACCOUNT_FROZEN, ALICE, apply(cmd.transfer("out", ALICE, BOB, 10)));
        assertEquals(ResultCode.OK, apply(cmd.transfer("in", FUNDING, ALICE, 10)).code);
        assertEquals(1_010, d.posted(ALICE));
        assertEquals(0, d.posted(BOB));
    }

    @Test
    void shouldRefuseCreditsTooWhenTheFreezeSaysSo()
    {
        apply(cmd.freeze("freeze", ALICE, true));

        assertEquals(Accounts.Status.DEBITS_FROZEN | Accounts.Status.CREDITS_FROZEN, status(ALICE));
        assertRefused(ResultCode.ACCOUNT_FROZEN, ALICE, apply(cmd.transfer("in", FUNDING, ALICE, 10)));
        assertRefused(ResultCode.ACCOUNT_FROZEN, ALICE, apply(cmd.transfer("out", ALICE, BOB, 10)));
        assertEquals(1_000, d.posted(ALICE));
    }

    @Test
    void shouldMoveMoneyAgainAfterUnfreeze()
    {
        apply(cmd.freeze("freeze", ALICE, true));
        final Result unfreeze = apply(cmd.unfreeze("unfreeze", ALICE));

        assertEquals(ResultCode.OK, unfreeze.code);
        assertEquals(0, status(ALICE));
        assertEquals(EventType.ACCOUNT_UNFROZEN, d.ledger.effects().eventType(0));
        assertEquals(ResultCode.OK, apply(cmd.transfer("out", ALICE, BOB, 10)).code);
        assertEquals(990, d.posted(ALICE));
    }

    @Test
    void shouldEmitAnEventOnlyWhenTheStatusChanges()
    {
        apply(cmd.freeze("freeze-1", ALICE, false));
        assertEquals(ResultCode.OK, apply(cmd.freeze("freeze-2", ALICE, false)).code);
        assertEquals(0, d.eventCount(), "already frozen so: nothing to tell");
        assertEquals(ResultCode.OK, apply(cmd.freeze("freeze-3", ALICE, true)).code);
        assertEquals(1, d.eventCount(), "the scope widened");
        assertEquals(1, d.ledger.effects().eventExtra(0), "credits frozen too");
        assertEquals(ResultCode.OK, apply(cmd.unfreeze("unfreeze-1", BOB)).code);
        assertEquals(0, d.eventCount(), "an active account stays active");
    }

    @Test
    void shouldCloseOnlyAnAccountWithNothingPostedOrHeld()
    {
        assertRefused(ResultCode.ACCOUNT_NOT_EMPTY, ALICE, apply(cmd.close("close-posted", ALICE)));
        apply(cmd.transfer("drain", ALICE, FUNDING, 900));
        final Result held = apply(cmd.hold("hold", ALICE, 100, 60_000));
        assertEquals(100, d.held(ALICE));
        assertRefused(ResultCode.ACCOUNT_NOT_EMPTY, ALICE, apply(cmd.close("close-held", ALICE)));
        apply(cmd.capture("capture", held, FUNDING, 0));
        assertEquals(0, d.posted(ALICE));
        assertEquals(0, d.held(ALICE));

        final Result close = apply(cmd.close("close", ALICE));

        assertEquals(ResultCode.OK, close.code);
        assertEquals(Accounts.Status.CLOSED, status(ALICE));
        assertEquals(EventType.ACCOUNT_CLOSED, d.ledger.effects().eventType(0));
    }

    @Test
    void shouldCloseAFrozenEmptyAccountAndKeepOnlyClosed()
    {
        apply(cmd.freeze("freeze", BOB, true));
        assertEquals(ResultCode.OK, apply(cmd.close("close", BOB)).code);
        assertEquals(Accounts.Status.CLOSED, status(BOB));
    }

    @Test
    void shouldRefuseEverythingThatMovesMoneyOnAClosedAccount()
    {
        apply(cmd.close("close", BOB));

        assertRefused(ResultCode.ACCOUNT_CLOSED, BOB, apply(cmd.transfer("in", ALICE, BOB, 10)));
        assertRefused(ResultCode.ACCOUNT_CLOSED, BOB, apply(cmd.transfer("out", BOB, ALICE, 10)));
        assertRefused(ResultCode.ACCOUNT_CLOSED, BOB, apply(cmd.hold("hold", BOB, 10, 60_000)));
        final Result hold = apply(cmd.hold("alice-hold", ALICE, 10, 60_000));
        assertRefused(ResultCode.ACCOUNT_CLOSED, BOB, apply(cmd.capture("capture", hold, BOB, 0)));
        assertRefused(ResultCode.ACCOUNT_CLOSED, BOB, apply(cmd.freeze("freeze", BOB, false)));
        assertRefused(ResultCode.ACCOUNT_CLOSED, BOB, apply(cmd.unfreeze("unfreeze", BOB)));
        assertRefused(ResultCode.ACCOUNT_CLOSED, BOB, apply(cmd.close("close-again", BOB)));
        assertEquals(0, d.posted(BOB));
        assertEquals(990, d.available(ALICE), "the hold on Alice stands");
        final AccountView view = d.ledger.readAccount(BOB, 1, new AccountView());
        assertEquals(Accounts.Status.CLOSED, view.status, "reads keep working");
    }

    @Test
    void shouldRefuseAReversalThatWouldDebitAFrozenAccount()
    {
        final Result transfer = apply(cmd.transfer("pay", ALICE, BOB, 100));
        apply(cmd.freeze("freeze-bob", BOB, false));

        assertRefused(ResultCode.ACCOUNT_FROZEN, BOB, apply(cmd.reverse("reverse", transfer, 0)));

        apply(cmd.unfreeze("unfreeze-bob", BOB));
        apply(cmd.freeze("freeze-alice", ALICE, true));
        assertRefused(ResultCode.ACCOUNT_FROZEN, ALICE, apply(cmd.reverse("reverse-2", transfer, 0)));
        apply(cmd.freeze("freeze-alice-debits", ALICE, false));
        assertEquals(ResultCode.OK, apply(cmd.reverse("reverse-3", transfer, 0)).code, "a debit freeze takes the money back");
        assertEquals(1_000, d.posted(ALICE));
    }

    @Test
    void shouldRefuseHoldsAndCapturesButLetVoidsAndExpiriesReleaseOnAFrozenAccount()
    {
        final Result first = apply(cmd.hold("hold-1", ALICE, 100, 60_000));
        final Result second = apply(cmd.hold("hold-2", ALICE, 200, 60_000));
        apply(cmd.hold("hold-3", ALICE, 300, 10_000));
        apply(cmd.freeze("freeze", ALICE, false));

        assertRefused(ResultCode.ACCOUNT_FROZEN, ALICE, apply(cmd.hold("hold-4", ALICE, 10, 60_000)));
        assertRefused(ResultCode.ACCOUNT_FROZEN, ALICE, apply(cmd.capture("capture", first, BOB, 0)));
        assertEquals(ResultCode.OK, apply(cmd.voidHold("void", second)).code);
        assertEquals(400, d.held(ALICE));
        apply(cmd.tick(20_000));
        assertEquals(100, d.held(ALICE), "the 300 expired");
        assertEquals(1_000, d.posted(ALICE));
    }

    @Test
    void shouldRefuseACaptureIntoAnAccountWhoseCreditsAreFrozen()
    {
        final Result hold = apply(cmd.hold("hold", ALICE, 100, 60_000));
        apply(cmd.freeze("freeze-bob", BOB, true));

        assertRefused(ResultCode.ACCOUNT_FROZEN, BOB, apply(cmd.capture("capture", hold, BOB, 0)));

        apply(cmd.freeze("freeze-bob-debits", BOB, false));
        assertEquals(ResultCode.OK, apply(cmd.capture("capture-2", hold, BOB, 0)).code, "credits are open again");
        assertEquals(100, d.posted(BOB));
    }

    @Test
    void shouldReplayStoredOutcomesAndRefuseAReusedKey()
    {
        final Command freeze = cmd.freeze("freeze", ALICE, true);
        final Result first = apply(freeze);
        final Result refused = apply(cmd.transfer("out", ALICE, BOB, 10));

        assertReplayOf(first, apply(cmd.resend(freeze)));
        assertEquals(0, d.eventCount(), "a replay has no effect");
        assertReplayOf(refused, apply(cmd.resend(cmd.transfer("out", ALICE, BOB, 10))));
        assertEquals(ResultCode.KEY_REUSED, apply(cmd.freeze("freeze", ALICE, false)).code, "another scope, same key");
        assertEquals(Accounts.Status.DEBITS_FROZEN | Accounts.Status.CREDITS_FROZEN, status(ALICE));
        final Result closeRefused = apply(cmd.close("close", ALICE));
        assertReplayOf(closeRefused, apply(cmd.resend(cmd.close("close", ALICE))));
    }

    @Test
    void shouldRollBackAFreezeWhenItsAtomicBatchFails()
    {
        final long business = d.businessDigest();

        final Result[] results = d.applyBatch(Commands.batch(true,
            cmd.freeze("op-0", ALICE, true),
            cmd.close("op-1", BOB),
            cmd.transfer("op-2", BOB, ALICE, 5)));

        assertEquals(ResultCode.LINKED_OPERATION_FAILED, results[0].code);
        assertEquals(ResultCode.LINKED_OPERATION_FAILED, results[1].code);
        assertEquals(ResultCode.ACCOUNT_CLOSED, results[2].code);
        assertEquals(0, status(ALICE));
        assertEquals(0, status(BOB));
        assertEquals(0, d.eventCount());
        assertEquals(business, d.businessDigest());
    }

    @Test
    void shouldNotFindAnotherTenantsAccount()
    {
        cmd.tenant(OTHER_TENANT);
        assertEquals(ResultCode.ACCOUNT_NOT_FOUND, apply(cmd.freeze("freeze", ALICE, false)).code);
        assertEquals(ResultCode.ACCOUNT_NOT_FOUND, apply(cmd.close("close", BOB)).code);
        assertEquals(ResultCode.ACCOUNT_NOT_FOUND, apply(cmd.unfreeze("unfreeze", ALICE)).code);
        cmd.tenant(1);
        assertEquals(0, status(ALICE));
        assertEquals(0, status(BOB));
    }

    @Test
    void shouldKeepTheStatusThroughASnapshotAndAReplayWithTheSameStateHash()
    {
        final long activeHash = d.businessDigest();
        apply(cmd.freeze("freeze", ALICE, false));
        apply(cmd.close("close", BOB));
        assertNotEquals(activeHash, d.businessDigest(), "the status is state");

        final Ledger restored = d.restoredCopy();
        final Ledger replayed = d.replayOf(journal);

        assertEquals(d.ledger.stateHash(), restored.stateHash());
        assertEquals(d.ledger.stateHash(), replayed.stateHash());
        assertEquals(Accounts.Status.DEBITS_FROZEN, restored.readAccount(ALICE, 1, new AccountView()).status);
        assertEquals(Accounts.Status.CLOSED, restored.readAccount(BOB, 1, new AccountView()).status);
        final Command next = cmd.transfer("after-restart", ALICE, FUNDING, 1);
        assertEquals(ResultCode.ACCOUNT_FROZEN, restored.apply(next).code);
        assertFalse(restored.readAccount(ALICE, 1, new AccountView()).status == 0);
    }
}
