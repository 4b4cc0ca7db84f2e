package dev.tally.gateway.http;

import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.problem.ProblemType;
import dev.tally.gateway.api.RenderedResponse;
import dev.tally.gateway.api.routing.ResourceId;
import dev.tally.gateway.api.routing.Route;
import dev.tally.pipeline.EventKind;
import dev.tally.pipeline.InputRing;
import dev.tally.pipeline.LedgerEvent;
import dev.tally.pipeline.PipelineHealth;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.query.TransferView;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's only handler: authenticate, route, decode and validate on the I/O thread, then publish
 * into the ring and return. Nothing malformed reaches the journal: every 4xx of validation is answered
 * here. Replies to published work are written by the {@link HttpResponder} stage.
 */
public final class ApiHandler extends SimpleChannelInboundHandler<FullHttpRequest>
{
    private static final Logger LOG = LoggerFactory.getLogger(ApiHandler.class);
    private static final LogThrottle FAILURE_LOG = new LogThrottle(ReadGateMeter.LOG_INTERVAL_NS);
    /** Refusals under load: each counted, and logged at most once per interval with how many the log held back. */
    private static final LogThrottle WRITER_BEHIND_LOG = new LogThrottle(ReadGateMeter.LOG_INTERVAL_NS);
    private static final LogThrottle RING_FULL_LOG = new LogThrottle(ReadGateMeter.LOG_INTERVAL_NS);
    private static final Problem NOT_READY = new Problem(ProblemType.SERVICE_UNAVAILABLE,
        "The ledger is not ready (replaying the journal, or halted after a failure).");
    private static final Problem OVERLOADED = new Problem(ProblemType.SERVICE_UNAVAILABLE,
        "The input ring is full; retry shortly.");
    private static final Problem UNAUTHORIZED = new Problem(ProblemType.UNAUTHORIZED,
        "Send Authorization: Bearer <api key>, once.");
    private static final Problem KEY_REPEATED = new Problem(ProblemType.IDEMPOTENCY_KEY_INVALID,
        "Send Idempotency-Key once: a repeated header is ambiguous (a proxy may pass on either value).");
    private static final Problem WRITER_LAGGING = new Problem(ProblemType.SERVICE_UNAVAILABLE,
        "The PostgreSQL writer is behind its lag bound; retry shortly.");
    private static final Problem RATE_LIMITED = new Problem(ProblemType.RATE_LIMITED,
        "This tenant is over its request rate; retry after Retry-After seconds.");
    private static final Problem ENTRIES_NOT_ENABLED = new Problem(ProblemType.SERVICE_UNAVAILABLE,
        "Entry history is served from the PostgreSQL read model, which this server does not run.");
    private static final Problem LISTINGS_NOT_ENABLED = new Problem(ProblemType.SERVICE_UNAVAILABLE,
        "Listings of accounts and of an account's transfers are served from the PostgreSQL read model, which this server does not run.");

    private static final Problem HISTORY_NOT_ENABLED = new Problem(ProblemType.SERVICE_UNAVAILABLE,
        "Balances at a past instant and statements are served from the PostgreSQL read model, which this server does not run" +
        " (--no-read-model).");

    /** Without an admin key the admin routes do not exist: the same reply as the router's for an unknown path. */
    private static final Problem ADMIN_ROUTE_ABSENT = new Problem(ProblemType.NOT_FOUND,
        "no resource at " + Route.ADMIN_SNAPSHOT.template());
    private static final Problem ADMIN_UNAUTHORIZED = new Problem(ProblemType.UNAUTHORIZED,
        "Send Authorization: Bearer <admin key>; tenant API keys do not grant admin routes.");
    private static final Problem SNAPSHOTS_OFF = new Problem(ProblemType.SNAPSHOTS_DISABLED,
        "This server runs with --no-snapshots: it neither takes nor loads snapshots.");

    private static final AsciiString IDEMPOTENCY_KEY = AsciiString.cached("Idempotency-Key");

