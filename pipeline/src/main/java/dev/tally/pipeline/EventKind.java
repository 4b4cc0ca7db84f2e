package dev.tally.pipeline;

/** What a ring slot carries. Only {@link #COMMAND} is journaled. */
public enum EventKind
{
    /** A state-changing command (or one operation of a batch, or a tick): journaled, then applied. */
    COMMAND,
    /** A read of one account, answered by the business thread from memory. Not journaled. */
    READ_ACCOUNT,
    /** A read of one transfer, answered by the business thread from memory. Not journaled. */
    READ_TRANSFER,
    /**
     * A read PostgreSQL answers (a page of an account's entries, a listing, an account at a past point, a statement): it
     * travels through the ring so that the responder holds its place in the connection's reply order when it hands it to
     * the read pool, and so that the business thread stamps how far it had applied ({@code readAsOfJournalIndex}), which
     * the read waits for the read model to reach. Not journaled, not applied.
     */
    READ_ENTRIES,
    /**
     * A reply the I/O thread already rendered (a validation error, 401, 404): it travels through the ring
     * only so that the responder writes it in request order behind earlier requests of the same
     * connection (HTTP/1.1 pipelining). Not journaled, not applied.
     */
    IMMEDIATE_REPLY,
    /**
     * Nothing but a batch end for the journaler, published every half force interval under {@code async}, so
     * that its timed force runs when appends stop as well (otherwise it would wait for the next tick, 1 s by
     * default). Not journaled, not applied, no reply.
     */
    FORCE_CHECK
}
