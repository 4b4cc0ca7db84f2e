package dev.tally.gateway.http;

import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.problem.ProblemType;
import dev.tally.gateway.api.RenderedResponse;
import dev.tally.gateway.api.ResponseRenderer;
import dev.tally.gateway.api.routing.Route;
import dev.tally.pipeline.EventKind;
import dev.tally.pipeline.InputRing;
import dev.tally.pipeline.LedgerEvent;
import dev.tally.pipeline.ResponderStage;
import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.cold.ColdSource;
import dev.tally.ledger.cold.ColdTransferRead;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.query.HoldView;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.query.TransferView;
import dev.tally.ledger.result.Result;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage 3: renders each reply from the stored result and the request's payload (so an idempotent
 * replay is byte-identical) and writes it to the connection that asked. Runs after the business thread,
 * which runs after the journaler: a reply never leaves before its command is journaled.
 *
 * <p>A batch occupies consecutive slots; it is answered once, at its last slot, from all of them.
 */
public final class HttpResponder implements ResponderStage
{
    private static final Problem HALTED = new Problem(ProblemType.SERVICE_UNAVAILABLE,
        "The ledger stopped taking writes after an internal failure; the command was not applied.");
    /** A force failed at or before the slot: the command may have been applied and may or may not be on disk. */
    private static final Problem NOT_DURABLE = new Problem(ProblemType.SERVICE_UNAVAILABLE,
        "The journal could not be forced to disk; the outcome is unknown until the server restarts: retry with the same " +
            "Idempotency-Key.");
    /** The pipeline halted after this command was journaled, before it was applied: a restart's replay applies it. */
    private static final Problem OUTCOME_UNKNOWN = new Problem(ProblemType.SERVICE_UNAVAILABLE,
        "The ledger stopped taking writes after an internal failure with this request in its journal: it takes effect when " +
            "the server restarts. Retry with the same Idempotency-Key to learn its outcome.");
    private static final Problem ACCOUNT_NOT_FOUND = new Problem(ProblemType.NOT_FOUND, "No such account.");
    private static final Problem ENTRIES_NOT_ENABLED = new Problem(ProblemType.SERVICE_UNAVAILABLE,
        "Entry history is served from the PostgreSQL read model, which this server does not run.");
    private static final Problem TRANSFER_NOT_FOUND = new Problem(ProblemType.NOT_FOUND, "No such transfer.");
    private static final Problem COLD_READ_FAILED = new Problem(ProblemType.SERVICE_UNAVAILABLE,
        "The transfer is older than memory and the cold index could not be read: retry later.");
    private static final Problem REFERENCE_NOT_FOUND = new Problem(ProblemType.NOT_FOUND, "No transfer of this tenant has this reference.");
    /** Without a read model only memory answers, and it holds live holds only. */
    private static final Problem HOLD_NOT_LIVE = new Problem(ProblemType.NOT_FOUND,
        "No live hold has this id. This server runs without the PostgreSQL read model, which is what keeps holds that ended.");
    private static final Route[] ROUTES = Route.values();

    private static final Logger LOG = LoggerFactory.getLogger(HttpResponder.class);
    private static final long COLD_READ_FAILURE_LOG_INTERVAL_NS = 10_000_000_000L;

    private final ResponseRenderer renderer = new ResponseRenderer();
    private final Command[] batchCommands = new Command[LedgerLimits.BATCH_OPERATIONS_MAX];
    private final Result[] batchResults = new Result[LedgerLimits.BATCH_OPERATIONS_MAX];
    private final InputRing ring;
    private final Channel[] pending = new Channel[256];
    private int pendingCount;

    private final HttpMeters metrics;
    private final ReadModelQueries queries;
    /** Reads of transfers memory let go, for a server without a read model; null with one (PostgreSQL has them). */
    private final ColdSource coldReads;
    private final ColdTransferRead coldTransferRead = new ColdTransferRead();
    /** The journal index and time of the transfer holding a reference, as the cold index files them. */
    private final long[] coldReference = new long[2];
    private long coldReadFailures;
    private long lastColdReadFailureLogNs = System.nanoTime() - COLD_READ_FAILURE_LOG_INTERVAL_NS;

    /**
     * @param ring    the ring the batch slots are read back from.
     * @param metrics where each reply's latency and outcome are recorded.
     */
    public HttpResponder(final InputRing ring, final HttpMeters metrics)
    {
        this(ring, metrics, null, null);
    }