    private final ApiKeys apiKeys;
    private final InputRing ring;
    private final PipelineHealth health;
    private final HttpMeters metrics;
    private final ReadModelAccess readModel;
    private final ReadModelQueries queries;
    private final RateLimiter rateLimiter;
    private final SnapshotRequests snapshotter;
    /** Where this connection's replies go: one per connection, carried through the ring to the responder. */
    private ReplyChannel replyTarget;
    /** The request being handled (the handler is per connection and runs on one I/O thread). */
    private int routeIndex;
    private long receivedNs;
    /** Its {@code Request-Id}: the client's own or one made here ({@link RequestIds}); every reply to it carries it. */
    private CharSequence requestId;

    /**
     * @param readModel   the PostgreSQL read model, or null when the server runs without one.
     * @param queries     history reads from it, or null likewise.
     * @param rateLimiter the per-tenant rate limit, shared by every connection ({@link RateLimiter#OFF}: none).
     * @param snapshotter takes snapshots on {@code POST /admin/snapshot}, or null when snapshots are off.
     */
    public ApiHandler(
        final ApiKeys apiKeys, final InputRing ring, final PipelineHealth health, final HttpMeters metrics,
        final ReadModelAccess readModel, final ReadModelQueries queries, final RateLimiter rateLimiter,
        final SnapshotRequests snapshotter)
    {
        this.snapshotter = snapshotter;
        this.rateLimiter = rateLimiter;
        this.apiKeys = apiKeys;
        this.ring = ring;
        this.health = health;
        this.metrics = metrics;
        this.readModel = readModel;
        this.queries = queries;
    }

    @Override
    public void handlerAdded(final ChannelHandlerContext ctx)
    {
        replyTarget = new ReplyChannel(ctx.channel());
    }

    /**
     * @return the header's value, or null when it is absent or repeated: a credential sent twice is ambiguous (a proxy
     *         in front may pass on either value), so it authenticates nothing.
     */
    private static String onlyValue(final HttpHeaders headers, final CharSequence name)
    {
        final List<String> values = headers.getAll(name);
        return values.size() == 1 ? values.get(0) : null;
    }

    /**
     * @return the liveness answer: always UP (a live process), with the read model's state when there is one, so that an
     *         operator sees a dead read model without taking it for a reason to restart the process.
     */
    /**
     * {@code /health}: the process is up; what its start cut from the journal's tail; and, with a read model, whether
     * PostgreSQL is up.
     */
    private String healthBody()
    {
        return "{\"status\":\"UP\",\"journal\":" + health.journalHealthJson() +
            (readModel == null ? "" : ",\"readModel\":\"" + (readModel.downReason() == null ? "UP" : "DOWN") + "\"") + "}";
    }

    /** {@code /ready}: 200 only when the ledger is replayed and not halted, and the read model is up and keeps up. */
    private void answerReady(final ChannelHandlerContext ctx, final IoThreadScratch scratch, final boolean keepAlive)
    {
        final String readModelDown = readModel == null ? null : readModel.downReason();
        if (!health.isReady())
        {
            problem(ctx, scratch, NOT_READY, keepAlive);
        }
        else if (readModelDown != null)
        {
            problem(ctx, scratch, new Problem(ProblemType.SERVICE_UNAVAILABLE, "The PostgreSQL read model is down: " + readModelDown)
                .with("cause", "read-model-down"), keepAlive);
        }
        else if (!writerKeepsUp())
        {
            problem(ctx, scratch, WRITER_LAGGING, keepAlive);   // the reason, for the operator looking at /ready
        }
        else
        {
            text(ctx, 200, "application/json", "{\"status\":\"READY\"}", keepAlive);
        }
    }

    /** @return true when the PostgreSQL writer is within its lag bound (or there is none). */
    private boolean writerKeepsUp()
    {
        return readModel == null || !readModel.overLagBound();
    }

