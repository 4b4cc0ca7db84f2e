package dev.tally.ledger;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.query.TransferView;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reads the business thread answers for the API's lookups ({@link Ledger#readTransfer} with {@link TransferView#lookup}):
 * a transfer by its reference's digest, a live hold by id, each only for its tenant, each stamped with the journal
 * index the ledger had applied.
 */
class LedgerLookupTest
{
    private static final long FUNDING = 1;
    private static final long ALICE = 2;
    private static final long BOB = 3;
    private static final long REVERSAL_WINDOW_MS = 10_000;

    private final LedgerDriver d = new LedgerDriver(LedgerDriver.CONFIG.withRetention(LedgerConfig.DAY_MS, LedgerConfig.DAY_MS, REVERSAL_WINDOW_MS));
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
    void shouldFindTheTenantsTransferByTheDigestOfItsReference()
    {
        final Command paying = cmd.transfer("pay-1", ALICE, BOB, 700, "INV-42");
        final Result paid = d.apply(paying);
        d.apply(cmd.transfer("pay-2", ALICE, BOB, 1, "INV-43"));

        final TransferView view = byReference(paying.referenceHi, paying.referenceLo, 1);

        assertTrue(view.found);
        assertEquals(paid.originIndex, view.journalIndex);
        assertEquals(paid.originTimestampNs, view.timestampNs);
        assertEquals(700, view.amountMinor);
        assertEquals("INV-42", view.referenceText());
        assertEquals(d.ledger.lastJournalIndex(), view.asOfJournalIndex);
        assertFalse(view.referenceResolved);
    }

    @Test
    void shouldNotFindAReferenceNoTransferOfTheTenantHolds()
    {
        final Command paying = cmd.transfer("pay-1", ALICE, BOB, 700, "INV-42");
        d.apply(paying);
        cmd.tenant(2);
        final Command sameTextOtherTenant = cmd.transfer("pay-x", 20, 21, 1, "INV-42");
        final Command unused = cmd.transfer("pay-y", 20, 21, 1, "INV-99");

        for (final Command asked : new Command[] {sameTextOtherTenant, unused})
        {
            final TransferView view = byReference(asked.referenceHi, asked.referenceLo, 2);
            assertFalse(view.found);
            assertFalse(view.referenceResolved, "nothing to read elsewhere by id");
            assertEquals(d.ledger.lastJournalIndex(), view.asOfJournalIndex);
        }
    }

    @Test
    void shouldGiveTheIdOfAReferencesTransferThatLeftMemory()
    {
        final Command paying = cmd.transfer("pay-1", ALICE, BOB, 700, "INV-42");
        final Result paid = d.apply(paying);
        d.apply(cmd.tick(REVERSAL_WINDOW_MS));
        final TransferView byId = read(Commands.transferIdHi(paid), Commands.transferIdLo(paid), 1, TransferView.BY_ID);
        assertFalse(byId.found, "past the reversal window the transfer left memory");

        final TransferView view = byReference(paying.referenceHi, paying.referenceLo, 1);

        assertFalse(view.found);
        assertTrue(view.referenceResolved, "the reference stays for good");
        assertEquals(paid.originIndex, view.journalIndex);
        assertEquals(paid.originTimestampNs, view.timestampNs);
    }

    @Test
    void shouldReadALiveHoldOfTheTenantAndNoEndedOne()
    {
        final Result hold = d.apply(cmd.hold("hold-1", ALICE, 300, 60_000));
        final long hi = Commands.holdIdHi(hold);
        final long lo = Commands.holdIdLo(hold);

        final TransferView live = read(hi, lo, 1, TransferView.HOLD_BY_ID);
        assertFalse(live.found, "a hold read fills the hold, never a transfer");
        assertTrue(live.hold.found);
        assertEquals(hold.originIndex, live.hold.journalIndex);
        assertEquals(hold.originTimestampNs, live.hold.timestampNs);
        assertEquals(ALICE, live.hold.accountId);
        assertEquals(300, live.hold.amountMinor);
        assertEquals(hold.originTimestampNs + 60_000_000_000L, live.hold.deadlineNs);
        assertFalse(live.hold.unknown);

        assertFalse(read(hi, lo, 2, TransferView.HOLD_BY_ID).hold.found, "another tenant's");
        assertFalse(read(hi, lo, 1, TransferView.BY_ID).found, "a hold's id is no transfer's");
        final Result paid = d.apply(cmd.transfer("pay-1", ALICE, BOB, 1));
        assertFalse(read(Commands.transferIdHi(paid), Commands.transferIdLo(paid), 1, TransferView.HOLD_BY_ID).hold.found,
            "a transfer's id is no hold's");

        assertEquals(ResultCode.OK, d.apply(cmd.markUnknown("unknown-1", hold)).code);
        assertTrue(read(hi, lo, 1, TransferView.HOLD_BY_ID).hold.unknown);

        assertEquals(ResultCode.OK, d.apply(cmd.capture("capture-1", hold, BOB, 100)).code);
        final TransferView ended = read(hi, lo, 1, TransferView.HOLD_BY_ID);
        assertFalse(ended.hold.found, "memory keeps live holds only");
        assertEquals(d.ledger.lastJournalIndex(), ended.asOfJournalIndex, "the read model must reach the capture");
    }

    @Test
    void shouldReadByIdWhenAReusedViewLastAskedForAHold()
    {
        final Result paid = d.apply(cmd.transfer("pay-1", ALICE, BOB, 700));
        final TransferView view = new TransferView();
        view.lookup = TransferView.HOLD_BY_ID;
        d.ledger.readTransfer(1, 1, 1, view);
        view.lookup = TransferView.BY_ID;

        d.ledger.readTransfer(Commands.transferIdHi(paid), Commands.transferIdLo(paid), 1, view);

        assertTrue(view.found);
        assertFalse(view.hold.found);
        assertFalse(view.referenceResolved);
    }

    private TransferView byReference(final long digestHi, final long digestLo, final long tenantId)
    {
        return read(digestHi, digestLo, tenantId, TransferView.BY_REFERENCE);
    }

    private TransferView read(final long hi, final long lo, final long tenantId, final int lookup)
    {
        final TransferView view = new TransferView();
        view.lookup = lookup;
        return d.ledger.readTransfer(hi, lo, tenantId, view);
    }
}
