package dev.tally.ledger;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import org.junit.jupiter.api.Test;

import static dev.tally.ledger.ResultAssertions.assertReplayOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Batches: atomic ones apply all operations or none; the others apply each on its own. */
class LedgerBatchTest
{
    private static final long FUNDING = 1;
    private static final long ALICE = 2;
    private static final long BOB = 3;
    private static final long CAROL = 4;
    /** Keys the setup stores: three accounts and one funding transfer. */
    private static final int SETUP_KEYS = 4;

    private LedgerDriver d;
    private Commands cmd;

    private void open(final LedgerConfig config)
    {
        d = new LedgerDriver(config);
        cmd = d.commands;
        d.apply(cmd.createFundingAccount("open-funding", FUNDING));
        d.apply(cmd.createAccount("open-alice", ALICE));
        d.apply(cmd.createAccount("open-bob", BOB));
        d.apply(cmd.transfer("fund-alice", FUNDING, ALICE, 1_000));
    }

    private void open()
    {
        open(LedgerDriver.CONFIG);
    }

    /** Four operations; the third needs 900 when 700 are left. */
    private Command[] failingAtThirdOperation()
    {
        return Commands.batch(true,
            cmd.transfer("op-0", ALICE, BOB, 300),
            cmd.createAccount("op-1", CAROL),
            cmd.transfer("op-2", ALICE, CAROL, 900),
            cmd.hold("op-3", ALICE, 100, 60_000));
    }

    @Test
    void shouldLeaveBalancesAndTablesAsBeforeWhenAtomicBatchFailsMidway()
    {
        open();
        final long business = d.businessDigest();
        final long transfersPosted = d.ledger.transfersPosted();

        final Result[] results = d.applyBatch(failingAtThirdOperation());

        assertEquals(ResultCode.LINKED_OPERATION_FAILED, results[0].code);
        assertEquals(ResultCode.LINKED_OPERATION_FAILED, results[1].code);
        assertEquals(ResultCode.INSUFFICIENT_FUNDS, results[2].code);
        assertEquals(ResultCode.LINKED_OPERATION_FAILED, results[3].code);
        assertEquals(business, d.businessDigest(), "balances, holds, references and transfers as before");
        assertFalse(d.exists(CAROL));
        assertEquals(1_000, d.posted(ALICE));
        assertEquals(0, d.entryCount());
        assertEquals(0, d.eventCount());
        assertEquals(0, d.ledger.effects().balanceCount());
        assertTrue(d.ledger.isUnitComplete());
        assertEquals(transfersPosted, d.ledger.transfersPosted(), "nothing was posted");
        assertEquals(SETUP_KEYS + 4, d.ledger.idempotencyKeys().size(), "business outcomes are stored, so a retry replays them");
    }

    @Test
    void shouldReplayEveryResultWhenFailedAtomicBatchIsRetried()
    {
        open();
        final Command[] batch = failingAtThirdOperation();
        final Result[] first = d.applyBatch(batch);
        final long business = d.businessDigest();
        final long keys = d.keysDigest();

        final Result[] retry = d.applyBatch(Commands.batch(true,
            cmd.resend(batch[0]), cmd.resend(batch[1]), cmd.resend(batch[2]), cmd.resend(batch[3])));

        for (int i = 0; i < batch.length; i++)
        {
            assertReplayOf(first[i], retry[i]);
        }
        assertEquals(business, d.businessDigest());
        assertEquals(keys, d.keysDigest());
    }

    @Test
    void shouldLeaveStateHashAsBeforeWhenAtomicBatchFailsOnReusedKey()
    {
        final Ledger twin = new Ledger(LedgerDriver.CONFIG);
        d = new LedgerDriver();
        cmd = d.commands;
        final Command[] setup = {
            cmd.createFundingAccount("open-funding", FUNDING), cmd.createAccount("open-alice", ALICE),
            cmd.createAccount("open-bob", BOB), cmd.transfer("fund-alice", FUNDING, ALICE, 1_000),
        };
        for (final Command c : setup)
        {
            d.apply(c);
            twin.apply(c);
        }
        assertEquals(twin.stateHash(), d.ledger.stateHash());

        final Command[] batch = Commands.batch(true,
            cmd.transfer("op-0", ALICE, BOB, 300),
            cmd.reuse(setup[3], 5),
            cmd.transfer("op-2", ALICE, BOB, 200));
        final Result[] results = d.applyBatch(batch);

        assertEquals(ResultCode.LINKED_OPERATION_FAILED, results[0].code);
        assertEquals(ResultCode.KEY_REUSED, results[1].code);
        assertEquals(ResultCode.LINKED_OPERATION_FAILED, results[2].code);
        // The twin only saw time pass to the batch's last command: the batch must have left nothing else behind.
        final Command tick = new Command();
        tick.type = CommandType.TICK;
        tick.journalIndex = batch[2].journalIndex;
        tick.timestampNs = batch[2].timestampNs;
        twin.apply(tick);
        assertEquals(twin.stateHash(), d.ledger.stateHash(), "a failure that is not stored leaves no key behind");

        final Result[] retry = d.applyBatch(Commands.batch(true,
            cmd.resend(batch[0]), cmd.transfer("op-1-fixed", FUNDING, ALICE, 5), cmd.resend(batch[2])));
        for (final Result r : retry)
        {
            assertEquals(ResultCode.OK, r.code);
            assertFalse(r.replayed, "evaluated afresh");
        }
        assertEquals(505, d.posted(ALICE));
    }

