package dev.tally.ledger;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static dev.tally.ledger.ResultAssertions.assertReplayOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The idempotency contract of SPEC.md section 4, at core level. */
class LedgerIdempotencyTest
{
    private static final long FUNDING = 1;
    private static final long ALICE = 2;
    private static final long BOB = 3;
    private static final long KEY_RETENTION_MS = 60_000;

    private final LedgerDriver d = new LedgerDriver(LedgerDriver.CONFIG.withRetention(KEY_RETENTION_MS, LedgerConfig.DAY_MS, LedgerConfig.DAY_MS));
    private final Commands cmd = d.commands;

    @BeforeEach
    void openAccounts()
    {
        d.apply(cmd.createFundingAccount("open-funding", FUNDING));
        d.apply(cmd.createAccount("open-alice", ALICE));
        d.apply(cmd.createAccount("open-bob", BOB));
        assertEquals(ResultCode.OK, d.apply(cmd.transfer("fund-alice", FUNDING, ALICE, 10_000)).code);
    }

    @Test
    void shouldApplyKeyOnceWhenTheSameRequestArrivesHundredTimes()
    {
        final Command pay = cmd.transfer("pay-1", ALICE, BOB, 700);
        final Result first = d.apply(pay);
        assertEquals(ResultCode.OK, first.code);
        assertFalse(first.replayed);
        assertEquals(2, d.entryCount());
        assertEquals(1, d.eventCount());
        final int transfers = d.ledger.transfers().size();

        for (int i = 1; i < 100; i++)
        {
            final Result again = d.apply(cmd.resend(pay));
            assertReplayOf(first, again);
            assertEquals(0, d.entryCount(), "a replay posts nothing");
            assertEquals(0, d.eventCount(), "a replay emits nothing");
        }

        assertEquals(10_000 - 700, d.posted(ALICE));
        assertEquals(700, d.posted(BOB));
        assertEquals(transfers, d.ledger.transfers().size());
        assertEquals(2, d.ledger.transfersPosted(), "the funding transfer and one payment");
    }

    @Test
    void shouldRejectSameKeyWithDifferentPayloadAndKeepFirstResultIntact()
    {
        final Command pay = cmd.transfer("pay-1", ALICE, BOB, 700);
        final Result first = d.apply(pay);
        final long business = d.businessDigest();
        final long keys = d.keysDigest();

        final Result reused = d.apply(cmd.reuse(pay, 900));

        assertEquals(ResultCode.KEY_REUSED, reused.code);
        assertFalse(reused.replayed);
        assertEquals(0, d.entryCount());
        assertEquals(business, d.businessDigest(), "nothing applied");
        assertEquals(keys, d.keysDigest(), "first result untouched");
        assertEquals(10_000 - 700, d.posted(ALICE));
        assertReplayOf(first, d.apply(cmd.resend(pay)));
    }

    @Test
    void shouldReplayStoredRejectionEvenAfterFundsArrive()
    {
        final Command pay = cmd.transfer("bob-pays", BOB, ALICE, 50);
        final Result first = d.apply(pay);
        assertEquals(ResultCode.INSUFFICIENT_FUNDS, first.code);
        d.apply(cmd.transfer("fund-bob", FUNDING, BOB, 100));

        assertReplayOf(first, d.apply(cmd.resend(pay)));
        assertEquals(100, d.posted(BOB), "the stored rejection is not evaluated again");
        assertEquals(ResultCode.OK, d.apply(cmd.transfer("bob-pays-again", BOB, ALICE, 50)).code);
    }

    @Test
    void shouldNotStoreInvalidCommandSoItsKeyStaysFree()
    {
        final Command invalid = cmd.transfer("pay-zero", ALICE, BOB, 0);
        assertEquals(ResultCode.INVALID_COMMAND, d.apply(invalid).code);
        assertTrue(d.ledger.idempotencyKeys().find(invalid.keyHi, invalid.keyLo) < 0);

        final Result fixed = d.apply(cmd.reuse(invalid, 25));

        assertEquals(ResultCode.OK, fixed.code);
        assertFalse(fixed.replayed);
        assertEquals(25, d.posted(BOB));
    }

    @Test
    void shouldScopeKeysPerTenant()
    {
        cmd.tenant(2);
        d.apply(cmd.createFundingAccount("open-funding", 20));
        d.apply(cmd.createAccount("open-carol", 21));
        final Result otherTenant = d.apply(cmd.transfer("pay-1", 20, 21, 5));
        cmd.tenant(1);
        final Result sameKeyTenantOne = d.apply(cmd.transfer("pay-1", ALICE, BOB, 5));

        assertEquals(ResultCode.OK, otherTenant.code);
        assertEquals(ResultCode.OK, sameKeyTenantOne.code);
        assertFalse(sameKeyTenantOne.replayed);
        assertEquals(5, d.posted(BOB));
        assertEquals(5, d.posted(21));
    }

    @Test
    void shouldApplyKeyAfreshOnlyOnceRetentionWindowHasPassed()
    {
        final Command pay = cmd.transfer("pay-1", ALICE, BOB, 700);
        final long storedAtNs = cmd.nowNs();
        d.apply(pay);

        d.apply(cmd.tick(KEY_RETENTION_MS - 2));
        assertEquals(storedAtNs + (KEY_RETENTION_MS - 1) * 1_000_000L, cmd.nowNs());
        assertTrue(d.ledger.idempotencyKeys().find(pay.keyHi, pay.keyLo) >= 0, "one millisecond before the window ends");
        d.apply(cmd.tick(0));
        assertEquals(storedAtNs + KEY_RETENTION_MS * 1_000_000L, cmd.nowNs());
        assertTrue(d.ledger.idempotencyKeys().find(pay.keyHi, pay.keyLo) < 0, "purged when the window ends");

        final Result afresh = d.apply(cmd.resend(pay));

        assertEquals(ResultCode.OK, afresh.code);
        assertFalse(afresh.replayed);
        assertEquals(1_400, d.posted(BOB), "past retention the key is a new request");
    }

    @Test
    void shouldReplayWithinRetentionWindow()
    {
        final Command pay = cmd.transfer("pay-1", ALICE, BOB, 700);
        final Result first = d.apply(pay);
        d.apply(cmd.tick(KEY_RETENTION_MS / 2));

        assertReplayOf(first, d.apply(cmd.resend(pay)));
        assertEquals(700, d.posted(BOB));
    }

    @Test
    void shouldStillCatchDuplicateReferenceAfterItsKeyExpired()
    {
        final Command pay = cmd.transfer("pay-1", ALICE, BOB, 700, "INV-7");
        final Result first = d.apply(pay);
        d.apply(cmd.tick(KEY_RETENTION_MS));

        final Result retry = d.apply(cmd.resend(pay));

        assertEquals(ResultCode.DUPLICATE_REFERENCE, retry.code, "the reference is the second line of defence");
        assertEquals(first.originIndex, retry.extra);
        assertEquals(700, d.posted(BOB));
    }
}