    /**
     * @param queries   reads of the PostgreSQL read model for transfers memory no longer holds, or null.
     * @param coldReads without a read model, the cold index's reads for them (this thread's own), or null.
     */
    public HttpResponder(final InputRing ring, final HttpMeters metrics, final ReadModelQueries queries, final ColdSource coldReads)
    {
        this.ring = ring;
        this.metrics = metrics;
        this.queries = queries;
        this.coldReads = queries == null ? coldReads : null;
    }

    @Override
    public void onEvent(final LedgerEvent event, final long sequence, final boolean endOfBatch)
    {
        if (event.replyTo != null)
        {
            reply(event, sequence, ((ReplyChannel)event.replyTo).channel);
        }
        if (endOfBatch)
        {
            flushPending();
        }
    }

    private void reply(final LedgerEvent event, final long sequence, final Channel channel)
    {
        if (event.kind == EventKind.COMMAND && !event.command.isLastOfBatch())
        {
            return;
        }
        if (event.kind == EventKind.IMMEDIATE_REPLY)
        {
            final ImmediateHttpReply immediate = (ImmediateHttpReply)event.immediateReply;
            event.immediateReply = null;
            HttpReplies.write(channel, immediate.status(), immediate.contentType(), immediate.body(), event.keepAlive, false,
                immediate.retryAfterSeconds(), immediate.allow(), event.requestId, false);
            metrics.recordReply(event.routeIndex, immediate.status(), event.receivedNs);
            markPending(channel);
            clearReplyFields(event);
            return;
        }
        final ByteBuf body = channel.alloc().buffer(256);
        // notDurable: a force failed at or before this slot, so memory may hold commands the journal does not.
        final RenderedResponse rendered = event.notDurable ? renderer.renderProblem(NOT_DURABLE, body) : render(event, sequence, channel, body);
        if (rendered == null)
        {
            return;   // the read pool replies
        }
        final int status = rendered.status();
        HttpReplies.write(channel, status, rendered.contentType(), body, event.keepAlive, rendered.replayed(),
            rendered.retryAfterSeconds(), null, event.requestId, false);
        metrics.recordReply(event.routeIndex, status, event.receivedNs);
        markPending(channel);
        clearReplyFields(event);
    }

    private void recordOutcome(final LedgerEvent slot)
    {
        metrics.recordOutcome(slot.result.code, slot.result.replayed, slot.command.type == dev.tally.ledger.command.CommandType.TRANSFER);
    }

    /**
     * @return the reply to {@code event}, or null when the read pool answers it (PostgreSQL has what it asks for;
     *         the reply's place on the connection is held meanwhile).
     */
    private RenderedResponse render(final LedgerEvent event, final long sequence, final Channel channel, final ByteBuf body)
    {
        switch (event.kind)
        {
            case READ_ACCOUNT:
                return renderAccount(event, channel, body);
            case READ_TRANSFER:
                return renderRead(event, channel, body);
            case READ_ENTRIES:
                if (queries == null)
                {
                    return renderer.renderProblem(ENTRIES_NOT_ENABLED, body);   // only a wiring mistake gets here
                }
                // PostgreSQL answers: the reply leaves from the read pool, in this connection's order (HttpReplies.hold)
                body.release();
                listFromReadModel(event, channel);
                clearReplyFields(event);
                return null;
            case COMMAND:
            default:
                return renderCommand(event, sequence, body);
        }
    }

    /**
     * An account memory answered for: memory has every field but its metadata, which the read pool adds from PostgreSQL
     * when the account has some (the read pool replies: null here). Without a read model there is nowhere to read it from,
     * and the account renders without it (docs/ARCHITECTURE.md, "Account metadata").
     */
    private RenderedResponse renderAccount(final LedgerEvent event, final Channel channel, final ByteBuf body)
    {
        final AccountView view = event.accountView;
        if (!view.found)
        {
            return renderer.renderProblem(ACCOUNT_NOT_FOUND, body);
        }
        if (view.hasMetadata && queries != null)
        {
            body.release();
            queries.accountWithMetadata(channel, event.requestId, event.keepAlive, new AccountView().copyFrom(view), event.receivedNs,
                replyRecorder(event));
            clearReplyFields(event);
            return null;
        }
        return renderer.renderAccount(view, body);
    }