    @Test
    void shouldApplyEveryOperationOfSuccessfulAtomicBatchAsOneUnitOfEffects()
    {
        open();

        final Result[] results = d.applyBatch(Commands.batch(true,
            cmd.transfer("op-0", ALICE, BOB, 300),
            cmd.transfer("op-1", ALICE, BOB, 200),
            cmd.hold("op-2", ALICE, 100, 60_000)));

        for (final Result r : results)
        {
            assertEquals(ResultCode.OK, r.code);
        }
        assertEquals(500, d.posted(BOB));
        assertEquals(100, d.held(ALICE));
        assertEquals(4, d.entryCount(), "two transfers, two legs each");
        assertEquals(3, d.eventCount());
    }

    @Test
    void shouldApplyNonAtomicBatchOperationsIndependently()
    {
        open();

        final Result[] results = d.applyBatch(Commands.batch(false,
            cmd.transfer("op-0", ALICE, BOB, 300),
            cmd.transfer("op-1", ALICE, BOB, 5_000),
            cmd.transfer("op-2", ALICE, BOB, 200)));

        assertEquals(ResultCode.OK, results[0].code);
        assertEquals(ResultCode.INSUFFICIENT_FUNDS, results[1].code);
        assertEquals(ResultCode.OK, results[2].code);
        assertEquals(500, d.posted(ALICE));
        assertEquals(500, d.posted(BOB));
    }

    @Test
    void shouldRollBackAtomicBatchWhenTheKeyTableFillsMidway()
    {
        open(LedgerDriver.CONFIG.withCapacity(1_000, 20_000, SETUP_KEYS + 2, 20_000, 2_000));
        final long business = d.businessDigest();

        final Result[] results = d.applyBatch(Commands.batch(true,
            cmd.transfer("op-0", ALICE, BOB, 300),
            cmd.transfer("op-1", ALICE, BOB, 200),
            cmd.transfer("op-2", ALICE, BOB, 100)));

        assertEquals(ResultCode.CAPACITY_EXCEEDED, results[2].code);
        assertEquals(ResultCode.LINKED_OPERATION_FAILED, results[0].code, "all or nothing, whatever the failure");
        assertEquals(ResultCode.LINKED_OPERATION_FAILED, results[1].code);
        assertEquals(business, d.businessDigest());
        assertEquals(SETUP_KEYS, d.ledger.idempotencyKeys().size(), "capacity is not a stored outcome: the retry runs afresh");
    }

    @Test
    void shouldRejectRatherThanHaltWhenLinkedFailuresNeedMoreKeysThanRemain()
    {
        open(LedgerDriver.CONFIG.withCapacity(1_000, 20_000, SETUP_KEYS + 2, 20_000, 2_000));
        final long business = d.businessDigest();
        final long keys = d.keysDigest();

        final Result[] results = d.applyBatch(Commands.batch(true,
            cmd.transfer("op-0", ALICE, BOB, 5_000),
            cmd.transfer("op-1", ALICE, BOB, 200),
            cmd.transfer("op-2", ALICE, BOB, 100),
            cmd.transfer("op-3", ALICE, BOB, 100)));

        assertEquals(ResultCode.INSUFFICIENT_FUNDS, results[0].code);
        assertEquals(ResultCode.LINKED_OPERATION_FAILED, results[1].code);
        assertEquals(ResultCode.CAPACITY_EXCEEDED, results[2].code);
        assertEquals(ResultCode.CAPACITY_EXCEEDED, results[3].code);
        assertEquals(business, d.businessDigest());
        assertEquals(keys, d.keysDigest(), "no key stored, none overwritten");
        assertEquals(ResultCode.OK, d.apply(cmd.transfer("after", ALICE, BOB, 10)).code);
    }

    @Test
    void shouldReportLinkedFailureForRetryInsideTheBatchOfAnOperationItRolledBack()
    {
        open();
        final Command pay = cmd.transfer("pay", ALICE, BOB, 300);

        final Result[] results = d.applyBatch(Commands.batch(true,
            pay,
            cmd.resend(pay),
            cmd.transfer("too-much", ALICE, BOB, 5_000)));

        assertEquals(ResultCode.LINKED_OPERATION_FAILED, results[0].code);
        assertTrue(results[1].replayed);
        assertEquals(ResultCode.LINKED_OPERATION_FAILED, results[1].code, "never report a success that was undone");
        assertEquals(0, d.posted(BOB));
        assertReplayOf(results[0], d.apply(cmd.resend(pay)));
    }