    @Override
    protected void channelRead0(final ChannelHandlerContext ctx, final FullHttpRequest request)
    {
        final IoThreadScratch scratch = IoThreadScratch.get();
        final boolean keepAlive = HttpUtil.isKeepAlive(request);
        receivedNs = System.nanoTime();
        routeIndex = -1;
        requestId = scratch.requestIds.of(request.headers());
        final DecoderResult decoded = request.decoderResult();
        if (decoded.isFailure())
        {
            answerMalformed(ctx, scratch, decoded.cause());
            return;
        }
        if (!scratch.router.match(request.method().name(), request.uri(), scratch.match))
        {
            // 404, or 405 with the Allow header RFC 9110 (15.5.6) requires
            problem(ctx, scratch, scratch.match.problem(), keepAlive, scratch.match.allow());
            return;
        }
        final Route route = scratch.match.route();
        routeIndex = route.ordinal();
        switch (route)
        {
            case HEALTH:
                text(ctx, 200, "application/json", healthBody(), keepAlive);
                return;
            case READY:
                answerReady(ctx, scratch, keepAlive);
                return;
            case METRICS:
                text(ctx, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape(), keepAlive);
                return;
            case ADMIN_SNAPSHOT:
                // before the tenant check: an admin route is never authenticated by a tenant's key, nor rate limited as one
                adminSnapshot(ctx, scratch, request, keepAlive);
                return;
            default:
                break;
        }
        final ApiKeys.Tenant tenant = apiKeys.authenticate(onlyValue(request.headers(), HttpHeaderNames.AUTHORIZATION));
        if (tenant == null)
        {
            problem(ctx, scratch, UNAUTHORIZED, keepAlive);
            return;
        }
        final int retryAfterSeconds = rateLimiter.acquire(tenant, receivedNs);
        if (retryAfterSeconds > 0)
        {
            final ByteBuf body = ctx.alloc().buffer(256);
            final RenderedResponse rendered = scratch.renderer.renderProblem(RATE_LIMITED, body);
            immediate(ctx, rendered.status(), rendered.contentType(), body, keepAlive, retryAfterSeconds, null);
            return;
        }
        if (!health.isReady())
        {
            problem(ctx, scratch, NOT_READY, keepAlive);
            return;
        }
        switch (route)
        {
            case GET_ACCOUNT:
                readAccount(ctx, scratch, tenant, keepAlive);
                break;
            case GET_TRANSFER:
                readTransfer(ctx, scratch, tenant, keepAlive);
                break;
            case LIST_ACCOUNT_ENTRIES:
                listEntries(ctx, scratch, tenant, keepAlive);
                break;
            case LIST_ACCOUNTS:
            case LIST_ACCOUNT_TRANSFERS:
                listFromReadModel(ctx, scratch, route, tenant, keepAlive);
                break;
            case FIND_TRANSFER:
                findTransfer(ctx, scratch, tenant, keepAlive);
                break;
            case GET_HOLD:
                readHold(ctx, scratch, tenant, keepAlive);
                break;
            case ACCOUNT_STATEMENT:
                readStatement(ctx, scratch, tenant, request, keepAlive);
                break;
            case BATCH:
                if (refuseWhenWriterLags(ctx, scratch, keepAlive))
                {
                    break;
                }
                batch(ctx, scratch, tenant, request.content(), keepAlive);
                break;
            default:
                if (refuseWhenWriterLags(ctx, scratch, keepAlive))
                {
                    break;
                }
                single(ctx, scratch, route, tenant, request, keepAlive);
                break;
        }
    }

