package dev.tally.pipeline;

import dev.tally.ledger.command.Command;

/**
 * Tells the journaler which transfers carry a reference that a stored transfer already has: references
 * older than the ledger's in-memory window live only in PostgreSQL, under its UNIQUE (tenant, reference).
 *
 * <p>The journaler asks before it journals, and journals the answer on the command
 * ({@link Command#referenceTaken}, the stored transfer's id in {@code targetIdHi/Lo}), so the ledger refuses the
 * transfer with {@code duplicate-reference} instead of the writer meeting the constraint later, and a replay
 * decides exactly as the first run without asking again.
 */
public interface ReferenceCheck
{
    /**
     * Marks each of the first {@code count} commands (transfers with a reference) whose (tenant, reference) a
     * stored transfer carries. Blocking: one round trip for the whole batch.
     *
     * @throws Exception when the store cannot answer; nothing is marked then.
     */
    void markTaken(Command[] transfers, int count) throws Exception;
}
