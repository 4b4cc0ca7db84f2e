package dev.tally.gateway.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.tally.gateway.api.json.IsoTime;
import dev.tally.gateway.api.Metadata;
import dev.tally.gateway.api.json.Money;
import dev.tally.gateway.api.RenderedResponse;
import dev.tally.gateway.api.ResponseRenderer;
import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.problem.ProblemType;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.query.HoldView;
import dev.tally.ledger.query.TransferView;
import dev.tally.ledger.transfer.TransferKind;
import dev.tally.persistence.read.AccountAtRow;
import dev.tally.persistence.read.AccountRow;
import dev.tally.persistence.read.AccountTransferRow;
import dev.tally.persistence.read.AccountTransfersFilter;
import dev.tally.persistence.read.AccountsFilter;
import dev.tally.persistence.read.EntryRow;
import dev.tally.persistence.read.HoldRow;
import dev.tally.persistence.read.LedgerReads;
import dev.tally.persistence.read.TransferRow;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * History served from the PostgreSQL read model: {@code GET /v1/accounts/{id}/entries}, {@code GET /v1/accounts} and
 * {@code GET /v1/accounts/{id}/transfers} (keyset paged), accounts at a past point, statements, transfers that memory
 * no longer holds (by id or reference), holds that have ended, and the metadata of transfers and accounts memory does
 * hold (memory keeps only that they have some).
 *
 * <p>Read-your-writes: lookups of what memory does not hold, listings, entries, past points and statements run once the
 * writer's watermark has reached the journal index the business thread had applied when it passed the read
 * ({@code afterWriter}), so a write acknowledged before the request shows in its reply (a transfer's metadata waits for
 * the transfer itself; a transfer older than the reversal window, long written, waits for nothing). The wait is
 * bounded: 503 with Retry-After when the writer fails, lags past its bound or is not there 2 s after the request
 * arrived, counted ({@link #refusedWriterBehind}) and logged at most every 10 s.
 *
 * <p>JDBC never runs on a Netty I/O thread or a pipeline stage: a small bounded pool does it and writes the reply into
 * the place the responder held for it in the connection's reply order ({@link HttpReplies#hold}). Every path here
 * fills its hole exactly once, also when the read fails, waits too long, or the server stops ({@link #close}): a
 * hole never filled would hold back every later reply on its connection.
 */
public final class ReadModelQueries implements AutoCloseable
{
    /** Default and largest page of entries. */
    public static final int PAGE_DEFAULT = 100;
    /**
     * Starts the query of a statement that asks for CSV: the I/O thread reads the {@code Accept} header and the query
     * string travels through the ring alone, so the choice rides in front of it (a NUL, which no query string holds).
     */
    static final String CSV_PREFIX = "\u0000csv;";
    /** Statements streaming at once, at most: each holds one of the two pool threads while its client reads. */
    static final int STATEMENTS_MAX = 1;
    /** Entries per page of a statement: one keyset index scan, about 150 bytes each in JSON. */
    static final int STATEMENT_PAGE_ROWS = 1_000;
    /** A statement's parts waiting for the replies before it, at most, before its producer waits. */
    static final long STATEMENT_BACKLOG_MAX_BYTES = 1 << 20;
    /** A client that reads nothing of a statement for this long loses the connection (the stream holds a thread). */
    static final long STATEMENT_STALL_MAX_MS = 30_000;
    private static final Logger LOG = LoggerFactory.getLogger(ReadModelQueries.class);
    private static final JsonFactory JSON = new JsonFactory();
    private static final Problem NO_SUCH_ACCOUNT = new Problem(ProblemType.NOT_FOUND, "No such account in the read model.");
    private static final int QUEUE_MAX = 1_024;
    /**
     * How long a read of a transfer with metadata waits for the writer to reach it, from the request's arrival here.
     * The writer lags by milliseconds in steady state; past this (PostgreSQL slow or away) the read answers 503 with
     * Retry-After, never a transfer without its metadata.
     */
    private static final long WRITER_WAIT_MAX_NS = TimeUnit.SECONDS.toNanos(2);
    private static final long WRITER_POLL_MS = 2;
    /** Reads waiting for the writer at once; more get 503 at once (each costs a timer check every 2 ms). */
    private static final int WRITER_WAITERS_MAX = 256;
    /** What a read that must see every acknowledged write waits for, as a 503's detail names it. */
    private static final String LATEST_STATE = "ledger's latest state";
    /** A 503 for a writer too far behind is logged at most this often, with how many were left out. */
    private static final long REFUSAL_LOG_INTERVAL_NS = TimeUnit.SECONDS.toNanos(10);
    /** Renderers of replies that mix memory's view with PostgreSQL's metadata, one per pool thread. */
    private static final ThreadLocal<ResponseRenderer> RENDERERS = ThreadLocal.withInitial(ResponseRenderer::new);

    private final ReadModelAccess readModel;
    private final ThreadPoolExecutor pool;
    private final java.util.concurrent.Semaphore statements = new java.util.concurrent.Semaphore(STATEMENTS_MAX);
    /** Re-checks the writer's watermark for reads waiting on it, so that they hold no pool thread meanwhile. */
    private final ScheduledThreadPoolExecutor writerWaits;
    /** Reads waiting for the writer: answered by {@link #close} if still there. */
    private final java.util.Set<WriterWait> writersAwaited = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Reads answered 503 because the writer had not reached what they wait for in time, or was failing or over its bound. */
    private final java.util.concurrent.atomic.LongAdder refusedWriterBehind = new java.util.concurrent.atomic.LongAdder();
    /** Reads answered 503 because too many were queued or waiting already. */
    private final java.util.concurrent.atomic.LongAdder refusedBusy = new java.util.concurrent.atomic.LongAdder();
    private final LogThrottle writerBehindLog = new LogThrottle(REFUSAL_LOG_INTERVAL_NS);

    public ReadModelQueries(final ReadModelAccess readModel)
    {
        this.readModel = readModel;
        pool = new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUE_MAX), runnable ->
        {
            final Thread thread = new Thread(runnable, "tally-pg-reads");
            thread.setDaemon(true);
            return thread;
        });
        writerWaits = new ScheduledThreadPoolExecutor(1, runnable ->
        {
            final Thread thread = new Thread(runnable, "tally-pg-read-waits");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Answers {@code GET /v1/accounts/{id}/entries?limit=&after=} (checked by the I/O thread, {@link ReadQuery#entries}) for the
     * tenant's account, once the read model holds journal index {@code asOfIndex} (what the ledger had applied when the
     * read passed it; {@code receivedNs} is when the request arrived, {@link System#nanoTime()}). Like every reply here,
     * it carries {@code requestId} as {@code Request-Id} ({@link RequestIds}).
     */
    public void entries(
        final Channel channel, final CharSequence requestId, final boolean keepAlive, final long tenantId, final long accountId,
        final String query, final long asOfIndex, final long receivedNs, final java.util.function.IntConsumer onReply)
    {
        final HttpReplies.Hole hole = HttpReplies.hold(channel, requestId, onReply);   // this reply's place in the connection's order
        afterWriter(hole, channel, keepAlive, asOfIndex, receivedNs, LATEST_STATE, () ->
        {
            final ReadQuery.EntriesPage page = ReadQuery.entries(query);
            final int digits = accountDigits(tenantId, accountId);
            if (digits < 0)
            {
                problem(hole, channel, keepAlive, NO_SUCH_ACCOUNT);
                return;
            }
            final List<EntryRow> rows = readModel.entries(tenantId, accountId, page.after(), page.limit());
            fillJson(hole, channel, keepAlive, 256 + rows.size() * 200, json ->
            {
                json.writeStartObject();
                json.writeStringField("accountId", Long.toString(accountId));
                json.writeArrayFieldStart("entries");
                for (final EntryRow row : rows)
                {
                    json.writeStartObject();
                    json.writeStringField("id", row.id().toString());
                    json.writeStringField("transferId", row.transferId().toString());
                    json.writeStringField("kind", row.kind());
                    json.writeStringField("amount", Money.format(row.amountMinor(), digits));
                    json.writeStringField("balanceAfter", Money.format(row.balanceAfterMinor(), digits));
                    json.writeStringField("currency", row.currency());
                    json.writeNumberField("journalIndex", row.journalIndex());
                    json.writeStringField("createdAt", IsoTime.text(row.createdAt()));
                    json.writeEndObject();
                }
                json.writeEndArray();
                if (rows.size() == page.limit())
                {
                    json.writeStringField("next", rows.get(rows.size() - 1).id().toString());
                }
                json.writeEndObject();
            });
        });
    }

    /**
     * Answers {@code GET /v1/accounts/{id}?at=} or {@code ?atIndex=} (checked by {@link ReadQuery#point}): the
     * account as it stood at that point, from the read model once it holds {@code asOfIndex} (as {@link #entries}); 400
     * when the point is past what the read model holds, 404 when the account did not exist then (or is another tenant's).
     */
    public void accountAt(
        final Channel channel, final CharSequence requestId, final boolean keepAlive, final long tenantId, final long accountId,
        final String query, final long asOfIndex, final long receivedNs, final java.util.function.IntConsumer onReply)
    {
        final HttpReplies.Hole hole = HttpReplies.hold(channel, requestId, onReply);   // this reply's place in the connection's order
        afterWriter(hole, channel, keepAlive, asOfIndex, receivedNs, LATEST_STATE, () ->
        {
            final ReadQuery.Point point = ReadQuery.point(query);
            final Optional<AccountAtRow> found = readModel.accountAt(tenantId, accountId, point.at(), point.atIndex());
            if (found.isEmpty())
            {
                problem(hole, channel, keepAlive, new Problem(ProblemType.NOT_FOUND, "No such account."));
                return;
            }
            final AccountAtRow row = found.get();
            final String beyond = beyondReadModel(point, row);
            if (beyond != null)
            {
                problem(hole, channel, keepAlive, new Problem(ProblemType.INVALID_REQUEST, beyond));
                return;
            }
            final boolean existed = point.at() != null ? !row.createdAt().isAfter(point.at().truncatedTo(java.time.temporal.ChronoUnit.MICROS)) :
                row.createdIndex() <= point.atIndex();
            if (!existed)
            {
                problem(hole, channel, keepAlive, new Problem(ProblemType.NOT_FOUND, "The account did not exist yet at that point."));
                return;
            }
            HttpReplies.fill(hole, 200, "application/json", renderAccountAt(channel, accountId, point, row), keepAlive, 0);
        });
    }

    /**
     * Answers {@code GET /v1/accounts/{id}/statement?from=&to=} (checked by {@link ReadQuery#period}; {@code query}
     * starts with {@link #CSV_PREFIX} for CSV): the opening balance (the account at {@code from}), every entry journaled
     * after it up to and including {@code to} with its running balance, and the closing balance. Streamed: a chunked reply
     * written page by page ({@link #STATEMENT_PAGE_ROWS} entries, a keyset page each) while the client reads it, so a
     * year of a hot account never sits in memory. At most {@link #STATEMENTS_MAX} stream at once (each holds a pool thread
     * and a connection for as long as its client reads); more get 503 with Retry-After. It starts once the read model
     * holds {@code asOfIndex} (as {@link #entries}).
     */
    public void statement(
        final Channel channel, final CharSequence requestId, final boolean keepAlive, final long tenantId, final long accountId,
        final String query, final long asOfIndex, final long receivedNs, final java.util.function.IntConsumer onReply)
    {
        final HttpReplies.Hole hole = HttpReplies.hold(channel, requestId, onReply);   // this reply's place in the connection's order
        final boolean csv = query.startsWith(CSV_PREFIX);
        final String params = csv ? query.substring(CSV_PREFIX.length()) : query;
        afterWriter(hole, channel, keepAlive, asOfIndex, receivedNs, LATEST_STATE, () ->
        {
            if (!statements.tryAcquire())
            {
                problem(hole, channel, keepAlive, new Problem(ProblemType.SERVICE_UNAVAILABLE, "Another statement is being streamed; retry shortly."));
                return;
            }
            try
            {
                streamStatement(hole, channel, keepAlive, tenantId, accountId, ReadQuery.period(params), csv);
            }
            finally
            {
                statements.release();
            }
        });
    }

    private void streamStatement(
        final HttpReplies.Hole hole, final Channel channel, final boolean keepAlive, final long tenantId, final long accountId,
        final ReadQuery.Period period, final boolean csv) throws Exception
    {
        final Optional<AccountAtRow> found = readModel.accountAt(tenantId, accountId, period.from(), -1);
        if (found.isEmpty())
        {
            problem(hole, channel, keepAlive, new Problem(ProblemType.NOT_FOUND, "No such account."));
            return;
        }
        final AccountAtRow opening = found.get();
        final String beyond = beyondReadModel(new ReadQuery.Point(period.to(), -1), opening);
        if (beyond != null)
        {
            problem(hole, channel, keepAlive, new Problem(ProblemType.INVALID_REQUEST, beyond.replaceFirst("^at ", "to ")));
            return;
        }
        final int digits = CurrencyCode.minorDigits(CurrencyCode.pack(opening.currency()));
        final String from = period.from().truncatedTo(java.time.temporal.ChronoUnit.MICROS).toString();
        final String to = period.to().truncatedTo(java.time.temporal.ChronoUnit.MICROS).toString();
        boolean started = false;
        try (LedgerReads.StatementCursor cursor = readModel.statement(tenantId, accountId, period.from(), period.to()))
        {
            HttpReplies.beginStream(hole, 200, csv ? "text/csv; charset=utf-8" : "application/json", keepAlive);
            started = true;
            long balance = opening.postedMinor();
            final StringBuilder text = new StringBuilder(256);
            if (csv)
            {
                text.append("type,entry_id,transfer_id,kind,created_at,journal_index,amount,balance_after\n");
                text.append("opening,,,,").append(from).append(",,,").append(Money.format(balance, digits)).append('\n');
            }
            else
            {
                text.append("{\"accountId\":\"").append(accountId).append("\",\"currency\":\"").append(opening.currency())
                    .append("\",\"from\":\"").append(from).append("\",\"to\":\"").append(to)
                    .append("\",\"openingBalance\":\"").append(Money.format(balance, digits)).append("\",\"entries\":[");
            }
            HttpReplies.streamChunk(hole, ascii(channel, text));
            long count = 0;
            while (true)
            {
                awaitRoom(hole, channel);
                final List<EntryRow> rows = cursor.next(STATEMENT_PAGE_ROWS);
                text.setLength(0);
                for (final EntryRow row : rows)
                {
                    if (csv)
                    {
                        text.append("entry,").append(row.id()).append(',').append(row.transferId()).append(',').append(row.kind()).append(',')
                            .append(IsoTime.text(row.createdAt())).append(',').append(row.journalIndex()).append(',')
                            .append(Money.format(row.amountMinor(), digits)).append(',').append(Money.format(row.balanceAfterMinor(), digits))
                            .append('\n');
                    }
                    else
                    {
                        text.append(count++ == 0 ? "" : ",").append("{\"id\":\"").append(row.id()).append("\",\"transferId\":\"")
                            .append(row.transferId()).append("\",\"kind\":\"").append(row.kind()).append("\",\"amount\":\"")
                            .append(Money.format(row.amountMinor(), digits)).append("\",\"balanceAfter\":\"")
                            .append(Money.format(row.balanceAfterMinor(), digits)).append("\",\"journalIndex\":").append(row.journalIndex())
                            .append(",\"createdAt\":\"").append(IsoTime.text(row.createdAt())).append("\"}");
                    }
                    balance = row.balanceAfterMinor();
                }
                if (!rows.isEmpty())
                {
                    HttpReplies.streamChunk(hole, ascii(channel, text));
                }
                if (rows.size() < STATEMENT_PAGE_ROWS)
                {
                    break;
                }
            }
            text.setLength(0);
            if (csv)
            {
                text.append("closing,,,,").append(to).append(",,,").append(Money.format(balance, digits)).append('\n');
            }
            else
            {
                text.append("],\"closingBalance\":\"").append(Money.format(balance, digits)).append("\"}");
            }
            HttpReplies.streamChunk(hole, ascii(channel, text));
            HttpReplies.endStream(hole);
        }
        catch (final Exception ex)
        {
            if (!started)
            {
                throw ex;   // nothing of the stream exists: the pool answers it as any failed read
            }
            LOG.warn("statement of account {} stopped midway: {}", accountId, ex.toString());
            HttpReplies.abortStream(hole, problemBody(channel, new Problem(ProblemType.SERVICE_UNAVAILABLE, "The statement could not be read.")));
        }
    }

    /** Waits while the client has not read what was sent, or the replies before this one are still being answered. */
    private static void awaitRoom(final HttpReplies.Hole hole, final Channel channel) throws java.io.IOException, InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STATEMENT_STALL_MAX_MS);
        while (channel.isActive() && (!channel.isWritable() || HttpReplies.streamBacklogBytes(hole) > STATEMENT_BACKLOG_MAX_BYTES))
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new java.io.IOException("the client read nothing of the statement for " + STATEMENT_STALL_MAX_MS + " ms");
            }
            Thread.sleep(1);
        }
        if (!channel.isActive())
        {
            throw new java.io.IOException("the client closed the connection");
        }
    }

    private static ByteBuf ascii(final Channel channel, final CharSequence text)
    {
        final ByteBuf buffer = channel.alloc().buffer(text.length());
        buffer.writeCharSequence(text, java.nio.charset.StandardCharsets.US_ASCII);
        return buffer;
    }

    private static ByteBuf problemBody(final Channel channel, final Problem problem)
    {
        final byte[] json = problem.toJson();
        return channel.alloc().buffer(json.length).writeBytes(json);
    }

    /**
     * @return why the read model cannot answer for {@code point} (it holds the journal up to its watermark only), or null.
     * An instant must be before the watermark's time: a command after the watermark may share its microsecond.
     */
    private static String beyondReadModel(final ReadQuery.Point point, final AccountAtRow row)
    {
        if (point.at() == null)
        {
            return point.atIndex() <= row.watermarkIndex() ? null :
                "atIndex " + point.atIndex() + " is past what the read model holds: journal index " + row.watermarkIndex();
        }
        // a microsecond of margin: the writer stores the watermark's time through a double (to_timestamp), which may round up
        if (row.watermarkTime() != null &&
            point.at().truncatedTo(java.time.temporal.ChronoUnit.MICROS).isBefore(row.watermarkTime().minusNanos(1_000)))
        {
            return null;
        }
        return "at " + point.at() + " is not before what the read model holds: journal index " + row.watermarkIndex() +
            (row.watermarkTime() == null ? "" : ", journaled at " + row.watermarkTime());
    }

    /**
     * The account body of {@code GET /v1/accounts/{id}} at a past point, plus the point. Per sub-balance detail only for an
     * account of one sub-balance (its total): a hot account's split at a past point is not recorded, and totals are exact.
     */
    private static ByteBuf renderAccountAt(final Channel channel, final long accountId, final ReadQuery.Point point, final AccountAtRow row)
        throws IOException
    {
        final int digits = CurrencyCode.minorDigits(CurrencyCode.pack(row.currency()));
        final ByteBuf body = channel.alloc().buffer(512);
        try (JsonGenerator json = JSON.createGenerator((java.io.OutputStream)new ByteBufOutputStream(body)))
        {
            json.writeStartObject();
            json.writeStringField("id", Long.toString(accountId));
            json.writeStringField("currency", row.currency());
            json.writeNumberField("subBalances", row.subBalances());
            json.writeBooleanField("debitsMustNotExceedCredits", row.debitsMustNotExceedCredits());
            json.writeStringField("overdraftLimit", Money.format(row.overdraftLimitMinor(), digits));
            json.writeStringField("posted", Money.format(row.postedMinor(), digits));
            json.writeStringField("held", Money.format(row.heldMinor(), digits));
            json.writeStringField("available", Money.format(row.postedMinor() - row.heldMinor(), digits));
            if (row.subBalances() == 1)
            {
                json.writeArrayFieldStart("subBalanceDetail");
                json.writeStartObject();
                json.writeNumberField("index", 0);
                json.writeStringField("posted", Money.format(row.postedMinor(), digits));
                json.writeStringField("held", Money.format(row.heldMinor(), digits));
                json.writeStringField("available", Money.format(row.postedMinor() - row.heldMinor(), digits));
                json.writeEndObject();
                json.writeEndArray();
            }
            json.writeStringField("createdAt", IsoTime.text(row.createdAt()));
            if (point.at() != null)
            {
                json.writeStringField("at", point.at().truncatedTo(java.time.temporal.ChronoUnit.MICROS).toString());
            }
            else
            {
                json.writeNumberField("atIndex", point.atIndex());
            }
            if (row.lastEntryIndex() > 0)
            {
                json.writeNumberField("lastEntryJournalIndex", row.lastEntryIndex());
            }
            json.writeEndObject();
        }
        catch (final IOException | RuntimeException ex)
        {
            body.release();
            throw ex;
        }
        return body;
    }

    /**
     * Answers {@code GET /v1/transfers/{id}} of a transfer memory holds with metadata, which memory does not keep:
     * every other field comes from {@code view} (memory's, so a reversal just made shows), the metadata from
     * PostgreSQL once its writer is past the transfer (metadata never changes after). The wait for the writer
     * holds no pool thread: the read is submitted only once the watermark has passed, checked every
     * {@link #WRITER_POLL_MS} ms, and it answers 503 at once when the writer has failed or lags past its bound, or
     * past {@link #WRITER_WAIT_MAX_NS} from the request's arrival.
     *
     * @param view       a copy the caller gives away.
     * @param receivedNs when the request arrived ({@link System#nanoTime()}).
     */
    public void transferWithMetadata(
        final Channel channel, final CharSequence requestId, final boolean keepAlive, final TransferView view, final long receivedNs,
        final java.util.function.IntConsumer onReply)
    {
        final HttpReplies.Hole hole = HttpReplies.hold(channel, requestId, onReply);   // this reply's place in the connection's order
        final UUID id = new UUID(Uuid7.hi(view.timestampNs, Uuid7.KIND_TRANSFER), Uuid7.lo(view.journalIndex, 0));
        final Query read = () ->
        {
            final Optional<TransferRow> found = readModel.transfer(view.tenantId, id);
            if (found.isEmpty() || found.get().metadata() == null)
            {
                // the writer is past the transfer and memory says it has metadata: the read model lost it
                LOG.error("the read model has no metadata for transfer {} of tenant {}, which has some", id, view.tenantId);
                problem(hole, channel, keepAlive, new Problem(ProblemType.INTERNAL_ERROR, "The read model lacks this transfer's metadata."));
                return;
            }
            replyTransfer(hole, channel, keepAlive, view, Metadata.canonicalOf(found.get().metadata()));
        };
        afterWriter(hole, channel, keepAlive, view.journalIndex, receivedNs, "transfer's metadata", read);
    }

    /**
     * Answers {@code GET /v1/accounts/{id}} of an account memory says has metadata, which memory does not keep: every other
     * field comes from {@code view} (memory's balances and status), the metadata from PostgreSQL once its writer has caught
     * up with what the ledger had applied when memory answered ({@link AccountView#asOfJournalIndex}), so that an update
     * acknowledged before the request shows. The read model may be further on by then (a later update, even one that
     * removed the metadata): the metadata is then that newer one, never an older one. The wait holds no pool thread
     * ({@link #afterWriter}).
     *
     * @param view       a copy the caller gives away.
     * @param receivedNs when the request arrived ({@link System#nanoTime()}).
     */
    public void accountWithMetadata(
        final Channel channel, final CharSequence requestId, final boolean keepAlive, final AccountView view, final long receivedNs,
        final java.util.function.IntConsumer onReply)
    {
        final HttpReplies.Hole hole = HttpReplies.hold(channel, requestId, onReply);   // this reply's place in the connection's order
        afterWriter(hole, channel, keepAlive, view.asOfJournalIndex, receivedNs, "account's metadata", () ->
        {
            final byte[] metadata = readModel.accountMetadata(view.tenantId, view.accountId).map(Metadata::canonicalOf).orElse(null);
            reply(hole, channel, keepAlive, 1_024 + view.subBalances * 96, body -> RENDERERS.get().renderAccount(view, metadata, body));
        });
    }

    /**
     * Runs {@code read} on the pool once the writer's watermark has reached {@code journalIndex}, so that it sees
     * everything the ledger had applied by then; 503 when it cannot (see {@link WriterWait}).
     *
     * @param what what the read waits for, named in the 503's detail.
     */
    private void afterWriter(
        final HttpReplies.Hole hole, final Channel channel, final boolean keepAlive, final long journalIndex, final long receivedNs,
        final String what, final Query read)
    {
        if (writersAwaited.size() >= WRITER_WAITERS_MAX)
        {
            refusedBusy.increment();
            problem(hole, channel, keepAlive, new Problem(ProblemType.SERVICE_UNAVAILABLE, "Too many history reads in flight."));
            return;
        }
        final WriterWait wait = new WriterWait(journalIndex, receivedNs + WRITER_WAIT_MAX_NS, what, new PendingRead(hole, channel, keepAlive, read));
        writersAwaited.add(wait);
        wait.run();
    }

    /**
     * A read waiting for the writer's watermark to reach its transfer: checked now and then every
     * {@link #WRITER_POLL_MS} ms on the timer thread, until it is submitted to the pool or answered 503 (the writer
     * failed or lags past its bound, the deadline passed, the server stops). Settled exactly once, by whichever of
     * the timer and {@link #close} gets there first.
     */
    private final class WriterWait implements Runnable
    {
        private final long journalIndex;
        private final long deadlineNs;
        private final String what;
        private final PendingRead read;

        WriterWait(final long journalIndex, final long deadlineNs, final String what, final PendingRead read)
        {
            this.journalIndex = journalIndex;
            this.deadlineNs = deadlineNs;
            this.what = what;
            this.read = read;
        }

        @Override
        public void run()
        {
            try
            {
                check();
            }
            catch (final RuntimeException | Error ex)
            {
                // on the timer thread an exception would be swallowed with the hole unfilled
                LOG.error("waiting for the read model's writer failed", ex);
                refuse(ProblemType.INTERNAL_ERROR, "The history read failed.");
            }
        }

        private void check()
        {
            final String behind;
            if (readModel.watermark() >= journalIndex)
            {
                if (settle())
                {
                    submit(read);
                }
                return;
            }
            else if (readModel.overLagBound())   // a failed writer is over its bound too
            {
                behind = "The read model's writer is failing or far behind; the " + what + " is not there yet.";
                writerBehind(behind);
            }
            else if (System.nanoTime() - deadlineNs >= 0)
            {
                behind = "The " + what + " has not reached the read model yet; retry shortly.";
                writerBehind(behind);
            }
            else
            {
                try
                {
                    writerWaits.schedule(this, WRITER_POLL_MS, TimeUnit.MILLISECONDS);
                    return;
                }
                catch (final RejectedExecutionException closing)
                {
                    behind = "The server is stopping.";
                }
            }
            refuse(ProblemType.SERVICE_UNAVAILABLE, behind);
        }

        /** Counts a 503 for a writer behind, and logs it unless one was logged less than 10 s ago. */
        private void writerBehind(final String detail)
        {
            refusedWriterBehind.increment();
            final long heldBack = writerBehindLog.admit();
            if (heldBack >= 0)
            {
                LOG.warn("A read of the read model answered 503 (Retry-After: 1): {} It waited for journal index {}, the writer's watermark " +
                    "is {} ({} more such 503s since the last line)", detail, journalIndex, readModel.watermark(), heldBack);
            }
        }

        /** Answers the read with a problem, unless it is settled already. */
        void refuse(final ProblemType type, final String detail)
        {
            if (settle())
            {
                read.refuse(type, detail);
            }
        }

        /** @return true for the one caller that settles it: it is in the set from before its first check until then. */
        private boolean settle()
        {
            return writersAwaited.remove(this);
        }
    }

    /** Answers {@code GET /v1/transfers/{id}} from PostgreSQL for a transfer memory no longer holds. */
    public void transfer(
        final Channel channel, final CharSequence requestId, final boolean keepAlive, final long tenantId, final UUID id,
        final java.util.function.IntConsumer onReply)
    {
        final HttpReplies.Hole hole = HttpReplies.hold(channel, requestId, onReply);   // this reply's place in the connection's order
        submit(hole, channel, keepAlive, () ->
        {
            final Optional<TransferRow> found = readModel.transfer(tenantId, id);
            if (found.isEmpty())
            {
                problem(hole, channel, keepAlive, new Problem(ProblemType.NOT_FOUND, "No such transfer."));
                return;
            }
            final TransferRow row = found.get();
            replyTransfer(hole, channel, keepAlive, viewOf(row), row.metadata() == null ? null : Metadata.canonicalOf(row.metadata()));
        });
    }

    /**
     * Answers {@code GET /v1/transfers?reference=} for a reference memory does not know (never used, or let go): from
     * PostgreSQL, once its writer has caught up with what the ledger had applied when memory was asked
     * ({@code asOfIndex}), so that no transfer acknowledged before the request is missed.
     */
    public void transferByReference(
        final Channel channel, final CharSequence requestId, final boolean keepAlive, final long tenantId, final String reference,
        final long asOfIndex, final long receivedNs, final java.util.function.IntConsumer onReply)
    {
        final HttpReplies.Hole hole = HttpReplies.hold(channel, requestId, onReply);   // this reply's place in the connection's order
        afterWriter(hole, channel, keepAlive, asOfIndex, receivedNs, LATEST_STATE, () ->
        {
            final Optional<TransferRow> found = readModel.transferByReference(tenantId, reference);
            if (found.isEmpty())
            {
                problem(hole, channel, keepAlive, new Problem(ProblemType.NOT_FOUND, "No transfer of this tenant has this reference."));
                return;
            }
            final TransferRow row = found.get();
            replyTransfer(hole, channel, keepAlive, viewOf(row), row.metadata() == null ? null : Metadata.canonicalOf(row.metadata()));
        });
    }

    /**
     * Answers {@code GET /v1/holds/{id}} for a hold memory does not hold live (it ended, or never was): from PostgreSQL,
     * once its writer has caught up with what the ledger had applied when memory was asked ({@code asOfIndex}), so that a
     * capture or a void acknowledged before the request shows.
     */
    public void hold(
        final Channel channel, final CharSequence requestId, final boolean keepAlive, final long tenantId, final UUID id,
        final long asOfIndex, final long receivedNs, final java.util.function.IntConsumer onReply)
    {
        final HttpReplies.Hole hole = HttpReplies.hold(channel, requestId, onReply);   // this reply's place in the connection's order
        afterWriter(hole, channel, keepAlive, asOfIndex, receivedNs, LATEST_STATE, () ->
        {
            final Optional<HoldRow> found = readModel.hold(tenantId, id);
            if (found.isEmpty())
            {
                problem(hole, channel, keepAlive, new Problem(ProblemType.NOT_FOUND, "No such hold."));
                return;
            }
            final HoldRow row = found.get();
            final HoldView view = new HoldView();
            view.found = true;
            view.journalIndex = row.journalIndex();
            view.timestampNs = epochNs(row.createdAt());
            view.tenantId = row.tenantId();
            view.accountId = row.accountId();
            view.amountMinor = row.amountMinor();
            view.currency = CurrencyCode.pack(row.currency());
            view.deadlineNs = epochNs(row.expiresAt());
            view.unknown = "unknown".equals(row.status());
            final UUID captured = row.capturedTransferId();
            final ByteBuf body = channel.alloc().buffer(512);
            final RenderedResponse rendered;
            try
            {
                rendered = RENDERERS.get().renderHold(view, row.status(), row.capturedAmountMinor(),
                    row.resolvedAt() == null ? -1 : row.resolvedAt().toEpochMilli(),
                    captured == null ? null : new long[] {captured.getMostSignificantBits(), captured.getLeastSignificantBits()}, body);
            }
            catch (final RuntimeException ex)
            {
                body.release();
                throw ex;
            }
            HttpReplies.fill(hole, rendered.status(), rendered.contentType(), body, keepAlive, 0);
        });
    }

    /**
     * Answers {@code GET /v1/accounts} (query checked by the I/O thread, {@link ReadQuery#accounts}): a page of the
     * tenant's accounts in id order, balances as the read model holds them once it holds {@code asOfIndex} (as
     * {@link #entries}).
     */
    public void accounts(
        final Channel channel, final CharSequence requestId, final boolean keepAlive, final long tenantId, final String query,
        final long asOfIndex, final long receivedNs, final java.util.function.IntConsumer onReply)
    {
        final HttpReplies.Hole hole = HttpReplies.hold(channel, requestId, onReply);   // this reply's place in the connection's order
        afterWriter(hole, channel, keepAlive, asOfIndex, receivedNs, LATEST_STATE, () ->
        {
            final AccountsFilter filter = ReadQuery.accounts(query);
            final List<AccountRow> rows = readModel.accounts(tenantId, filter);
            fillJson(hole, channel, keepAlive, 256 + rows.size() * 300, json ->
            {
                json.writeStartObject();
                json.writeArrayFieldStart("accounts");
                for (final AccountRow row : rows)
                {
                    final int digits = CurrencyCode.minorDigits(CurrencyCode.pack(row.currency()));
                    json.writeStartObject();
                    json.writeStringField("id", Long.toString(row.accountId()));
                    json.writeStringField("currency", row.currency());
                    json.writeNumberField("subBalances", row.subBalances());
                    json.writeBooleanField("debitsMustNotExceedCredits", row.debitsMustNotExceedCredits());
                    json.writeStringField("overdraftLimit", Money.format(row.overdraftLimitMinor(), digits));
                    json.writeStringField("posted", Money.format(row.postedMinor(), digits));
                    json.writeStringField("held", Money.format(row.heldMinor(), digits));
                    json.writeStringField("available", Money.format(row.postedMinor() - row.heldMinor(), digits));
                    if (row.metadata() != null)
                    {
                        json.writeFieldName("metadata");
                        json.writeRawValue(new String(Metadata.canonicalOf(row.metadata()), java.nio.charset.StandardCharsets.UTF_8));
                    }
                    json.writeStringField("createdAt", IsoTime.text(row.createdAt()));
                    json.writeEndObject();
                }
                json.writeEndArray();
                if (rows.size() == filter.limit())
                {
                    json.writeStringField("next", Long.toString(rows.get(rows.size() - 1).accountId()));
                }
                json.writeEndObject();
            });
        });
    }

    /**
     * Answers {@code GET /v1/accounts/{id}/transfers} (query checked by the I/O thread, {@link ReadQuery#accountTransfers}):
     * a page of the transfers that moved the tenant's account, oldest first, each in the shape of
     * {@code GET /v1/transfers/{id}} with the account's side of it, once the read model holds {@code asOfIndex} (as
     * {@link #entries}).
     * <pre>
     * {"accountId","transfers":[{"entryId","direction":"debit"|"credit","transfer":{...}}...],["next"]}
     * </pre>
     */
    public void accountTransfers(
        final Channel channel, final CharSequence requestId, final boolean keepAlive, final long tenantId, final long accountId,
        final String query, final long asOfIndex, final long receivedNs, final java.util.function.IntConsumer onReply)
    {
        final HttpReplies.Hole hole = HttpReplies.hold(channel, requestId, onReply);   // this reply's place in the connection's order
        afterWriter(hole, channel, keepAlive, asOfIndex, receivedNs, LATEST_STATE, () ->
        {
            final AccountTransfersFilter filter = ReadQuery.accountTransfers(query);
            if (accountDigits(tenantId, accountId) < 0)
            {
                problem(hole, channel, keepAlive, NO_SUCH_ACCOUNT);
                return;
            }
            final List<AccountTransferRow> rows = readModel.accountTransfers(tenantId, accountId, filter);
            fill(hole, channel, keepAlive, 256 + rows.size() * 400, body ->
            {
                ascii(body, "{\"accountId\":\"" + accountId + "\",\"transfers\":[");
                final ResponseRenderer renderer = RENDERERS.get();
                for (int i = 0; i < rows.size(); i++)
                {
                    final AccountTransferRow row = rows.get(i);
                    ascii(body, (i == 0 ? "" : ",") + "{\"entryId\":\"" + row.entryId() + "\",\"direction\":\"" +
                        (row.debit() ? "debit" : "credit") + "\",\"transfer\":");
                    final TransferRow transfer = row.transfer();
                    renderer.renderTransfer(viewOf(transfer), transfer.metadata() == null ? null : Metadata.canonicalOf(transfer.metadata()), body);
                    ascii(body, "}");
                }
                ascii(body, "]");
                if (rows.size() == filter.limit())
                {
                    ascii(body, ",\"next\":\"" + rows.get(rows.size() - 1).entryId() + "\"");
                }
                ascii(body, "}");
            });
        });
    }

    /** Writes a reply body. */
    @FunctionalInterface
    private interface BodyWriter
    {
        void write(ByteBuf body) throws IOException;
    }

    /** Writes a JSON reply body through a generator. */
    @FunctionalInterface
    private interface JsonWriter
    {
        void write(JsonGenerator json) throws IOException;
    }

    /**
     * Fills {@code hole} with a 200 whose body {@code writer} writes into a buffer of about {@code sizeHint} bytes; when
     * it fails the buffer is released and the failure's 503 fills the hole instead.
     */
    private static void fill(
        final HttpReplies.Hole hole, final Channel channel, final boolean keepAlive, final int sizeHint, final BodyWriter writer)
        throws IOException
    {
        final ByteBuf body = channel.alloc().buffer(sizeHint);
        try
        {
            writer.write(body);
        }
        catch (final IOException | RuntimeException ex)
        {
            body.release();
            throw ex;
        }
        HttpReplies.fill(hole, 200, "application/json", body, keepAlive, 0);
    }

    /** {@link #fill} with a JSON generator over the body. */
    private static void fillJson(
        final HttpReplies.Hole hole, final Channel channel, final boolean keepAlive, final int sizeHint, final JsonWriter writer)
        throws IOException
    {
        fill(hole, channel, keepAlive, sizeHint, body ->
        {
            try (JsonGenerator json = JSON.createGenerator((java.io.OutputStream)new ByteBufOutputStream(body)))
            {
                writer.write(json);
            }
        });
    }

    private static void ascii(final ByteBuf body, final String text)
    {
        body.writeCharSequence(text, java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static long epochNs(final java.time.Instant instant)
    {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
    }

    /** Renders a transfer on the pool thread and fills its reply's place; {@code metadata} null for none. */
    private static void replyTransfer(
        final HttpReplies.Hole hole, final Channel channel, final boolean keepAlive, final TransferView view, final byte[] metadata)
    {
        reply(hole, channel, keepAlive, 512, body -> RENDERERS.get().renderTransfer(view, metadata, body));
    }

    /** Renders a reply on the pool thread into a buffer of about {@code sizeHint} bytes and fills its place with it. */
    private static void reply(
        final HttpReplies.Hole hole, final Channel channel, final boolean keepAlive, final int sizeHint,
        final java.util.function.Function<ByteBuf, RenderedResponse> renderer)
    {
        final ByteBuf body = channel.alloc().buffer(sizeHint);
        final RenderedResponse rendered;
        try
        {
            rendered = renderer.apply(body);
        }
        catch (final RuntimeException ex)
        {
            body.release();   // not written: the failure's reply fills the hole instead
            throw ex;
        }
        HttpReplies.fill(hole, rendered.status(), rendered.contentType(), body, keepAlive, 0);
    }

    /**
     * A stored transfer as memory would hold it, so that both render through the same {@link ResponseRenderer}: one
     * shape, one number and time format, whichever of the two answers.
     */
    private static TransferView viewOf(final TransferRow row)
    {
        final TransferView view = new TransferView();
        view.found = true;
        view.journalIndex = row.journalIndex();
        view.timestampNs = epochNs(row.createdAt());
        view.tenantId = row.tenantId();
        view.kind = TransferKind.of(row.kind());
        view.debitAccountId = row.debitAccountId();
        view.creditAccountId = row.creditAccountId();
        view.amountMinor = row.amountMinor();
        view.reversedMinor = row.reversedMinor();
        view.currency = CurrencyCode.pack(row.currency());
        if (row.reversesId() != null)
        {
            view.reversesIndex = Uuid7.journalIndex(row.reversesId().getMostSignificantBits(), row.reversesId().getLeastSignificantBits());
            view.reversesTimestampNs = Uuid7.timestampNs(row.reversesId().getMostSignificantBits());
        }
        if (row.reference() != null)
        {
            final byte[] reference = row.reference().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            System.arraycopy(reference, 0, view.reference, 0, reference.length);
            view.referenceLength = reference.length;
        }
        return view;
    }

    private int accountDigits(final long tenantId, final long accountId) throws Exception
    {
        return readModel.accountMinorDigits(tenantId, accountId);
    }

    private void submit(final HttpReplies.Hole hole, final Channel channel, final boolean keepAlive, final Query query)
    {
        submit(new PendingRead(hole, channel, keepAlive, query));
    }

    private void submit(final PendingRead read)
    {
        try
        {
            pool.execute(read);
        }
        catch (final RejectedExecutionException ex)
        {
            if (!pool.isShutdown())
            {
                refusedBusy.increment();
            }
            read.refuse(ProblemType.SERVICE_UNAVAILABLE, pool.isShutdown() ? "The server is stopping." : "Too many history reads in flight.");
        }
    }

    /** A query with the hole it answers into: run by the pool, or refused with a problem when it cannot run. */
    private static final class PendingRead implements Runnable
    {
        private final HttpReplies.Hole hole;
        private final Channel channel;
        private final boolean keepAlive;
        private final Query query;

        PendingRead(final HttpReplies.Hole hole, final Channel channel, final boolean keepAlive, final Query query)
        {
            this.hole = hole;
            this.channel = channel;
            this.keepAlive = keepAlive;
            this.query = query;
        }

        @Override
        public void run()
        {
            try
            {
                query.run();
            }
            catch (final Exception ex)
            {
                LOG.warn("read model query failed", ex);
                problem(hole, channel, keepAlive, new Problem(ProblemType.SERVICE_UNAVAILABLE, "The read model is not reachable."));
            }
            catch (final Error error)
            {
                // the connection's later replies wait behind this hole: fill it before giving up
                problem(hole, channel, keepAlive, new Problem(ProblemType.INTERNAL_ERROR, "The history read failed."));
                throw error;
            }
        }

        void refuse(final ProblemType type, final String detail)
        {
            problem(hole, channel, keepAlive, new Problem(type, detail));
        }
    }

    private static void problem(final HttpReplies.Hole hole, final Channel channel, final boolean keepAlive, final Problem problem)
    {
        final byte[] json = problem.toJson();
        HttpReplies.fill(hole, problem.status(), Problem.CONTENT_TYPE, channel.alloc().buffer(json.length).writeBytes(json), keepAlive,
            problem.status() == 503 ? 1 : 0);
    }

    /** @return reads answered 503 because the read model's writer had not reached what they wait for (metrics). */
    public long refusedWriterBehind()
    {
        return refusedWriterBehind.sum();
    }

    /** @return reads answered 503 because too many were queued or waiting for the writer already (metrics). */
    public long refusedBusy()
    {
        return refusedBusy.sum();
    }

    /**
     * Stops the threads and answers every read still waiting, for the writer or in the pool's queue, with 503. A read
     * the pool is running finishes; a wait the timer is checking right now is answered by whichever gets there first.
     */
    @Override
    public void close()
    {
        writerWaits.shutdownNow();   // its queued checks would only cancel themselves now: answered below instead
        for (final WriterWait wait : writersAwaited)
        {
            wait.refuse(ProblemType.SERVICE_UNAVAILABLE, "The server is stopping.");
        }
        for (final Runnable read : pool.shutdownNow())
        {
            ((PendingRead)read).refuse(ProblemType.SERVICE_UNAVAILABLE, "The server is stopping.");
        }
        try
        {
            // The reads already running answer (and release the replies queued behind theirs) before the connections close.
            pool.awaitTermination(RUNNING_READS_WAIT_MAX_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static final long RUNNING_READS_WAIT_MAX_MS = 2_000;

    @FunctionalInterface
    private interface Query
    {
        void run() throws Exception;
    }
}