    private void single(
        final ChannelHandlerContext ctx, final IoThreadScratch scratch, final Route route, final ApiKeys.Tenant tenant,
        final FullHttpRequest request, final boolean keepAlive)
    {
        final Command command = scratch.single;
        final HttpHeaders headers = request.headers();
        if (headers.getAll(IDEMPOTENCY_KEY).size() > 1)
        {
            problem(ctx, scratch, KEY_REPEATED, keepAlive);
            return;
        }
        final Problem problem = scratch.decoder.decode(route, tenant.id(),
            headers.get(IDEMPOTENCY_KEY), scratch.match.pathId(), request.content(), command);
        if (problem != null)
        {
            problem(ctx, scratch, problem, keepAlive);
            return;
        }
        final long sequence = ring.tryClaim();
        if (sequence == InputRing.FULL)
        {
            overloaded(ctx, scratch, keepAlive);
            return;
        }
        try
        {
            addressReply(ring.slot(sequence).reset(command), ctx, keepAlive);
        }
        finally
        {
            ring.publish(sequence);
        }
    }

    private void batch(
        final ChannelHandlerContext ctx, final IoThreadScratch scratch, final ApiKeys.Tenant tenant, final ByteBuf body,
        final boolean keepAlive)
    {
        final Problem problem = scratch.decoder.decodeBatch(tenant.id(), body, scratch.batch);
        if (problem != null)
        {
            problem(ctx, scratch, problem, keepAlive);
            return;
        }
        final int size = scratch.decoder.batchSize();
        // One claim for the whole batch: its operations sit in consecutive slots, never interleaved.
        final long last = ring.tryClaim(size);
        if (last == InputRing.FULL)
        {
            overloaded(ctx, scratch, keepAlive);
            return;
        }
        final long first = last - (size - 1);
        try
        {
            for (int position = 0; position < size; position++)
            {
                ring.slot(first + position).reset(scratch.batch[position]);
            }
            // The reply leaves with the last operation, so only its slot is addressed: one reference store
            // into the (old-generation) ring per request instead of one per operation.
            final LedgerEvent lastSlot = ring.slot(last);
            addressReply(lastSlot, ctx, keepAlive);
            lastSlot.batchReply = true;
        }
        finally
        {
            ring.publish(first, last);
        }
    }

    /**
     * {@code POST /admin/snapshot}: asks the snapshotter for a snapshot and answers 202 at once; the snapshot is
     * taken where the SNAPSHOT command it publishes lands in the journal, and written on its own thread
     * ({@code tally_snapshot_last_index} shows it). Nothing here touches the ring or the ledger. The key is
     * compared as a hash in constant time and never logged.
     */
    private void adminSnapshot(
        final ChannelHandlerContext ctx, final IoThreadScratch scratch, final FullHttpRequest request, final boolean keepAlive)
    {
        if (!apiKeys.hasAdminKey())
        {
            problem(ctx, scratch, ADMIN_ROUTE_ABSENT, keepAlive);
            return;
        }
        if (!apiKeys.authenticateAdmin(onlyValue(request.headers(), HttpHeaderNames.AUTHORIZATION)))
        {
            problem(ctx, scratch, ADMIN_UNAUTHORIZED, keepAlive);
            return;
        }
        if (snapshotter == null)
        {
            problem(ctx, scratch, SNAPSHOTS_OFF, keepAlive);
            return;
        }
        if (!health.isReady())
        {
            problem(ctx, scratch, NOT_READY, keepAlive);
            return;
        }
        final long lastSnapshotIndex = snapshotter.writtenIndex();
        final long appliedIndex = snapshotter.appliedIndex();
        snapshotter.requestNow();
        LOG.info("snapshot requested on POST /admin/snapshot (last snapshot at journal index {}, applied {})", lastSnapshotIndex,
            appliedIndex);
        text(ctx, 202, "application/json",
            "{\"requested\":true,\"lastSnapshotIndex\":" + lastSnapshotIndex + ",\"appliedIndex\":" + appliedIndex + "}", keepAlive);
    }

