package dev.tally.perf.peer;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.tally.gateway.http.ApiKeys;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * One connection of the peer's HTTP API. On the Netty I/O thread: route, authenticate, validate the key
 * and the body, compute the fingerprint, render what a success would answer. Then the JDBC work goes to
 * the bounded executor (never on the I/O thread), and the reply comes back to this connection's event
 * loop.
 *
 * <p>HTTP/1.1 pipelining: requests of one connection run concurrently on the executor, and replies
 * are written in request order (a reply that completes early waits in {@link #pending}).
 *
 * <pre>
 *   POST /v1/transfers        Idempotency-Key, TransferRequest  -> 201 | 409 | 422 (stored) | 422 key reused
 *   POST /v1/accounts         Idempotency-Key, AccountRequest   -> 201 | 409 (stored)
 *   POST /v1/batch            {"atomic":false,"operations":[{"op":"account"|"transfer","idempotencyKey","body"}]}: ONE transaction,
 *                             each operation its own result (non-atomic, as Tally's)
 *   GET  /v1/accounts/{id}    balances, Tally's shape, one sub-balance per balance row
 *   GET  /health
 * </pre>
 */
final class PeerHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest>
{
    private static final int BATCH_OPERATIONS_MAX = 8_190;
    private static final PeerReply OVERLOADED = PeerProblem.SERVICE_UNAVAILABLE.reply("every JDBC thread is busy and the queue is full", null);

    private final ApiKeys apiKeys;
    private final PeerLedger ledger;
    private final javax.sql.DataSource pool;
    private final Executor jdbc;
    /** Replies not yet written, in request order; touched only on this channel's event loop. */
    private final ArrayDeque<Slot> pending = new ArrayDeque<>();

    PeerHttpHandler(final ApiKeys apiKeys, final PeerLedger ledger, final javax.sql.DataSource pool, final Executor jdbc)
    {
        this.apiKeys = apiKeys;
        this.ledger = ledger;
        this.pool = pool;
        this.jdbc = jdbc;
    }

    /** A request's place in the reply order. */
    private static final class Slot
    {
        final boolean keepAlive;
        PeerReply reply;

        Slot(final boolean keepAlive)
        {
            this.keepAlive = keepAlive;
        }
    }

    /** JDBC work: runs on an executor thread with a pooled connection. */
    @FunctionalInterface
    private interface Work
    {
        PeerReply run(Connection connection) throws SQLException;
    }

    @Override
    protected void channelRead0(final ChannelHandlerContext ctx, final FullHttpRequest request)
    {
        final Slot slot = new Slot(HttpUtil.isKeepAlive(request));
        pending.add(slot);
        if (!request.decoderResult().isSuccess())
        {
            complete(ctx, slot, PeerProblem.INVALID_REQUEST.reply("the HTTP request could not be parsed", null));
            return;
        }
        try
        {
            final Work work = route(request);
            if (work == null)
            {
                complete(ctx, slot, PeerReply.json(200, "{\"status\":\"UP\"}"));
                return;
            }
            submit(ctx, slot, work);
        }
        catch (final InvalidRequest ex)
        {
            complete(ctx, slot, ex.reply());
        }
    }

    /** @return the JDBC work of a valid request; null for {@code /health}. */
    private Work route(final FullHttpRequest request) throws InvalidRequest
    {
        final String uri = request.uri();
        final int query = uri.indexOf('?');
        final String path = query < 0 ? uri : uri.substring(0, query);
        final HttpMethod method = request.method();
        if ("/health".equals(path) && method == HttpMethod.GET)
        {
            return null;
        }
        final boolean post = method == HttpMethod.POST;
        if ("/v1/transfers".equals(path) || "/v1/accounts".equals(path) || "/v1/batch".equals(path))
        {
            if (!post)
            {
                throw new InvalidRequest(PeerProblem.METHOD_NOT_ALLOWED, "use POST", null);
            }
        }
        else if (!(path.startsWith("/v1/accounts/") && method == HttpMethod.GET))
        {
            throw new InvalidRequest(PeerProblem.NOT_FOUND, "no such resource", null);
        }
        final ApiKeys.Tenant tenant = apiKeys.authenticate(request.headers().get(HttpHeaderNames.AUTHORIZATION));
        if (tenant == null)
        {
            throw new InvalidRequest(PeerProblem.UNAUTHORIZED, "Send Authorization: Bearer <api key>.", null);
        }
        final long tenantId = tenant.id();
        final long nowMs = System.currentTimeMillis();
        switch (path)
        {
            case "/v1/transfers":
            {
                final String key = PeerBody.idempotencyKey(request.headers().get("Idempotency-Key"));
                final TransferRequest body = parseWhole(request, true);
                final PeerLedger.PreparedTransfer transfer = PeerLedger.PreparedTransfer.of(tenantId, key, body, nowMs);
                return connection -> ledger.transfer(connection, transfer).reply();
            }
            case "/v1/accounts":
            {
                final String key = PeerBody.idempotencyKey(request.headers().get("Idempotency-Key"));
                final AccountRequest body = parseWhole(request, false);
                return connection -> ledger.createAccount(connection, tenantId, key, body, nowMs).reply();
            }
            case "/v1/batch":
            {
                final List<PeerLedger.BatchOperation> operations = parseBatch(request);
                return connection -> batchReply(ledger.batch(connection, tenantId, operations, nowMs));
            }
            default:
            {
                final long accountId = accountIdOf(path.substring("/v1/accounts/".length()));
                return connection ->
                {
                    final PeerLedger.AccountRow row = ledger.readAccount(connection, tenantId, accountId);
                    return row == null ? PeerProblem.NOT_FOUND.reply("the account does not exist", null) : PeerReply.json(200, row.body());
                };
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> T parseWhole(final FullHttpRequest request, final boolean transfer) throws InvalidRequest
    {
        try (JsonParser parser = PeerBody.open(ByteBufUtil.getBytes(request.content())))
        {
            final Object body = transfer ? TransferRequest.parse(parser, "") : AccountRequest.parse(parser, "");
            if (parser.nextToken() != null)
            {
                throw new InvalidRequest(PeerProblem.MALFORMED_JSON, "content after the JSON object", null);
            }
            return (T)body;
        }
        catch (final JsonParseException ex)
        {
            throw PeerBody.malformed(ex);
        }
        catch (final IOException ex)
        {
            throw new InvalidRequest(PeerProblem.MALFORMED_JSON, "the body could not be read", null);
        }
    }

    private static List<PeerLedger.BatchOperation> parseBatch(final FullHttpRequest request) throws InvalidRequest
    {
        final List<PeerLedger.BatchOperation> operations = new ArrayList<>();
        try (JsonParser parser = PeerBody.open(ByteBufUtil.getBytes(request.content())))
        {
            PeerBody.expectObject(parser, "");
            JsonToken token;
            while ((token = parser.nextToken()) == JsonToken.FIELD_NAME)
            {
                final String name = parser.currentName();
                parser.nextToken();
                if ("atomic".equals(name))
                {
                    if (PeerBody.bool(parser, name))
                    {
                        throw new InvalidRequest(PeerProblem.INVALID_REQUEST, "the peer's batch is never atomic", name);
                    }
                }
                else if ("operations".equals(name) && parser.currentToken() == JsonToken.START_ARRAY)
                {
                    while (parser.nextToken() == JsonToken.START_OBJECT)
                    {
                        if (operations.size() == BATCH_OPERATIONS_MAX)
                        {
                            throw new InvalidRequest(PeerProblem.BATCH_TOO_LARGE, "at most 8190 operations", "operations");
                        }
                        operations.add(parseOperation(parser, "operations[" + operations.size() + "]."));
                    }
                }
                else
                {
                    throw new InvalidRequest(PeerProblem.INVALID_REQUEST, "unknown member " + name, name);
                }
            }
            PeerBody.expectEndObject(token, "");
        }
        catch (final JsonParseException ex)
        {
            throw PeerBody.malformed(ex);
        }
        catch (final IOException ex)
        {
            throw new InvalidRequest(PeerProblem.MALFORMED_JSON, "the body could not be read", null);
        }
        if (operations.isEmpty())
        {
            throw new InvalidRequest(PeerProblem.INVALID_REQUEST, "no operations", "operations");
        }
        return operations;
    }

    private static PeerLedger.BatchOperation parseOperation(final JsonParser parser, final String prefix) throws IOException, InvalidRequest
    {
        String op = null;
        String key = null;
        AccountRequest account = null;
        TransferRequest transfer = null;
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.FIELD_NAME)
        {
            final String name = parser.currentName();
            parser.nextToken();
            switch (name)
            {
                case "op":
                    op = parser.getValueAsString();
                    break;
                case "idempotencyKey":
                    key = PeerBody.visibleAscii(parser, prefix + name, PeerBody.IDEMPOTENCY_KEY_LENGTH_MAX);
                    break;
                case "body":
                    if ("account".equals(op))
                    {
                        account = AccountRequest.parse(parser, prefix + "body.");
                    }
                    else if ("transfer".equals(op))
                    {
                        transfer = TransferRequest.parse(parser, prefix + "body.");
                    }
                    else
                    {
                        throw new InvalidRequest(PeerProblem.INVALID_REQUEST, prefix + "op must be account or transfer, given before body", prefix + "op");
                    }
                    break;
                default:
                    throw new InvalidRequest(PeerProblem.INVALID_REQUEST, "unknown member " + prefix + name, prefix + name);
            }
        }
        PeerBody.expectEndObject(token, prefix);
        if (key == null)
        {
            throw new InvalidRequest(PeerProblem.IDEMPOTENCY_KEY_MISSING, prefix + "idempotencyKey is missing", prefix + "idempotencyKey");
        }
        if (account == null && transfer == null)
        {
            throw new InvalidRequest(PeerProblem.INVALID_REQUEST, "missing member " + prefix + "body", prefix + "body");
        }
        return new PeerLedger.BatchOperation(key, account, transfer);
    }

    private static PeerReply batchReply(final List<PeerLedger.Outcome> outcomes)
    {
        final StringBuilder json = new StringBuilder(outcomes.size() * 256).append("{\"atomic\":false,\"results\":[");
        for (int i = 0; i < outcomes.size(); i++)
        {
            final PeerLedger.Outcome outcome = outcomes.get(i);
            final PeerReply reply = outcome.reply();
            json.append(i == 0 ? "" : ",").append("{\"index\":").append(i).append(",\"status\":").append(reply.status());
            if (reply.replayed())
            {
                json.append(",\"replayed\":true");
            }
            json.append(",\"body\":").append(new String(reply.body(), java.nio.charset.StandardCharsets.UTF_8)).append('}');
        }
        return PeerReply.json(200, json.append("]}").toString());
    }

    private static long accountIdOf(final String text) throws InvalidRequest
    {
        try
        {
            final long id = Long.parseLong(text);
            if (id > 0)
            {
                return id;
            }
        }
        catch (final NumberFormatException ex)
        {
            // falls through to 404
        }
        throw new InvalidRequest(PeerProblem.NOT_FOUND, "no such account", null);
    }

    private void submit(final ChannelHandlerContext ctx, final Slot slot, final Work work)
    {
        try
        {
            jdbc.execute(() ->
            {
                PeerReply reply;
                try (Connection connection = pool.getConnection())
                {
                    reply = work.run(connection);
                }
                catch (final SQLException | RuntimeException ex)
                {
                    // A server bug or a lost database: not a business outcome, nothing stored. Reported and answered 503.
                    System.err.println("peer: request failed: " + ex);
                    reply = PeerProblem.SERVICE_UNAVAILABLE.reply("the database failed: " + ex.getClass().getSimpleName(), null);
                }
                final PeerReply done = reply;
                ctx.executor().execute(() -> complete(ctx, slot, done));
            });
        }
        catch (final RejectedExecutionException ex)
        {
            complete(ctx, slot, OVERLOADED);
        }
    }

    /** Records a reply and writes every reply that is next in order; one flush per burst. */
    private void complete(final ChannelHandlerContext ctx, final Slot slot, final PeerReply reply)
    {
        slot.reply = reply;
        boolean wrote = false;
        Slot head;
        while ((head = pending.peek()) != null && head.reply != null)
        {
            pending.poll();
            write(ctx, head);
            wrote = true;
        }
        if (wrote)
        {
            ctx.flush();
        }
    }

    private static void write(final ChannelHandlerContext ctx, final Slot slot)
    {
        final PeerReply reply = slot.reply;
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(reply.status()),
            Unpooled.wrappedBuffer(reply.body()));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType());
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, reply.body().length);
        if (reply.replayed())
        {
            response.headers().set("Idempotent-Replayed", "true");
        }
        if (reply.status() == 503)
        {
            response.headers().set(HttpHeaderNames.RETRY_AFTER, "1");
        }
        if (slot.keepAlive)
        {
            ctx.write(response);
        }
        else
        {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.write(response).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        ctx.close();
    }
}
