package dev.tally.pipeline;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.query.TransferView;
import dev.tally.ledger.result.Result;

/**
 * One pre-allocated slot of the input ring. Each field has one writer, in pipeline order:
 *
 * <pre>
 *  field                 written by             read by
 *  kind, command (body)  gateway I/O thread     journaler, business thread, responder
 *  command index/time    journaler              business thread, responder
 *  command reference*,   journaler (transfers   business thread (the reference check's answer:
 *    targetId (TRANSFER)   with a reference)      referenceTaken, referenceUnchecked, the stored id)
 *  result, views,        business thread        responder
 *    readAsOfJournalIndex
 *  replyTo, keepAlive,   gateway I/O thread     responder (a batch: on its last slot only)
 *    batchReply,
 *    requestId
 *  immediateReply        gateway I/O thread     responder (IMMEDIATE_REPLY only)
 *  journalFailed         journaler, business    business thread, responder
 *  journaledNotApplied   business thread        responder
 *  notDurable            journaler (its force   responder (the business thread may still be applying the
 *                          failed)                slot meanwhile: it never reads this field)
 * </pre>
 *
 * The responder clears the reply fields at the end of the chain so the slot holds no reference to a
 * closed connection, nor to a request id.
 */
public final class LedgerEvent
{
    public EventKind kind = EventKind.COMMAND;
    public final Command command = new Command();
    public final Result result = new Result();
    public final AccountView accountView = new AccountView();
    public final TransferView transferView = new TransferView();
    /** READ_ACCOUNT, READ_ENTRIES: the account; READ_TRANSFER: the id halves in command.targetIdHi/Lo. */
    public long readAccountId;
    /** READ_ENTRIES: the request's query string (limit, after), already checked by the I/O thread. */
    public String readQuery;
    /**
     * READ_ENTRIES: the last journal index the business thread had applied when it reached the read. Every write
     * acknowledged before the request arrived is at or below it, so the read model answers once its writer's watermark
     * is there (read-your-writes), as {@code TransferView.asOfJournalIndex} does for lookups.
     */
    public long readAsOfJournalIndex;
    /** For metrics: the route index and {@link System#nanoTime()} when the I/O thread received the request. */
    public int routeIndex = -1;
    public long receivedNs;
    /** Where the reply goes; null for commands nobody waits for (ticks). */
    public ReplyTarget replyTo;
    /** The reply's {@code Request-Id} header value: the client's own, or one the gateway made. */
    public CharSequence requestId;
    public boolean keepAlive;
    /**
     * The request came on {@code POST /v1/batch}: it is answered in the batch shape (200, one result per operation)
     * even when it holds a single operation, which {@code command.batchSize} alone cannot tell from a single request.
     */
    public boolean batchReply;
    /** Set by the journaler when the command could not be journaled: it must not be applied. */
    public boolean journalFailed;
    /**
     * Set by the journaler when the force of the command's batch failed: the business thread may have applied it
     * (it runs while the batch is forced), but it is not known to be in the journal, so it is answered 503.
     */
    public boolean notDurable;
    /**
     * Set by the business thread when the pipeline had halted before it reached this journaled command: not applied now,
     * but in the journal, so a restart's replay applies it. Answered 503, outcome unknown until then.
     */
    public boolean journaledNotApplied;
    /** IMMEDIATE_REPLY: the reply the publishing thread made (the responder writes it and owns it from then on). */
    public ImmediateReply immediateReply;

    /** Prepares the slot for a new publication (gateway side). */
    public LedgerEvent reset(final EventKind kind)
    {
        resetAllButCommand(kind);
        command.clear();
        return this;
    }

    /**
     * Prepares the slot for a command copied whole from {@code source} (gateway side): the same as
     * {@code reset(COMMAND)} followed by {@code command.copyFrom(source)}, without first clearing the type (an
     * unchanged reference is not stored again: see {@link Command#reset}).
     */
    public LedgerEvent reset(final Command source)
    {
        resetAllButCommand(EventKind.COMMAND);
        command.copyFrom(source);
        return this;
    }

    private void resetAllButCommand(final EventKind kind)
    {
        if (this.kind != kind)
        {
            // Slots are old-generation objects: an unchanged reference is not stored again (see Command.reset).
            this.kind = kind;
        }
        readAccountId = 0;
        readQuery = null;
        readAsOfJournalIndex = 0;
        replyTo = null;
        if (requestId != null)
        {
            requestId = null;   // stored only when it changes, as kind above
        }
        keepAlive = true;
        batchReply = false;
        journalFailed = false;
        notDurable = false;
        journaledNotApplied = false;
        immediateReply = null;
        routeIndex = -1;
        receivedNs = 0;
    }
}
