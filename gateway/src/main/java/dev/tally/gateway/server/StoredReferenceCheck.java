package dev.tally.gateway.server;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import dev.tally.gateway.pipeline.ReferenceCheck;
import dev.tally.ledger.command.Command;
import dev.tally.persistence.read.LedgerReads;

/**
 * The journaler's {@link ReferenceCheck} against PostgreSQL's {@code transfers}: one query per pipeline batch
 * that holds referenced transfers (none at all for batches without references). Used by the journaler thread
 * only; its arrays grow to the largest batch asked about.
 */
final class StoredReferenceCheck implements ReferenceCheck
{
    /** A stuck query must not hold the journal for long: the journaler retries, then journals without the check. */
    private static final int QUERY_TIMEOUT_SECONDS = 2;

    private final LedgerReads reads;
    private long[] tenantIds = new long[64];
    private String[] references = new String[64];
    private UUID[] transferIds = new UUID[64];

    StoredReferenceCheck(final LedgerReads reads)
    {
        this.reads = reads;
    }

    @Override
    public void markTaken(final Command[] transfers, final int count) throws Exception
    {
        if (count == 0)
        {
            return;
        }
        if (tenantIds.length < count)
        {
            tenantIds = new long[count];
            references = new String[count];
            transferIds = new UUID[count];
        }
        for (int i = 0; i < count; i++)
        {
            tenantIds[i] = transfers[i].tenantId;
            references[i] = new String(transfers[i].reference, 0, transfers[i].referenceLength, StandardCharsets.US_ASCII);
        }
        reads.takenReferences(tenantIds, references, count, transferIds, QUERY_TIMEOUT_SECONDS);
        for (int i = 0; i < count; i++)
        {
            final UUID taken = transferIds[i];
            if (taken != null)
            {
                final Command transfer = transfers[i];
                transfer.referenceTaken = true;
                transfer.targetIdHi = taken.getMostSignificantBits();
                transfer.targetIdLo = taken.getLeastSignificantBits();
            }
        }
    }
}
