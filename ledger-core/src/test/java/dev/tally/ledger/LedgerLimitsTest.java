package dev.tally.ledger;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Limits: a full table is a rejection that is not stored, overflow is a rejection, a bad journal halts. */
class LedgerLimitsTest
{
    private static final long FUNDING = 1;
    private static final long ALICE = 2;
    private static final long BOB = 3;
    private static final long RETENTION_MS = 1_000;

    private LedgerDriver d;
    private Commands cmd;

    /** Three accounts and a funding transfer: four keys, one transfer. */
    private void open(final LedgerConfig config)
    {
        d = new LedgerDriver(config.withRetention(RETENTION_MS, RETENTION_MS, RETENTION_MS));
        cmd = d.commands;
        d.apply(cmd.createFundingAccount("open-funding", FUNDING));
        d.apply(cmd.createAccount("open-alice", ALICE));
        d.apply(cmd.createAccount("open-bob", BOB));
        d.apply(cmd.transfer("fund-alice", FUNDING, ALICE, 1_000));
    }

    private static LedgerConfig capacity(final int accounts, final int subBalances, final int keys, final int transfers, final int holds)
    {
        return LedgerDriver.CONFIG.withCapacity(accounts, subBalances, keys, transfers, holds);
    }

    private boolean keyStored(final Command c)
    {
        return d.ledger.idempotencyKeys().find(c.keyHi, c.keyLo) >= 0;
    }

    @Test
    void shouldRejectHoldBeyondCapacityAndAcceptItsRetryOnceAHoldIsVoided()
    {
        open(capacity(100, 100, 100, 100, 2));
        final Result first = d.apply(cmd.hold("hold-1", ALICE, 10, 60_000));
        d.apply(cmd.hold("hold-2", ALICE, 10, 60_000));

        final Command third = cmd.hold("hold-3", ALICE, 10, 60_000);
        assertEquals(ResultCode.CAPACITY_EXCEEDED, d.apply(third).code);
        assertFalse(keyStored(third), "a full table is not a business outcome: not stored");
        assertEquals(20, d.held(ALICE));
        d.apply(cmd.voidHold("void-1", first));

        final Result retry = d.apply(cmd.resend(third));

        assertEquals(ResultCode.OK, retry.code);
        assertFalse(retry.replayed);
        assertEquals(20, d.held(ALICE));
    }

    @Test
    void shouldRejectCommandWhenKeyTableIsFullAndAcceptItsRetryOnceKeysExpire()
    {
        open(capacity(100, 100, 5, 100, 100));
        assertEquals(ResultCode.OK, d.apply(cmd.transfer("pay-1", ALICE, BOB, 10)).code);

        final Command second = cmd.transfer("pay-2", ALICE, BOB, 10);
        assertEquals(ResultCode.CAPACITY_EXCEEDED, d.apply(second).code);
        assertEquals(10, d.posted(BOB));
        d.apply(cmd.tick(RETENTION_MS));
        assertEquals(0, d.ledger.idempotencyKeys().size());

        assertEquals(ResultCode.OK, d.apply(cmd.resend(second)).code);
        assertEquals(20, d.posted(BOB));
    }

    @Test
    void shouldRejectTransferWhenTransferTableIsFullUntilTheReversalWindowFreesIt()
    {
        open(capacity(100, 100, 100, 2, 100));
        assertEquals(ResultCode.OK, d.apply(cmd.transfer("pay-1", ALICE, BOB, 10)).code);

        final Command second = cmd.transfer("pay-2", ALICE, BOB, 10);
        assertEquals(ResultCode.CAPACITY_EXCEEDED, d.apply(second).code);
        d.apply(cmd.tick(RETENTION_MS));

        assertEquals(ResultCode.OK, d.apply(cmd.resend(second)).code);
        assertEquals(20, d.posted(BOB));
    }

    @Test
    void shouldRejectAccountsBeyondAccountOrSubBalanceCapacity()
    {
        open(capacity(4, 10, 100, 100, 100));

        assertEquals(ResultCode.CAPACITY_EXCEEDED, d.apply(cmd.createHotAccount("too-many-subs", 10, 8)).code);
        assertEquals(ResultCode.OK, d.apply(cmd.createHotAccount("fits", 10, 7)).code);
        assertEquals(ResultCode.CAPACITY_EXCEEDED, d.apply(cmd.createAccount("fifth", 11)).code);
        assertEquals(4, d.ledger.accounts().count());
        assertEquals(10, d.ledger.accounts().subBalanceCount());
    }

    @Test
    void shouldRejectCreditThatWouldOverflow()
    {
        open(LedgerDriver.CONFIG);
        d.apply(cmd.createFundingAccount("open-second-funding", 5));
        assertEquals(ResultCode.OK, d.apply(cmd.transfer("to-the-top", 5, BOB, Long.MAX_VALUE)).code);

        final Result overflow = d.apply(cmd.transfer("one-more", ALICE, BOB, 1));

        assertEquals(ResultCode.AMOUNT_OVERFLOW, overflow.code);
        assertEquals(Long.MAX_VALUE, d.posted(BOB));
        assertEquals(1_000, d.posted(ALICE));
    }

    @Test
    void shouldRejectDebitThatWouldTakeFundingAccountPastTheSmallestBalance()
    {
        open(LedgerDriver.CONFIG);
        d.apply(cmd.createAccount("open-carol", 4));
        d.apply(cmd.transfer("drain", FUNDING, 4, Long.MAX_VALUE - 1_000));
        assertEquals(-Long.MAX_VALUE, d.posted(FUNDING));

        assertEquals(ResultCode.AMOUNT_OVERFLOW, d.apply(cmd.transfer("past-min", FUNDING, BOB, 2)).code);
        assertEquals(ResultCode.OK, d.apply(cmd.transfer("to-min", FUNDING, BOB, 1)).code);
        assertEquals(Long.MIN_VALUE, d.posted(FUNDING));
    }

    @Test
    void shouldHaltWhenJournalIndexGoesBackwardsOrRepeats()
    {
        open(LedgerDriver.CONFIG);
        final Command earlier = cmd.transfer("pay-1", ALICE, BOB, 10);
        d.apply(earlier);
        d.apply(cmd.transfer("pay-2", ALICE, BOB, 10));
        final long hash = d.ledger.stateHash();

        assertThrows(InvariantViolation.class, () -> d.ledger.apply(earlier));
        final Command repeated = cmd.transfer("pay-3", ALICE, BOB, 10);
        repeated.journalIndex = d.ledger.lastJournalIndex();
        assertThrows(InvariantViolation.class, () -> d.ledger.apply(repeated));

        assertEquals(hash, d.ledger.stateHash(), "nothing applied");
    }

    @Test
    void shouldHaltWhenJournaledTimeGoesBackwards()
    {
        open(LedgerDriver.CONFIG);
        final long hash = d.ledger.stateHash();
        final Command late = cmd.transfer("pay-1", ALICE, BOB, 10);
        late.timestampNs = d.ledger.nowNs() - 1;

        assertThrows(InvariantViolation.class, () -> d.ledger.apply(late));
        assertEquals(hash, d.ledger.stateHash());
    }

    @Test
    void shouldHaltOnFirstCommandOfAnEmptyJournalWithIndexZero()
    {
        final Ledger ledger = new Ledger(LedgerDriver.CONFIG);
        final Command c = new Commands().createAccount("open", 1);
        c.journalIndex = 0;

        assertThrows(InvariantViolation.class, () -> ledger.apply(c));
        assertEquals(0, ledger.commandsApplied());
    }
}