    /**
     * Backpressure from PostgreSQL: when the writer lags past its bound, new writes are refused with 503
     * (reads still work) rather than buffering effects without limit.
     */
    private boolean refuseWhenWriterLags(final ChannelHandlerContext ctx, final IoThreadScratch scratch, final boolean keepAlive)
    {
        if (writerKeepsUp())
        {
            return false;
        }
        metrics.recordWriterBehind();
        final long heldBack = WRITER_BEHIND_LOG.admit();
        if (heldBack >= 0)
        {
            LOG.warn("refusing writes with 503: the PostgreSQL writer is behind its lag bound ({} more refused since the last " +
                "line; tally_pg_writer_refusals_total counts them all)", heldBack);
        }
        problem(ctx, scratch, WRITER_LAGGING, keepAlive);
        return true;
    }

    /**
     * A read the PostgreSQL read model answers (an account at a past point): checked here, so that a 400 keeps its place
     * in the connection's order, then through the ring to the responder, which hands it to the read pool by its route.
     */
    private void readHistory(
        final ChannelHandlerContext ctx, final IoThreadScratch scratch, final ApiKeys.Tenant tenant, final long accountId, final String invalid,
        final String query, final boolean keepAlive)
    {
        if (queries == null)
        {
            problem(ctx, scratch, HISTORY_NOT_ENABLED, keepAlive);
            return;
        }
        if (invalid != null)
        {
            problem(ctx, scratch, new Problem(ProblemType.INVALID_REQUEST, invalid), keepAlive);
            return;
        }
        publishRead(ctx, scratch, EventKind.READ_ENTRIES, tenant, accountId, 0, 0, keepAlive, query);
    }

    /** {@code GET /v1/accounts/{id}/statement?from=&to=}, JSON or CSV ({@code Accept: text/csv}), streamed from the read model. */
    private void readStatement(
        final ChannelHandlerContext ctx, final IoThreadScratch scratch, final ApiKeys.Tenant tenant, final FullHttpRequest request,
        final boolean keepAlive)
    {
        final long accountId = ResourceId.parseAccountId(scratch.match.pathId());
        if (accountId == ResourceId.INVALID_ACCOUNT_ID)
        {
            problem(ctx, scratch, new Problem(ProblemType.NOT_FOUND, "No such account."), keepAlive);
            return;
        }
        final String query = scratch.match.query();
        final String accept = request.headers().get(HttpHeaderNames.ACCEPT);
        final boolean csv = accept != null && accept.toLowerCase(java.util.Locale.ROOT).contains("text/csv");
        readHistory(ctx, scratch, tenant, accountId, ReadQuery.invalid(query, ReadQuery::period),
            (csv ? ReadModelQueries.CSV_PREFIX : "") + (query == null ? "" : query), keepAlive);
    }

    private void listEntries(final ChannelHandlerContext ctx, final IoThreadScratch scratch, final ApiKeys.Tenant tenant, final boolean keepAlive)
    {
        if (queries == null)
        {
            problem(ctx, scratch, ENTRIES_NOT_ENABLED, keepAlive);
            return;
        }
        final long accountId = ResourceId.parseAccountId(scratch.match.pathId());
        if (accountId == ResourceId.INVALID_ACCOUNT_ID)
        {
            problem(ctx, scratch, new Problem(ProblemType.NOT_FOUND, "No such account."), keepAlive);
            return;
        }
        final String invalid = ReadQuery.invalid(scratch.match.query(), ReadQuery::entries);
        if (invalid != null)
        {
            problem(ctx, scratch, new Problem(ProblemType.INVALID_REQUEST, invalid), keepAlive);   // in order, through the ring
            return;
        }
        publishRead(ctx, scratch, EventKind.READ_ENTRIES, tenant, accountId, 0, 0, keepAlive, scratch.match.query());
    }

