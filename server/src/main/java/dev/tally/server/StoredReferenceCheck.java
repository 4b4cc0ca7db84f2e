package dev.tally.server;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.UUID;

import dev.tally.pipeline.ReferenceCheck;
import dev.tally.ledger.command.Command;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.read.LedgerReads;

/**
 * The journaler's {@link ReferenceCheck} against PostgreSQL's {@code transfers}: one query per pipeline batch
 * that holds referenced transfers (none at all for batches without references), on a connection of its own
 * with short timeouts, so that it never waits for the read pool and a hung server costs the journaler at
 * most about {@value #TIMEOUT_SECONDS} s. Used by the journaler thread only; its arrays grow to the largest
 * batch asked about.
 */
final class StoredReferenceCheck implements ReferenceCheck, AutoCloseable
{
    /** Connect, socket and statement timeout of the check's own connection. */
    static final int TIMEOUT_SECONDS = 2;

    private final Database database;
    private Connection connection;
    private long[] tenantIds = new long[64];
    private String[] references = new String[64];
    private UUID[] transferIds = new UUID[64];

    StoredReferenceCheck(final Database database)
    {
        this.database = database;
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
        try
        {
            if (connection == null)
            {
                connection = database.openDedicatedConnection("tally-reference-check", TIMEOUT_SECONDS);
            }
            LedgerReads.takenReferences(connection, tenantIds, references, count, transferIds, TIMEOUT_SECONDS);
        }
        catch (final SQLException ex)
        {
            close(); // reconnect on the next check
            throw ex;
        }
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

    @Override
    public void close()
    {
        if (connection != null)
        {
            try
            {
                connection.close();
            }
            catch (final SQLException ignored)
            {
                // a broken connection: nothing more to release
            }
            connection = null;
        }
    }
}
