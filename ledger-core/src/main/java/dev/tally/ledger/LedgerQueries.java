package dev.tally.ledger;

import dev.tally.ledger.account.Accounts;
import dev.tally.ledger.hold.HoldTable;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.query.AccountVisitor;
import dev.tally.ledger.query.HoldView;
import dev.tally.ledger.query.HoldVisitor;
import dev.tally.ledger.query.TransferView;
import dev.tally.ledger.transfer.ReferenceTable;
import dev.tally.ledger.transfer.TransferTable;

/**
 * Reads of the ledger's state into views ({@link AccountView}, {@link TransferView}, {@link HoldView}), which is how
 * everything outside the ledger core sees it: the business thread answers the API's reads with
 * {@link #readAccount} and {@link #readTransfer} (allocation-free, into the ring slot's views); tools that hold a
 * ledger no command is being applied to walk it with {@link #forEachAccount}, {@link #forEachLiveHold} and
 * {@link #readTransferAt}. Changes nothing.
 */
final class LedgerQueries
{
    private final LedgerState state;
    private final Accounts accounts;
    private final TransferTable transfers;
    private final ReferenceTable references;
    private final HoldTable holds;

    LedgerQueries(final LedgerState state)
    {
        this.state = state;
        accounts = state.accounts;
        transfers = state.transfers;
        references = state.references;
        holds = state.holds;
    }

    /** @see Ledger#readAccount */
    AccountView readAccount(final long accountId, final long tenantId, final AccountView out)
    {
        final int slot = accounts.slotOf(accountId, tenantId);
        out.found = slot >= 0;
        out.asOfJournalIndex = state.lastJournalIndex;
        return slot < 0 ? out : copyAccount(slot, out);
    }

    /** @see Ledger#forEachAccount */
    void forEachAccount(final AccountVisitor visitor)
    {
        final AccountView view = new AccountView();
        view.found = true;
        for (int slot = 0; slot < accounts.count(); slot++)
        {
            visitor.visit(copyAccount(slot, view));
        }
    }

    private AccountView copyAccount(final int slot, final AccountView out)
    {
        out.accountId = accounts.id(slot);
        out.tenantId = accounts.tenant(slot);
        out.currency = accounts.currency(slot);
        out.subBalances = accounts.subCount(slot);
        out.debitsMustNotExceedCredits = accounts.isConstrained(slot);
        out.overdraftLimitMinor = accounts.overdraftLimit(slot);
        out.status = accounts.status(slot);
        out.hasMetadata = accounts.hasMetadata(slot);
        out.lowBalanceAlertState = accounts.lowBalanceAlertState(slot);
        out.lowBalanceThresholdMinor = accounts.lowBalanceThreshold(slot);
        out.createdNs = accounts.createdNs(slot);
        for (int i = 0; i < out.subBalances; i++)
        {
            out.postedMinor[i] = accounts.subPosted(slot, i);
            out.heldMinor[i] = accounts.subHeld(slot, i);
        }
        return out;
    }

    /** @see Ledger#forEachLiveHold */
    void forEachLiveHold(final HoldVisitor visitor)
    {
        final HoldView view = new HoldView();
        view.found = true;
        holds.forEachLive(slot -> visitor.visit(copyHold(slot, view)));
    }

    private HoldView copyHold(final int slot, final HoldView out)
    {
        out.journalIndex = holds.journalIndex(slot);
        out.timestampNs = holds.timestampNs(slot);
        out.tenantId = holds.tenant(slot);
        out.accountId = holds.accountId(slot);
        out.amountMinor = holds.amount(slot);
        out.currency = holds.currency(slot);
        out.deadlineNs = holds.deadlineNs(slot);
        out.unknown = holds.status(slot) == HoldTable.UNKNOWN;
        return out;
    }

    /** @see Ledger#readTransfer */
    TransferView readTransfer(final long idHi, final long idLo, final long tenantId, final TransferView out)
    {
        out.asOfJournalIndex = state.lastJournalIndex;
        out.referenceResolved = false;
        out.hold.found = false;
        switch (out.lookup)
        {
            case TransferView.BY_REFERENCE:
                return readTransferByReference(idHi, idLo, tenantId, out);
            case TransferView.HOLD_BY_ID:
                out.found = false;
                readHold(idHi, idLo, tenantId, out.hold);
                return out;
            default:
                return readTransferById(idHi, idLo, tenantId, out);
        }
    }

    /** The reference's digest covers the tenant, so another tenant's reference is never found; the tenant is checked anyway. */
    private TransferView readTransferByReference(final long digestHi, final long digestLo, final long tenantId, final TransferView out)
    {
        final long index = references.find(digestHi, digestLo);
        if (index < 0)
        {
            out.found = false;
            return out;
        }
        final long timestampNs = references.findTimestampNs(digestHi, digestLo);
        readTransferById(Uuid7.hi(timestampNs, Uuid7.KIND_TRANSFER), Uuid7.lo(index, 0), tenantId, out);
        if (!out.found)
        {
            out.referenceResolved = true;
            out.journalIndex = index;
            out.timestampNs = timestampNs;
        }
        return out;
    }

    private void readHold(final long idHi, final long idLo, final long tenantId, final HoldView out)
    {
        final long index = Uuid7.journalIndex(idHi, idLo);
        final int slot = index < 0 ? -1 : holds.find(index);
        out.found = slot >= 0 && holds.tenant(slot) == tenantId &&
            Uuid7.hi(holds.timestampNs(slot), Uuid7.KIND_HOLD) == idHi && Uuid7.lo(index, 0) == idLo;
        if (out.found)
        {
            copyHold(slot, out);
        }
    }

    private TransferView readTransferById(final long idHi, final long idLo, final long tenantId, final TransferView out)
    {
        final long index = Uuid7.journalIndex(idHi, idLo);
        final int position = index < 0 ? -1 : transfers.find(index);
        out.found = position >= 0 && transfers.tenant(position) == tenantId &&
            Uuid7.hi(transfers.timestampNs(position), Uuid7.KIND_TRANSFER) == idHi && Uuid7.lo(index, 0) == idLo;
        return out.found ? copyTransfer(position, out) : out;
    }

    /** @see Ledger#readTransferAt */
    TransferView readTransferAt(final long journalIndex, final TransferView out)
    {
        final int position = transfers.find(journalIndex);
        out.found = position >= 0;
        return out.found ? copyTransfer(position, out) : out;
    }

    private TransferView copyTransfer(final int position, final TransferView out)
    {
        out.journalIndex = transfers.journalIndex(position);
        out.timestampNs = transfers.timestampNs(position);
        out.tenantId = transfers.tenant(position);
        out.kind = transfers.kind(position);
        out.debitAccountId = transfers.debitAccountId(position);
        out.creditAccountId = transfers.creditAccountId(position);
        out.amountMinor = transfers.amount(position);
        out.reversedMinor = transfers.reversed(position);
        out.currency = transfers.currency(position);
        out.reversesIndex = transfers.reversesIndex(position);
        out.reversesTimestampNs = transfers.reversesTimestampNs(position);
        out.referenceLength = transfers.copyReference(position, out.reference);
        out.hasMetadata = transfers.hasMetadata(position);
        return out;
    }
}