    /**
     * {@code GET /v1/accounts} and {@code GET /v1/accounts/{id}/transfers}: PostgreSQL answers, so they travel as a page
     * of entries does (the route tells the responder which); the query is checked here, so that a 400 keeps its order.
     */
    private void listFromReadModel(
        final ChannelHandlerContext ctx, final IoThreadScratch scratch, final Route route, final ApiKeys.Tenant tenant, final boolean keepAlive)
    {
        if (queries == null)
        {
            problem(ctx, scratch, LISTINGS_NOT_ENABLED, keepAlive);
            return;
        }
        long accountId = 0;
        if (route == Route.LIST_ACCOUNT_TRANSFERS)
        {
            accountId = ResourceId.parseAccountId(scratch.match.pathId());
            if (accountId == ResourceId.INVALID_ACCOUNT_ID)
            {
                problem(ctx, scratch, new Problem(ProblemType.NOT_FOUND, "No such account."), keepAlive);
                return;
            }
        }
        final String query = scratch.match.query();
        final String invalid = route == Route.LIST_ACCOUNTS ? ReadQuery.invalid(query, ReadQuery::accounts) :
            ReadQuery.invalid(query, ReadQuery::accountTransfers);
        if (invalid != null)
        {
            problem(ctx, scratch, new Problem(ProblemType.INVALID_REQUEST, invalid), keepAlive);
            return;
        }
        publishRead(ctx, scratch, EventKind.READ_ENTRIES, tenant, accountId, 0, 0, keepAlive, query);
    }

    /**
     * {@code GET /v1/transfers?reference=}: the business thread looks the reference's digest up in memory (the slot
     * carries it in place of an id); what memory does not know, the responder asks PostgreSQL or the cold index.
     */
    private void findTransfer(final ChannelHandlerContext ctx, final IoThreadScratch scratch, final ApiKeys.Tenant tenant, final boolean keepAlive)
    {
        final String reference;
        try
        {
            reference = ReadQuery.reference(scratch.match.query());
        }
        catch (final IllegalArgumentException ex)
        {
            problem(ctx, scratch, new Problem(ProblemType.INVALID_REQUEST, ex.getMessage()), keepAlive);
            return;
        }
        final long[] digest = scratch.decoder.referenceDigest(tenant.id(), reference);
        publishRead(ctx, scratch, EventKind.READ_TRANSFER, TransferView.BY_REFERENCE, tenant, 0, digest[0], digest[1], keepAlive, reference);
    }

    private void readHold(final ChannelHandlerContext ctx, final IoThreadScratch scratch, final ApiKeys.Tenant tenant, final boolean keepAlive)
    {
        if (!scratch.resourceId.parse(scratch.match.pathId(), Uuid7.KIND_HOLD))
        {
            problem(ctx, scratch, new Problem(ProblemType.NOT_FOUND, "No such hold."), keepAlive);
            return;
        }
        publishRead(ctx, scratch, EventKind.READ_TRANSFER, TransferView.HOLD_BY_ID, tenant, 0, scratch.resourceId.hi(), scratch.resourceId.lo(),
            keepAlive, null);
    }

    private void readAccount(final ChannelHandlerContext ctx, final IoThreadScratch scratch, final ApiKeys.Tenant tenant, final boolean keepAlive)
    {
        final long accountId = ResourceId.parseAccountId(scratch.match.pathId());
        if (accountId == ResourceId.INVALID_ACCOUNT_ID)
        {
            problem(ctx, scratch, new Problem(ProblemType.NOT_FOUND, "No such account."), keepAlive);
            return;
        }
        final String query = scratch.match.query();
        if (query != null && !query.isEmpty())
        {
            // ?at= or ?atIndex=, from the read model; any other parameter is a 400 (with or without a read model), as on every read
            final String invalid = ReadQuery.invalid(query, ReadQuery::point);
            if (invalid != null)
            {
                problem(ctx, scratch, new Problem(ProblemType.INVALID_REQUEST, invalid), keepAlive);
                return;
            }
            readHistory(ctx, scratch, tenant, accountId, null, query, keepAlive);
            return;
        }
        publishRead(ctx, scratch, EventKind.READ_ACCOUNT, tenant, accountId, 0, 0, keepAlive, null);
    }