    /**
     * The reads that travel as {@code READ_ENTRIES}, answered from PostgreSQL alone: the route says which (the slot's
     * kinds are the pipeline's; a listing is the same to it as a page of entries). Each runs once the read model holds
     * what the business thread had applied when it passed the read ({@code readAsOfJournalIndex}): every write
     * acknowledged before the request shows.
     */
    private void listFromReadModel(final LedgerEvent event, final Channel channel)
    {
        final long tenantId = event.command.tenantId;
        final long asOf = event.readAsOfJournalIndex;
        switch (ROUTES[event.routeIndex])
        {
            case LIST_ACCOUNTS:
                queries.accounts(channel, event.requestId, event.keepAlive, tenantId, event.readQuery, asOf, event.receivedNs, replyRecorder(event));
                break;
            case LIST_ACCOUNT_TRANSFERS:
                queries.accountTransfers(channel, event.requestId, event.keepAlive, tenantId, event.readAccountId, event.readQuery, asOf,
                    event.receivedNs, replyRecorder(event));
                break;
            case ACCOUNT_STATEMENT:
                queries.statement(channel, event.requestId, event.keepAlive, tenantId, event.readAccountId, event.readQuery, asOf,
                    event.receivedNs, replyRecorder(event));
                break;
            case GET_ACCOUNT:   // ?at= or ?atIndex=
                queries.accountAt(channel, event.requestId, event.keepAlive, tenantId, event.readAccountId, event.readQuery, asOf,
                    event.receivedNs, replyRecorder(event));
                break;
            default:
                queries.entries(channel, event.requestId, event.keepAlive, tenantId, event.readAccountId, event.readQuery, asOf,
                    event.receivedNs, replyRecorder(event));
                break;
        }
    }

    /**
     * A read the business thread answered from memory ({@link TransferView#lookup} says which): a transfer by id or by
     * reference, or a hold. What memory no longer holds comes from PostgreSQL (the read pool replies: null here) or,
     * without a read model, from the cold index (transfers and references only: it keeps no holds).
     */
    private RenderedResponse renderRead(final LedgerEvent event, final Channel channel, final ByteBuf body)
    {
        final TransferView view = event.transferView;
        switch (view.lookup)
        {
            case TransferView.HOLD_BY_ID:
                return renderHold(event, channel, body);
            case TransferView.BY_REFERENCE:
                if (view.found || view.referenceResolved)
                {
                    // memory knows which transfer holds the reference: from here on, a read of it by id
                    return renderTransfer(event, channel, body, Uuid7.hi(view.timestampNs, Uuid7.KIND_TRANSFER), Uuid7.lo(view.journalIndex, 0));
                }
                return renderUnknownReference(event, channel, body);
            default:
                return renderTransfer(event, channel, body, event.command.targetIdHi, event.command.targetIdLo);
        }
    }

    private RenderedResponse renderTransfer(
        final LedgerEvent event, final Channel channel, final ByteBuf body, final long idHi, final long idLo)
    {
        if (!event.transferView.found && queries != null)
        {
            // Older than the reversal window: PostgreSQL has it (the reply leaves from the read pool).
            body.release();
            queries.transfer(channel, event.requestId, event.keepAlive, event.command.tenantId, new java.util.UUID(idHi, idLo),
                replyRecorder(event));
            clearReplyFields(event);
            return null;
        }
        if (event.transferView.hasMetadata && queries != null)
        {
            // Memory has every field but the metadata: the read pool adds it from PostgreSQL and replies.
            body.release();
            queries.transferWithMetadata(channel, event.requestId, event.keepAlive, new TransferView().copyFrom(event.transferView),
                event.receivedNs, replyRecorder(event));
            clearReplyFields(event);
            return null;
        }
        if (!event.transferView.found && coldReads != null)
        {
            // Memory let it go, and without a read model the cold index is the one place that holds it.
            try
            {
                coldTransferRead.read(coldReads, idHi, idLo, event.command.tenantId, event.transferView);
            }
            catch (final RuntimeException ex)
            {
                logColdReadFailure(ex);
                return renderer.renderProblem(COLD_READ_FAILED, body);
            }
        }
        return event.transferView.found ? renderer.renderTransfer(event.transferView, body) :
            renderer.renderProblem(TRANSFER_NOT_FOUND, body);
    }

    /**
     * A reference memory does not know: never used, or let go. PostgreSQL holds every reference for good; without it,
     * the cold index holds those memory let go (by digest: the slot carries the digest in place of an id).
     */
    private RenderedResponse renderUnknownReference(final LedgerEvent event, final Channel channel, final ByteBuf body)
    {
        if (queries != null)
        {
            body.release();
            queries.transferByReference(channel, event.requestId, event.keepAlive, event.command.tenantId, event.readQuery,
                event.transferView.asOfJournalIndex, event.receivedNs, replyRecorder(event));
            clearReplyFields(event);
            return null;
        }
        if (coldReads != null)
        {
            final boolean filed;
            try
            {
                filed = coldReads.findReference(event.command.targetIdHi, event.command.targetIdLo, coldReference);
            }
            catch (final RuntimeException ex)
            {
                logColdReadFailure(ex);
                return renderer.renderProblem(COLD_READ_FAILED, body);
            }
            if (filed)
            {
                return renderTransfer(event, channel, body, Uuid7.hi(coldReference[1], Uuid7.KIND_TRANSFER), Uuid7.lo(coldReference[0], 0));
            }
        }
        return renderer.renderProblem(REFERENCE_NOT_FOUND, body);
    }

