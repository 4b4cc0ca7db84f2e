package dev.tally.ledger.cold;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.query.TransferView;
import dev.tally.ledger.transfer.TransferTable;

/**
 * A read of a transfer that memory let go, from the cold index: for a server without a read model, where nothing else
 * holds it. The same checks as a read from memory ({@link dev.tally.ledger.Ledger#readTransfer}): the id's journal index
 * and time, and the tenant. Off the business thread (the thread that owns the {@link ColdSource}); one per thread,
 * allocation-free.
 */
public final class ColdTransferRead
{
    private final long[] record = new long[LedgerLimits.COLD_TRANSFER_LONGS];

    /**
     * Fills {@code out} with the transfer {@code idHi/idLo} of {@code tenantId} if the cold index holds it.
     *
     * @return {@code out}, {@link TransferView#found} saying whether it was.
     * @throws RuntimeException whatever the source throws when it cannot answer.
     */
    public TransferView read(final ColdSource source, final long idHi, final long idLo, final long tenantId, final TransferView out)
    {
        final long index = Uuid7.journalIndex(idHi, idLo);
        out.found = index > 0 && source.findTransfer(index, record) && TransferTable.recordTenant(record) == tenantId &&
            Uuid7.hi(TransferTable.recordTimestampNs(record), Uuid7.KIND_TRANSFER) == idHi && Uuid7.lo(index, 0) == idLo;
        if (out.found)
        {
            TransferTable.recordToView(record, out);
            out.referenceLength = TransferTable.recordReferenceLength(record) == 0 ? 0 : source.findTransferReference(index, out.reference);
        }
        return out;
    }
}