    private void readTransfer(final ChannelHandlerContext ctx, final IoThreadScratch scratch, final ApiKeys.Tenant tenant, final boolean keepAlive)
    {
        if (!scratch.resourceId.parse(scratch.match.pathId(), Uuid7.KIND_TRANSFER))
        {
            problem(ctx, scratch, new Problem(ProblemType.NOT_FOUND, "No such transfer."), keepAlive);
            return;
        }
        publishRead(ctx, scratch, EventKind.READ_TRANSFER, TransferView.BY_ID, tenant, 0, scratch.resourceId.hi(), scratch.resourceId.lo(),
            keepAlive, null);
    }

    private void publishRead(
        final ChannelHandlerContext ctx, final IoThreadScratch scratch, final EventKind kind, final ApiKeys.Tenant tenant,
        final long accountId, final long idHi, final long idLo, final boolean keepAlive, final String query)
    {
        publishRead(ctx, scratch, kind, TransferView.BY_ID, tenant, accountId, idHi, idLo, keepAlive, query);
    }

    /**
     * Reads go through the ring too: the business thread owns the state, and per-connection order is kept.
     *
     * @param lookup for {@code READ_TRANSFER}, what the business thread is asked ({@link TransferView#lookup}).
     */
    private void publishRead(
        final ChannelHandlerContext ctx, final IoThreadScratch scratch, final EventKind kind, final int lookup, final ApiKeys.Tenant tenant,
        final long accountId, final long idHi, final long idLo, final boolean keepAlive, final String query)
    {
        final long sequence = ring.tryClaim();
        if (sequence == InputRing.FULL)
        {
            overloaded(ctx, scratch, keepAlive);
            return;
        }
        try
        {
            final LedgerEvent event = ring.slot(sequence).reset(kind);
            event.command.tenantId = tenant.id();
            event.command.targetIdHi = idHi;
            event.command.targetIdLo = idLo;
            event.readAccountId = accountId;
            event.readQuery = query;
            event.transferView.lookup = lookup;   // the one field of the view the reader writes: every read sets it
            addressReply(event, ctx, keepAlive);
        }
        finally
        {
            ring.publish(sequence);
        }
    }

    /** Tells the responder where the reply goes, and what to record for metrics. */
    private void addressReply(final LedgerEvent event, final ChannelHandlerContext ctx, final boolean keepAlive)
    {
        event.replyTo = replyTarget;
        event.requestId = requestId;
        event.keepAlive = keepAlive;
        event.routeIndex = routeIndex;
        event.receivedNs = receivedNs;
    }

    /**
     * A request that could not be framed: answered in order like any bad request (through the ring: an earlier
     * request of this connection may still be there), and the last one of its connection ({@link ReadGate}
     * stopped reading at it), which closes after the reply: the bytes after it cannot be trusted to start a request.
     */
    private void answerMalformed(final ChannelHandlerContext ctx, final IoThreadScratch scratch, final Throwable cause)
    {
        final Problem problem;
        if (cause instanceof ProblemAggregator.BodyTooLarge)
        {
            problem = new Problem(ProblemType.BODY_TOO_LARGE, cause.getMessage());
        }
        else if (cause instanceof RequestReadTimeout.TimedOut)
        {
            problem = new Problem(ProblemType.REQUEST_TIMEOUT, cause.getMessage());
        }
        else if (cause instanceof TooLongHttpLineException)
        {
            problem = new Problem(ProblemType.REQUEST_LINE_TOO_LONG, "The request line is too long.");
        }
        else if (cause instanceof TooLongHttpHeaderException || cause instanceof TooLongFrameException)
        {
            problem = new Problem(ProblemType.HEADERS_TOO_LARGE, "The request headers are too large.");
        }
        else
        {
            problem = new Problem(ProblemType.INVALID_REQUEST, "The HTTP request could not be parsed.");
        }
        problem(ctx, scratch, problem, false);
    }