    /** A live hold from memory; one that ended (or never was) from PostgreSQL, which keeps every hold. */
    private RenderedResponse renderHold(final LedgerEvent event, final Channel channel, final ByteBuf body)
    {
        final HoldView hold = event.transferView.hold;
        if (hold.found)
        {
            return renderer.renderHold(hold, hold.unknown ? "unknown" : "active", 0, -1, null, body);
        }
        if (queries == null)
        {
            return renderer.renderProblem(HOLD_NOT_LIVE, body);
        }
        body.release();
        queries.hold(channel, event.requestId, event.keepAlive, event.command.tenantId,
            new java.util.UUID(event.command.targetIdHi, event.command.targetIdLo), event.transferView.asOfJournalIndex, event.receivedNs,
            replyRecorder(event));
        clearReplyFields(event);
        return null;
    }

    private void logColdReadFailure(final RuntimeException ex)
    {
        coldReadFailures++;
        final long now = System.nanoTime();
        if (now - lastColdReadFailureLogNs >= COLD_READ_FAILURE_LOG_INTERVAL_NS)
        {
            lastColdReadFailureLogNs = now;
            LOG.warn("a read of a transfer from the cold index failed, answered 503 ({} so far; logged at most every 10 s)",
                coldReadFailures, ex);
        }
    }

    /** Remembers a connection written to in this batch, once. */
    private void markPending(final Channel channel)
    {
        for (int i = 0; i < pendingCount; i++)
        {
            if (pending[i] == channel)
            {
                return;
            }
        }
        if (pendingCount == pending.length)
        {
            flushPending();
        }
        pending[pendingCount++] = channel;
    }

    /** One flush per connection per batch: pipelined replies leave in one write. */
    private void flushPending()
    {
        for (int i = 0; i < pendingCount; i++)
        {
            pending[i].flush();
            pending[i] = null;
        }
        pendingCount = 0;
    }

    private RenderedResponse renderCommand(final LedgerEvent last, final long sequence, final ByteBuf body)
    {
        final int size = last.command.batchSize;
        if (!last.batchReply)
        {
            if (last.journalFailed)
            {
                return renderer.renderProblem(HALTED, body);
            }
            if (last.journaledNotApplied)
            {
                return renderer.renderProblem(OUTCOME_UNKNOWN, body);
            }
            recordOutcome(last);
            return renderer.render(last.command, last.result, body);
        }
        final long first = sequence - (size - 1);
        final Problem halted = haltedBatch(first, size);
        if (halted != null)
        {
            return renderer.renderProblem(halted, body);
        }
        for (int position = 0; position < size; position++)
        {
            final LedgerEvent slot = ring.slot(first + position);
            batchCommands[position] = slot.command;
            batchResults[position] = slot.result;
            recordOutcome(slot);
        }
        return renderer.renderBatch(batchCommands, batchResults, size, body);
    }

    /**
     * @return the answer to a batch a halt or a failed force reached, or null when every operation ran: "not applied"
     *         only when none of them was journaled; when some were (applied now, or by a restart's replay) its outcome
     *         is unknown until the server restarts, and a retry with the same keys tells it.
     */
    private Problem haltedBatch(final long first, final int size)
    {
        boolean anyFailed = false;
        boolean allFailed = true;
        boolean unknown = false;
        boolean notDurable = false;
        for (int position = 0; position < size; position++)
        {
            final LedgerEvent slot = ring.slot(first + position);
            anyFailed |= slot.journalFailed;
            allFailed &= slot.journalFailed;
            unknown |= slot.journaledNotApplied;
            notDurable |= slot.notDurable;
        }
        if (notDurable)
        {
            return NOT_DURABLE;
        }
        if (allFailed)
        {
            return HALTED;
        }
        return anyFailed || unknown ? OUTCOME_UNKNOWN : null;
    }

    /** Records a reply the read pool writes later, like the ones written here (route, status, latency from receipt). */
    private java.util.function.IntConsumer replyRecorder(final LedgerEvent event)
    {
        final int route = event.routeIndex;
        final long receivedNs = event.receivedNs;
        return status -> metrics.recordReply(route, status, receivedNs);
    }

    /** Only the slot that carried the reply is addressed (for a batch, its last one). */
    private static void clearReplyFields(final LedgerEvent last)
    {
        last.replyTo = null;
        last.requestId = null;   // so that no request id stays referenced for a lap of the ring
    }
}