    @Test
    void shouldRestoreHoldCapturedInRolledBackBatchEvenWhenTheBatchCreatedAnotherHold()
    {
        open();
        final Result hold = d.apply(cmd.hold("hold", ALICE, 100, 60_000));

        final Command[] batch = Commands.batch(true,
            cmd.capture("capture", hold, BOB, 0),
            cmd.hold("second-hold", ALICE, 50, 60_000),
            cmd.transfer("too-much", ALICE, BOB, 5_000));
        final Result[] results = d.applyBatch(batch);

        assertEquals(ResultCode.INSUFFICIENT_FUNDS, results[2].code);
        assertEquals(1, d.ledger.holds().size());
        assertEquals(100, d.held(ALICE));
        final int slot = d.ledger.holds().find(hold.originIndex);
        assertTrue(slot >= 0, "the captured hold is back");
        assertEquals(ALICE, d.ledger.holds().accountId(slot));
        assertEquals(100, d.ledger.holds().amount(slot));
        assertEquals(-1, d.ledger.holds().find(batch[1].journalIndex), "the batch's own hold is gone");
        assertEquals(ResultCode.OK, d.apply(cmd.voidHold("void", hold)).code);
        assertEquals(0, d.held(ALICE));
    }

    @Test
    void shouldNotCountTransfersOfRolledBackBatch()
    {
        open();
        final long before = d.ledger.transfersPosted();

        d.applyBatch(Commands.batch(true,
            cmd.transfer("op-0", ALICE, BOB, 300),
            cmd.transfer("op-1", ALICE, BOB, 5_000)));

        assertEquals(before, d.ledger.transfersPosted());
    }

    @Test
    void shouldRollBackAtomicBatchCutShortWhenNextUnitStarts()
    {
        open();
        final long business = d.businessDigest();
        final Command[] batch = Commands.batch(true,
            cmd.transfer("op-0", ALICE, BOB, 300),
            cmd.transfer("op-1", ALICE, BOB, 200),
            cmd.transfer("op-2", ALICE, BOB, 100));
        d.apply(batch[0]);
        d.apply(batch[1]);
        assertTrue(d.ledger.isInsideBatch());

        final Result next = d.apply(cmd.tick(0));

        assertEquals(ResultCode.OK, next.code);
        assertFalse(d.ledger.isInsideBatch());
        assertEquals(business, d.businessDigest(), "the part of an atomic batch that was journaled is not kept");
        assertEquals(ResultCode.OK, d.apply(cmd.resend(batch[0])).code, "and its keys are free for the client's retry");
        assertFalse(d.ledger.result(0).replayed);
    }

    @Test
    void shouldSettleAtomicBatchCutShortWhenReplayEndsSoReadsNeverSeeHalfOfIt()
    {
        open();
        final long business = d.businessDigest();
        final Command[] batch = Commands.batch(true,
            cmd.transfer("op-0", ALICE, BOB, 300),
            cmd.transfer("op-1", ALICE, BOB, 200),
            cmd.transfer("op-2", ALICE, BOB, 100));
        d.apply(batch[0]);
        d.apply(batch[1]);

        final boolean rolledBack = d.ledger.endReplay();

        assertTrue(rolledBack, "the caller records the batch's empty unit, so that PostgreSQL's watermark covers it");
        assertTrue(d.ledger.isUnitComplete());
        assertEquals(0, d.ledger.effects().entryCount(), "an empty unit");
        assertFalse(d.ledger.isInsideBatch());
        assertEquals(business, d.businessDigest(), "reads after the replay must not show the journaled half");
        final Result next = d.apply(cmd.tick(0));
        assertEquals(ResultCode.OK, next.code, "the next unit starts normally");
        assertEquals(business, d.businessDigest());
    }

    @Test
    void shouldRollNothingBackWhenReplayEndsBetweenUnitsOrInsideANonAtomicBatch()
    {
        open();
        final Command[] batch = Commands.batch(false,
            cmd.transfer("na-0", ALICE, BOB, 300),
            cmd.transfer("na-1", ALICE, BOB, 200));
        assertFalse(d.ledger.endReplay(), "between units");
        d.apply(batch[0]);

        assertFalse(d.ledger.endReplay(), "each operation of a non-atomic batch is its own unit, already recorded");
    }

    @Test
    void shouldHaltOnOperationPastTheEndOfItsBatch()
    {
        open();
        final Command stray = cmd.transfer("stray", ALICE, BOB, 1);
        stray.batchPosition = 1;

        assertThrows(InvariantViolation.class, () -> d.ledger.apply(stray));
    }

    @Test
    void shouldHaltOnTickInsideBatch()
    {
        open();
        final Command first = cmd.transfer("op-0", ALICE, BOB, 1);
        final Command tick = cmd.tick(0);
        Commands.batch(true, first, tick);
        d.apply(first);

        assertThrows(InvariantViolation.class, () -> d.ledger.apply(tick));
    }

    @Test
    void shouldTreatAtomicBatchOfOneAsSingleCommand()
    {
        open();

        final Result[] results = d.applyBatch(Commands.batch(true, cmd.transfer("only", ALICE, BOB, 5_000)));

        assertEquals(ResultCode.INSUFFICIENT_FUNDS, results[0].code, "no other operation to link to");
    }
}