    private void problem(final ChannelHandlerContext ctx, final IoThreadScratch scratch, final Problem problem, final boolean keepAlive)
    {
        problem(ctx, scratch, problem, keepAlive, null);
    }

    /**
     * Answers with a problem rendered here, but written by the responder, in order: with HTTP/1.1
     * pipelining an earlier request of this connection may still be in the ring, and its reply must
     * leave first (RFC 9112, 9.3.2), or a client would pair this error with a transfer that was applied.
     * Only when the ring is full is the reply written directly (out of order is then the lesser evil).
     */
    private void problem(
        final ChannelHandlerContext ctx, final IoThreadScratch scratch, final Problem problem, final boolean keepAlive, final String allow)
    {
        final ByteBuf body = ctx.alloc().buffer(256);
        final RenderedResponse rendered = scratch.renderer.renderProblem(problem, body);
        immediate(ctx, rendered.status(), rendered.contentType(), body, keepAlive, rendered.retryAfterSeconds(), allow);
    }

    private void immediate(
        final ChannelHandlerContext ctx, final int status, final CharSequence contentType, final ByteBuf body, final boolean keepAlive,
        final int retryAfterSeconds, final String allow)
    {
        final long sequence = ring.tryClaim();
        if (sequence == InputRing.FULL)
        {
            HttpReplies.write(ctx.channel(), status, contentType, body, keepAlive, false, retryAfterSeconds, allow, requestId);
            return;
        }
        try
        {
            final LedgerEvent event = ring.slot(sequence).reset(EventKind.IMMEDIATE_REPLY);
            addressReply(event, ctx, keepAlive);
            event.immediateReply = new ImmediateHttpReply(body, status, contentType, retryAfterSeconds, allow);
        }
        finally
        {
            ring.publish(sequence);
        }
    }

    /** The ring is full: this 503 is written directly, since it cannot queue behind the work it refuses. */
    private void overloaded(final ChannelHandlerContext ctx, final IoThreadScratch scratch, final boolean keepAlive)
    {
        metrics.recordRingFull();
        final long heldBack = RING_FULL_LOG.admit();
        if (heldBack >= 0)
        {
            LOG.warn("refusing requests with 503: the input ring is full ({} more refused since the last line; " +
                "tally_ring_rejections_total counts them all)", heldBack);
        }
        final ByteBuf body = ctx.alloc().buffer(256);
        HttpReplies.write(ctx.channel(), scratch.renderer.renderProblem(OVERLOADED, body), body, keepAlive, requestId);
    }

    /** Probe replies queue behind earlier pipelined requests too (see {@link #problem}). */
    private void text(final ChannelHandlerContext ctx, final int status, final String contentType, final String text, final boolean keepAlive)
    {
        immediate(ctx, status, contentType, Unpooled.copiedBuffer(text, StandardCharsets.UTF_8), keepAlive, 0, null);
    }

    @Override
    public void userEventTriggered(final ChannelHandlerContext ctx, final Object event) throws Exception
    {
        if (event instanceof IdleStateEvent)
        {
            if (!HttpReplies.isAnswering(ctx.channel()))   // a statement streaming for minutes reads nothing from its client
            {
                ctx.close();
            }
            return;
        }
        super.userEventTriggered(ctx, event);
    }

    /**
     * A failure no handler answers closes the connection, and replies still owed on it are lost, so it is logged (at most
     * once per {@link ReadGateMeter#LOG_INTERVAL_NS}); a socket error is the client going away and is not. Only the
     * failure's class: its message may quote what the client sent, a key included.
     */
    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        if (!(cause instanceof java.io.IOException))
        {
            final long heldBack = FAILURE_LOG.admit();
            if (heldBack >= 0)
            {
                LOG.warn("Closing the connection from {} after an unexpected {} ({} more such closes since the last line)",
                    ctx.channel().remoteAddress(), cause.getClass().getName(), heldBack);
            }
        }
        ctx.close();
    }
}
