package dev.tally.journal;

import dev.tally.ledger.command.Command;

/**
 * What the pipeline's journal stage needs of the log it writes commands to: stamp each command with the next index and a
 * monotonic time, stage it, append a batch as one unit, and make it as durable as the mode promises. The Chronicle Queue
 * journal ({@link Journal}) is today's log; a replicated one (the same commands agreed by a consensus group before the
 * business thread applies them) can take its place without the stages changing. Used by one thread.
 */
public interface CommandLog
{
    /**
     * Stamps {@code command} (index = last + 1, time = max({@code clockNs}, last time)) and keeps it for the next
     * {@link #appendStaged()}.
     *
     * @return the index given.
     */
    long stampAndStage(Command command, long clockNs);

    /** @return the index the next {@link #stampAndStage} gives. */
    long nextIndex();

    /** @return true when the next append may have no room for another command: {@link #appendStaged()} first. */
    boolean stagingFull();

    /** Appends every command staged since the last call as one unit; none of them is in the log if this throws. */
    void appendStaged();

    /** Ends a batch: makes what was appended as durable as {@link #durability()} promises (the group commit). */
    void endOfBatch();

    /** @return what an append promises. */
    Durability durability();

    /** @return under {@link Durability#ASYNC}, how often at most the log is forced; 0: never. */
    long asyncForceIntervalMs();
}
