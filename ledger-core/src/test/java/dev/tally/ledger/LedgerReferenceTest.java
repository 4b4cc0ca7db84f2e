package dev.tally.ledger;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static dev.tally.ledger.ResultAssertions.assertReplayOf;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** References are unique per tenant: the second line of defence behind idempotency keys. */
class LedgerReferenceTest
{
    private static final long FUNDING = 1;
    private static final long ALICE = 2;
    private static final long BOB = 3;
    private static final long REFERENCE_RETENTION_MS = 120_000;

    private final LedgerDriver d = new LedgerDriver(LedgerDriver.CONFIG.withRetention(60_000, REFERENCE_RETENTION_MS, LedgerConfig.DAY_MS));
    private final Commands cmd = d.commands;

    @BeforeEach
    void openAccounts()
    {
        d.apply(cmd.createFundingAccount("open-funding", FUNDING));
        d.apply(cmd.createAccount("open-alice", ALICE));
        d.apply(cmd.createAccount("open-bob", BOB));
        d.apply(cmd.transfer("fund-alice", FUNDING, ALICE, 10_000));
    }

    @Test
    void shouldRejectDuplicateReferenceWithNewKeyNamingTheFirstTransfer()
    {
        final Result first = d.apply(cmd.transfer("pay-1", ALICE, BOB, 700, "INV-42"));
        final long business = d.businessDigest();

        final Command second = cmd.transfer("pay-2", ALICE, BOB, 700, "INV-42");
        final Result duplicate = d.apply(second);

        assertEquals(ResultCode.DUPLICATE_REFERENCE, duplicate.code);
        assertEquals(first.originIndex, duplicate.extra, "names the first transfer's journal index");
        assertEquals(first.originTimestampNs, duplicate.extraTimestampNs, "and its time, so its id can be rebuilt");
        assertEquals(business, d.businessDigest());
        assertEquals(700, d.posted(BOB));
        assertReplayOf(duplicate, d.apply(cmd.resend(second)));
    }

    @Test
    void shouldAcceptSameReferenceInAnotherTenant()
    {
        d.apply(cmd.transfer("pay-1", ALICE, BOB, 700, "INV-42"));
        cmd.tenant(2);
        d.apply(cmd.createFundingAccount("open-funding", 20));
        d.apply(cmd.createAccount("open-carol", 21));

        assertEquals(ResultCode.OK, d.apply(cmd.transfer("pay-1", 20, 21, 700, "INV-42")).code);
    }

    @Test
    void shouldLetAReferenceLeaveMemoryPastItsWindowOnlyOnceTheColdIndexHoldsIt()
    {
        final Result first = d.apply(cmd.transfer("pay-1", ALICE, BOB, 700, "INV-42"));
        d.apply(cmd.tick(REFERENCE_RETENTION_MS - 2));
        assertEquals(1, d.ledger.references().size(), "one millisecond before the window ends");

        final Command pastWindow = cmd.tick(0);
        pastWindow.coldWatermark = first.originIndex - 1;
        d.apply(pastWindow);
        assertEquals(1, d.ledger.references().size(), "past its window, but the cold index does not hold it yet");

        final Command filed = cmd.tick(0);
        filed.coldWatermark = first.originIndex;
        d.apply(filed);
        assertEquals(0, d.ledger.references().size(), "the cold index holds it: memory lets it go");
    }

    @Test
    void shouldRejectAnOlderReferenceTheJournalStageFoundInTheColdIndex()
    {
        final Result first = d.apply(cmd.transfer("pay-1", ALICE, BOB, 700, "INV-42"));
        final Command tick = cmd.tick(REFERENCE_RETENTION_MS);
        tick.coldWatermark = first.originIndex;
        d.apply(tick);
        assertEquals(0, d.ledger.references().size(), "the ledger no longer remembers it");
        final long business = d.businessDigest();

        final Command reused = cmd.transfer("pay-2", ALICE, BOB, 700, "INV-42");
        reused.referenceTaken = true; // what the journal stage journals when the cold index has the reference
        reused.targetIdHi = Uuid7.hi(first.originTimestampNs, Uuid7.KIND_TRANSFER);
        reused.targetIdLo = Uuid7.lo(first.originIndex, 0);
        final Result duplicate = d.apply(reused);

        assertEquals(ResultCode.DUPLICATE_REFERENCE, duplicate.code);
        assertEquals(first.originIndex, duplicate.extra, "names the first transfer's journal index");
        assertEquals(Uuid7.hi(first.originTimestampNs, Uuid7.KIND_TRANSFER), Uuid7.hi(duplicate.extraTimestampNs, Uuid7.KIND_TRANSFER),
            "and a time that rebuilds the first transfer's id");
        assertEquals(business, d.businessDigest(), "nothing moved");
        assertEquals(700, d.posted(BOB));
        assertReplayOf(duplicate, d.apply(cmd.resend(reused)));
    }

    @Test
    void shouldPreferTheReferenceItRemembersOverTheJournalersFinding()
    {
        final Result first = d.apply(cmd.transfer("pay-1", ALICE, BOB, 700, "INV-42"));
        final Command reused = cmd.transfer("pay-2", ALICE, BOB, 700, "INV-42");
        reused.referenceTaken = true;
        reused.targetIdHi = Uuid7.hi(1_000_000L, Uuid7.KIND_TRANSFER);
        reused.targetIdLo = Uuid7.lo(1, 0);

        final Result duplicate = d.apply(reused);

        assertEquals(ResultCode.DUPLICATE_REFERENCE, duplicate.code);
        assertEquals(first.originIndex, duplicate.extra);
        assertEquals(first.originTimestampNs, duplicate.extraTimestampNs);
    }

    @Test
    void shouldRefuseAnUncheckedReferenceForNowUnlessItRemembersItTaken()
    {
        final Result first = d.apply(cmd.transfer("pay-1", ALICE, BOB, 700, "INV-42"));
        final Command remembered = cmd.transfer("pay-2", ALICE, BOB, 700, "INV-42");
        remembered.referenceUnchecked = true;
        final Result duplicate = d.apply(remembered);
        assertEquals(ResultCode.DUPLICATE_REFERENCE, duplicate.code, "what the ledger remembers needs no store");
        assertEquals(first.originIndex, duplicate.extra);

        final long business = d.businessDigest();
        final Command unchecked = cmd.transfer("pay-3", ALICE, BOB, 700, "INV-43");
        unchecked.referenceUnchecked = true;
        assertEquals(ResultCode.REFERENCE_CHECK_UNAVAILABLE, d.apply(unchecked).code);
        assertEquals(business, d.businessDigest(), "nothing moved");

        final Command retried = cmd.resend(unchecked);
        retried.referenceUnchecked = false; // the store answered this time
        assertEquals(ResultCode.OK, d.apply(retried).code, "not stored: the retry is decided afresh");
    }

    @Test
    void shouldNotTakeReferenceWhenTransferIsRejected()
    {
        assertEquals(ResultCode.INSUFFICIENT_FUNDS, d.apply(cmd.transfer("pay-1", BOB, ALICE, 5, "INV-9")).code);

        assertEquals(ResultCode.OK, d.apply(cmd.transfer("pay-2", ALICE, BOB, 5, "INV-9")).code);
    }
}
