package dev.tally.gateway.api;

import dev.tally.gateway.api.json.JsonOut;
import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.problem.ProblemType;

import dev.tally.ledger.account.Accounts;
import dev.tally.ledger.account.LowBalanceAlert;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.query.HoldView;
import dev.tally.ledger.query.TransferView;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import dev.tally.ledger.transfer.TransferKind;
import io.netty.buffer.ByteBuf;

/**
 * Renders replies as compact JSON straight into a {@link ByteBuf}: command results (201 or a problem),
 * batches (200 with one entry per operation), reads (200) and problems.
 *
 * <p><b>Replays are byte-identical.</b> A mutating reply is rendered only from the {@link Result} and the
 * payload of the {@link Command}: on a replay the fingerprint matched, so the payload is the same, and the
 * stored result keeps the first command's {@link Result#originIndex} and {@link Result#originTimestampNs},
 * so ids and {@code createdAt} are the same. Nothing else is read: not the clock, not current balances,
 * not the replay flag (that goes to {@link RenderedResponse#replayed()}, i.e. a header).
 *
 * <p>Ids: the transfer, reversal or capture transfer a command created is
 * {@code Uuid7(originTimestampNs, KIND_TRANSFER, originIndex, 0)}; a hold is the same with
 * {@code KIND_HOLD}; the transfer or hold a result refers to is built from {@link Result#extra} and
 * {@link Result#extraTimestampNs}. Account ids (client-chosen 63-bit integers) are JSON strings of their decimal
 * digits, as every 64-bit id Tally writes: a JavaScript client reads a JSON number through a double, exact only up to
 * 2^53. Amounts are decimal strings in major units of the result's currency; times are ISO-8601 UTC with milliseconds.
 *
 * <p>A replay renders again from the stored result, with this binary's rendering: two retries answered by one binary are
 * byte-identical, and a binary that renders otherwise answers a key stored by another with the same values in its own shape.
 *
 * <p>Successful mutating bodies, by command type (all 201):
 * <pre>
 * CREATE_ACCOUNT    {"id","currency","subBalances","debitsMustNotExceedCredits","overdraftLimit",["lowBalanceAlert"],"posted","held",
 *                    "available","subBalanceDetail",["metadata"],"createdAt"}
 * TRANSFER          {"id","kind":"transfer","debitAccountId","creditAccountId","amount","currency",["reference"],["metadata"],"createdAt"}
 * REVERSE_TRANSFER  {"id","kind":"reversal","reversedTransferId","debitAccountId","creditAccountId","amount","currency","createdAt"}
 * CREATE_HOLD       {"id","accountId","amount","currency","expiresAt","createdAt"}
 * CAPTURE_HOLD      {"holdId","transferId","kind":"capture","debitAccountId","creditAccountId","amount","currency","createdAt"}
 * VOID_HOLD         {"holdId","accountId","releasedAmount","currency","voidedAt"}
 * FREEZE_ACCOUNT(_ALL), UNFREEZE_ACCOUNT, CLOSE_ACCOUNT (200: a change of an existing account, nothing created)
 *                   {"id","status","creditsFrozen","frozenAt"|"unfrozenAt"|"closedAt"}
 * UPDATE_ACCOUNT_METADATA (200, as the lifecycle's)
 *                   {"id","metadata","updatedAt"}   ({@code "metadata":{}} when the update removed it)
 * SET_LOW_BALANCE_ALERT (200 too) {"id","lowBalanceAlert":{"threshold","state"} or null when removed,"changedAt"}
 * </pre>
 * {@code lowBalanceAlert} of a creation, only when it set one, is the threshold and the state it starts in
 * ({@code waiting}: a new account is at zero); a set's is the state the threshold started in, from the stored result.
 * The lifecycle replies describe the status the command asked for, not the account as it stands now, so that a replay
 * renders the same bytes whatever came after.
 *
 * <p>One per rendering thread: not thread-safe; the returned {@link RenderedResponse} is reused.
 */
public final class ResponseRenderer
{
    private static final int STATUS_OK = 200;
    private static final int STATUS_CREATED = 201;
    private static final String ACTIVE = "active";
    private static final String FROZEN = "frozen";
    private static final String CLOSED = "closed";
    private static final int RETRY_AFTER_SECONDS = 1;
    /** The metadata an update without any leaves: none, shown as the empty object the request sent. */
    private static final byte[] NO_METADATA = {'{', '}'};
    private static final byte[] JSON_NULL = {'n', 'u', 'l', 'l'};

    private final JsonOut json = new JsonOut();
    private final RenderedResponse response = new RenderedResponse();

    /**
     * Renders the reply to one command.
     *
     * @param command the command as decoded (its payload; on a replay, the retry's identical payload).
     * @param result  the ledger's result for it (stored one on a replay).
     * @param body    receives the JSON body.
     * @return the envelope: 201 and {@link RenderedResponse#JSON}, or the problem's status and
     * {@link Problem#CONTENT_TYPE}.
     * @throws IllegalArgumentException for a command type no request produces ({@code TICK}).
     */
    public RenderedResponse render(final Command command, final Result result, final ByteBuf body)
    {
        json.wrap(body);
        final int status = writeResult(command, result);
        return response.set(status, result.code.isSuccess() ? RenderedResponse.JSON : Problem.CONTENT_TYPE, result.replayed,
            retryAfter(status));
    }

    /**
     * Renders the reply to a batch: always 200, with each operation's status and body exactly as
     * {@link #render} would give them for a single request.
     * <pre>
     * {"atomic":false,"results":[{"index":0,"status":201,"body":{...}},{"index":1,"status":422,"replayed":true,"body":{...}}]}
     * </pre>
     * {@code "replayed":true} appears on an operation whose result was replayed (the per-operation form of
     * the {@code Idempotent-Replayed} header); each {@code "body"} is byte-identical across replays.
     *
     * @param commands the batch's commands, positions 0 to {@code count - 1}.
     * @param results  their results, same positions.
     * @param count    the batch size.
     */
    public RenderedResponse renderBatch(final Command[] commands, final Result[] results, final int count, final ByteBuf body)
    {
        json.wrap(body);
        boolean allReplayed = count > 0;
        json.beginObject().field("atomic", count > 0 && commands[0].atomic).name("results").beginArray();
        for (int i = 0; i < count; i++)
        {
            final Result result = results[i];
            allReplayed &= result.replayed;
            json.beginObject().field("index", i).field("status", statusOf(commands[i].type, result.code));
            if (result.replayed)
            {
                json.field("replayed", true);
            }
            json.name("body");
            writeResult(commands[i], result);
            json.endObject();
        }
        json.endArray().endObject();
        return response.set(STATUS_OK, RenderedResponse.JSON, allReplayed, 0);
    }

    /**
     * Renders {@code GET /v1/accounts/{id}} of an account without metadata: see {@link #renderAccount(AccountView, byte[], ByteBuf)}.
     */
    public RenderedResponse renderAccount(final AccountView view, final ByteBuf body)
    {
        return renderAccount(view, null, body);
    }

    /**
     * Renders {@code GET /v1/accounts/{id}}: 200 with balances in total and per sub-balance, or 404.
     * <pre>
     * {"id","currency","subBalances","debitsMustNotExceedCredits","overdraftLimit","status","creditsFrozen",["lowBalanceAlert"],["metadata"],
     *  "posted","held","available","subBalanceDetail":[{"index","posted","held","available"}...],["createdAt"]}
     * </pre>
     * {@code status} is {@code active}, {@code frozen} (debits refused; credits too when {@code creditsFrozen}) or
     * {@code closed}. An account with a low-balance threshold has {@code "lowBalanceAlert":{"threshold","state"}} after
     * {@code creditsFrozen}; one without has no such member. {@code createdAt} is the creation reply's, from the journaled
     * time the ledger keeps; absent only for an account restored from a snapshot written before the ledger kept it (a
     * replay of the journal restores it).
     *
     * @param metadata the account's canonical metadata, which memory does not keep (the read model's); null for none.
     */
    public RenderedResponse renderAccount(final AccountView view, final byte[] metadata, final ByteBuf body)
    {
        if (!view.found)
        {
            return renderProblem(new Problem(ProblemType.NOT_FOUND, "the account does not exist"), body);
        }
        final int digits = CurrencyCode.minorDigits(view.currency);
        final long posted = view.postedTotal();
        final long held = view.heldTotal();
        json.wrap(body).beginObject()
            .idField("id", view.accountId)
            .name("currency").currency(view.currency)
            .field("subBalances", view.subBalances)
            .field("debitsMustNotExceedCredits", view.debitsMustNotExceedCredits);
        json.name("overdraftLimit").money(view.overdraftLimitMinor, digits);
        json.field("status", statusName(view.status))
            .field("creditsFrozen", (view.status & Accounts.Status.CREDITS_FROZEN) != 0);
        if (view.lowBalanceAlertState != LowBalanceAlert.NONE)
        {
            writeLowBalanceAlert(view.lowBalanceThresholdMinor, view.lowBalanceAlertState, digits);
        }
        if (metadata != null && metadata.length > 0)
        {
            json.name("metadata").raw(metadata, metadata.length);
        }
        json.name("posted").money(posted, digits);
        json.name("held").money(held, digits);
        json.name("available").money(posted - held, digits);
        json.name("subBalanceDetail").beginArray();
        for (int i = 0; i < view.subBalances; i++)
        {
            json.beginObject().field("index", i);
            json.name("posted").money(view.postedMinor[i], digits);
            json.name("held").money(view.heldMinor[i], digits);
            json.name("available").money(view.postedMinor[i] - view.heldMinor[i], digits);
            json.endObject();
        }
        json.endArray();
        if (view.createdNs != 0)
        {
            json.name("createdAt").time(Math.floorDiv(view.createdNs, 1_000_000L));
        }
        json.endObject();
        return response.set(STATUS_OK, RenderedResponse.JSON, false, 0);
    }

    /**
     * Renders {@code GET /v1/transfers/{id}}: 200 or 404.
     * <pre>
     * {"id","kind","debitAccountId","creditAccountId","amount","currency","reversedAmount",["reversedTransferId"],["reference"],["metadata"],"createdAt"}
     * </pre>
     */
    public RenderedResponse renderTransfer(final TransferView view, final ByteBuf body)
    {
        return renderTransfer(view, null, body);
    }

    /**
     * Renders {@code GET /v1/transfers/{id}} of a transfer memory holds, with its canonical metadata (which memory
     * does not keep: the read model's; null for none).
     */
    public RenderedResponse renderTransfer(final TransferView view, final byte[] metadata, final ByteBuf body)
    {
        if (!view.found)
        {
            return renderProblem(new Problem(ProblemType.NOT_FOUND, "the transfer does not exist"), body);
        }
        final int digits = CurrencyCode.minorDigits(view.currency);
        json.wrap(body).beginObject();
        json.name("id").uuid(Uuid7.hi(view.timestampNs, Uuid7.KIND_TRANSFER), Uuid7.lo(view.journalIndex, 0));
        json.field("kind", TransferKind.name(view.kind))
            .idField("debitAccountId", view.debitAccountId)
            .idField("creditAccountId", view.creditAccountId);
        json.name("amount").money(view.amountMinor, digits);
        json.name("currency").currency(view.currency);
        json.name("reversedAmount").money(view.reversedMinor, digits);
        if (view.kind == TransferKind.REVERSAL)
        {
            json.name("reversedTransferId").uuid(
                Uuid7.hi(view.reversesTimestampNs, Uuid7.KIND_TRANSFER), Uuid7.lo(view.reversesIndex, 0));
        }
        if (view.referenceLength > 0)
        {
            json.name("reference").string(view.reference, view.referenceLength);
        }
        if (metadata != null && metadata.length > 0)
        {
            json.name("metadata").raw(metadata, metadata.length);
        }
        json.name("createdAt").time(Math.floorDiv(view.timestampNs, 1_000_000L));
        json.endObject();
        return response.set(STATUS_OK, RenderedResponse.JSON, false, 0);
    }

    /**
     * Renders {@code GET /v1/holds/{id}}: 200, one shape whether memory (a live hold) or the read model (any hold) answers.
     * <pre>
     * {"id","state","accountId","amount","capturedAmount","releasedAmount","remainingAmount","currency","expiresAt","createdAt",
     *  ["resolvedAt"],["capturedTransferId"]}
     * </pre>
     * {@code remainingAmount} is what the hold still reserves (its amount while active or unknown, else zero);
     * {@code releasedAmount} what it gave back to the account's available balance (a void's or an expiry's whole amount,
     * the rest of a partial capture).
     *
     * @param state            {@code active}, {@code unknown}, {@code captured}, {@code voided} or {@code expired}.
     * @param capturedMinor    the amount captured (0 unless captured).
     * @param resolvedAtMs     when it was captured, voided or expired, epoch ms; negative while live.
     * @param capturedTransfer for a captured hold, the transfer the capture posted as {hi, lo}; otherwise null.
     */
    public RenderedResponse renderHold(
        final HoldView hold, final String state, final long capturedMinor, final long resolvedAtMs, final long[] capturedTransfer,
        final ByteBuf body)
    {
        final int digits = CurrencyCode.minorDigits(hold.currency);
        final boolean live = resolvedAtMs < 0;
        json.wrap(body).beginObject();
        json.name("id").uuid(Uuid7.hi(hold.timestampNs, Uuid7.KIND_HOLD), Uuid7.lo(hold.journalIndex, 0));
        json.field("state", state).idField("accountId", hold.accountId);
        json.name("amount").money(hold.amountMinor, digits);
        json.name("capturedAmount").money(capturedMinor, digits);
        json.name("releasedAmount").money(live ? 0 : hold.amountMinor - capturedMinor, digits);
        json.name("remainingAmount").money(live ? hold.amountMinor : 0, digits);
        json.name("currency").currency(hold.currency);
        json.name("expiresAt").time(Math.floorDiv(hold.deadlineNs, 1_000_000L));
        json.name("createdAt").time(Math.floorDiv(hold.timestampNs, 1_000_000L));
        if (!live)
        {
            json.name("resolvedAt").time(resolvedAtMs);
        }
        if (capturedTransfer != null)
        {
            json.name("capturedTransferId").uuid(capturedTransfer[0], capturedTransfer[1]);
        }
        json.endObject();
        return response.set(STATUS_OK, RenderedResponse.JSON, false, 0);
    }

    /** Renders a problem as {@link Problem#CONTENT_TYPE} with its status. */
    public RenderedResponse renderProblem(final Problem problem, final ByteBuf body)
    {
        problem.writeTo(json.wrap(body));
        return response.set(problem.status(), Problem.CONTENT_TYPE, false, retryAfter(problem.status()));
    }

    /** @return the HTTP status a result of a creating command (any but the lifecycle's) renders with. */
    public static int statusOf(final ResultCode code)
    {
        return statusOf(CommandType.TRANSFER, code);
    }

    /**
     * @return the HTTP status a result renders with: 201 for success (200 for a lifecycle command or a metadata update,
     * which create nothing), else its problem's status.
     */
    public static int statusOf(final CommandType type, final ResultCode code)
    {
        return code.isSuccess() ? successStatus(type) : problemOf(type, code).status();
    }

    /**
     * @return the problem type of a rejection: its code's, but for a command on an existing account (the lifecycle, a
     * low-balance alert, its metadata), whose account is the resource its path names, an unknown account (or another
     * tenant's) is {@code not-found} (404), as a read of it is.
     */
    private static ProblemType problemOf(final CommandType type, final ResultCode code)
    {
        return code == ResultCode.ACCOUNT_NOT_FOUND && changesAnAccount(type) ? ProblemType.NOT_FOUND : ProblemType.of(code);
    }

    private static int successStatus(final CommandType type)
    {
        return changesAnAccount(type) ? STATUS_OK : STATUS_CREATED;
    }

    /** @return true for the commands that change an existing account and create nothing: answered 200, not 201. */
    private static boolean changesAnAccount(final CommandType type)
    {
        return type == CommandType.FREEZE_ACCOUNT || type == CommandType.FREEZE_ACCOUNT_ALL || type == CommandType.UNFREEZE_ACCOUNT ||
            type == CommandType.CLOSE_ACCOUNT || type == CommandType.SET_LOW_BALANCE_ALERT || type == CommandType.UPDATE_ACCOUNT_METADATA;
    }

    private static String statusName(final int status)
    {
        if ((status & Accounts.Status.CLOSED) != 0)
        {
            return CLOSED;
        }
        return (status & Accounts.Status.DEBITS_FROZEN) != 0 ? FROZEN : ACTIVE;
    }

    /** Writes the body of one command's reply; returns its status. */
    private int writeResult(final Command command, final Result result)
    {
        if (result.code.isSuccess())
        {
            writeSuccess(command, result);
            return successStatus(command.type);
        }
        final ProblemType type = problemOf(command.type, result.code);
        writeRejection(type, command, result);
        return type.status();
    }

    private void writeSuccess(final Command c, final Result r)
    {
        final int digits = CurrencyCode.minorDigits(r.currency);
        final int currency = r.currency;
        final long createdMs = Math.floorDiv(r.originTimestampNs, 1_000_000L);
        json.beginObject();
        switch (c.type)
        {
            case CREATE_ACCOUNT:
                json.idField("id", r.accountA).name("currency").currency(currency).field("subBalances", c.subBalances)
                    .field("debitsMustNotExceedCredits", c.debitsMustNotExceedCredits);
                json.name("overdraftLimit").money(c.overdraftLimitMinor, digits);
                if (c.amountMinor > 0)
                {
                    // only with a threshold: a creation without one renders the bytes it did before thresholds existed
                    writeLowBalanceAlert(c.amountMinor, LowBalanceAlert.WAITING, digits);
                }
                writeNewAccountBalances(c.subBalances, digits);
                echoMetadata(c);
                json.name("createdAt").time(createdMs);
                break;
            case TRANSFER:
                json.name("id").uuid(Uuid7.hi(r.originTimestampNs, Uuid7.KIND_TRANSFER), Uuid7.lo(r.originIndex, 0));
                json.field("kind", TransferKind.name(TransferKind.TRANSFER));
                writeMove(r, digits, currency);
                if (c.referenceLength > 0)
                {
                    json.name("reference").string(c.reference, c.referenceLength);
                }
                echoMetadata(c);
                json.name("createdAt").time(createdMs);
                break;
            case REVERSE_TRANSFER:
                json.name("id").uuid(Uuid7.hi(r.originTimestampNs, Uuid7.KIND_TRANSFER), Uuid7.lo(r.originIndex, 0));
                json.field("kind", TransferKind.name(TransferKind.REVERSAL));
                json.name("reversedTransferId").uuid(Uuid7.hi(r.extraTimestampNs, Uuid7.KIND_TRANSFER), Uuid7.lo(r.extra, 0));
                writeMove(r, digits, currency);
                json.name("createdAt").time(createdMs);
                break;
            case CREATE_HOLD:
                json.name("id").uuid(Uuid7.hi(r.originTimestampNs, Uuid7.KIND_HOLD), Uuid7.lo(r.originIndex, 0));
                json.idField("accountId", r.accountA);
                json.name("amount").money(r.amountMinor, digits);
                json.name("currency").currency(currency);
                json.name("expiresAt").time(r.extra);
                json.name("createdAt").time(createdMs);
                break;
            case CAPTURE_HOLD:
                json.name("holdId").uuid(Uuid7.hi(r.extraTimestampNs, Uuid7.KIND_HOLD), Uuid7.lo(r.extra, 0));
                json.name("transferId").uuid(Uuid7.hi(r.originTimestampNs, Uuid7.KIND_TRANSFER), Uuid7.lo(r.originIndex, 0));
                json.field("kind", TransferKind.name(TransferKind.CAPTURE));
                writeMove(r, digits, currency);
                json.name("createdAt").time(createdMs);
                break;
            case VOID_HOLD:
            case MARK_HOLD_UNKNOWN:
                json.name("holdId").uuid(Uuid7.hi(r.extraTimestampNs, Uuid7.KIND_HOLD), Uuid7.lo(r.extra, 0));
                json.idField("accountId", r.accountA);
                json.name(c.type == CommandType.VOID_HOLD ? "releasedAmount" : "amount").money(r.amountMinor, digits);
                json.name("currency").currency(currency);
                json.name(c.type == CommandType.VOID_HOLD ? "voidedAt" : "markedAt").time(createdMs);
                break;
            case FREEZE_ACCOUNT:
            case FREEZE_ACCOUNT_ALL:
                writeLifecycle(r, FROZEN, c.type == CommandType.FREEZE_ACCOUNT_ALL, "frozenAt", createdMs);
                break;
            case UNFREEZE_ACCOUNT:
                writeLifecycle(r, ACTIVE, false, "unfrozenAt", createdMs);
                break;
            case CLOSE_ACCOUNT:
                writeLifecycle(r, CLOSED, false, "closedAt", createdMs);
                break;
            case UPDATE_ACCOUNT_METADATA:
                json.idField("id", r.accountA);
                if (c.metadataLength > 0)
                {
                    echoMetadata(c);
                }
                else
                {
                    json.name("metadata").raw(NO_METADATA, NO_METADATA.length);
                }
                json.name("updatedAt").time(createdMs);
                break;
            case SET_LOW_BALANCE_ALERT:
                json.idField("id", r.accountA);
                if (r.extra == LowBalanceAlert.NONE)
                {
                    json.name("lowBalanceAlert").raw(JSON_NULL, JSON_NULL.length);
                }
                else
                {
                    writeLowBalanceAlert(r.amountMinor, (int)r.extra, digits);
                }
                json.name("changedAt").time(createdMs);
                break;
            default:
                throw new IllegalArgumentException("no reply for command type " + c.type);
        }
        json.endObject();
    }

    /** Echoes the command's metadata, if any: on a replay the retry's own canonical bytes, the same since the fingerprint covers them. */
    private void echoMetadata(final Command c)
    {
        if (c.metadataLength > 0)
        {
            json.name("metadata").raw(c.metadata.array(), c.metadataLength);
        }
    }

    private void writeLowBalanceAlert(final long thresholdMinor, final int state, final int digits)
    {
        json.name("lowBalanceAlert").beginObject();
        json.name("threshold").money(thresholdMinor, digits);
        json.field("state", LowBalanceAlert.name(state)).endObject();
    }

    private void writeLifecycle(final Result r, final String status, final boolean creditsFrozen, final String at, final long atMs)
    {
        json.idField("id", r.accountA).field("status", status).field("creditsFrozen", creditsFrozen);
        json.name(at).time(atMs);
    }

    /**
     * A new account's balances, all zero, in the shape {@code GET /v1/accounts/{id}} gives them (the spec's account
     * "out" shape): the same on a replay, whatever moved since, since they describe the account as created.
     */
    private void writeNewAccountBalances(final int subBalances, final int digits)
    {
        json.name("posted").money(0, digits);
        json.name("held").money(0, digits);
        json.name("available").money(0, digits);
        json.name("subBalanceDetail").beginArray();
        for (int i = 0; i < subBalances; i++)
        {
            json.beginObject().field("index", i);
            json.name("posted").money(0, digits);
            json.name("held").money(0, digits);
            json.name("available").money(0, digits);
            json.endObject();
        }
        json.endArray();
    }

    private void writeMove(final Result r, final int digits, final int currency)
    {
        json.idField("debitAccountId", r.accountA).idField("creditAccountId", r.accountB);
        json.name("amount").money(r.amountMinor, digits);
        json.name("currency").currency(currency);
    }

    /**
     * Writes the problem of a ledger rejection. Details are fixed per type; what varies goes in extension
     * members taken from the result and the command payload only, so a stored rejection replays identically.
     */
    private void writeRejection(final ProblemType type, final Command c, final Result r)
    {
        final long accountId = accountRejected(type, c, r);
        json.beginObject().field("type", type.uri()).field("title", type.title()).field("status", type.status())
            .field("detail", accountId > 0 ? detailNaming(type, c, r, accountId) : lifecycleDetail(type, r));
        switch (type)
        {
            case ACCOUNT_EXISTS:
                json.idField("accountId", r.accountA);
                break;
            case ACCOUNT_FROZEN:
            case ACCOUNT_CLOSED:
            case ACCOUNT_NOT_EMPTY:
                json.idField("accountId", r.extra);
                break;
            case NOT_FOUND:
            case ACCOUNT_NOT_FOUND:
            case CURRENCY_MISMATCH:
                if (accountId > 0)
                {
                    json.idField("accountId", accountId);
                }
                break;
            case INSUFFICIENT_FUNDS:
                json.idField("accountId", r.accountA);
                json.name("amount").money(r.amountMinor, CurrencyCode.minorDigits(r.currency));
                json.name("currency").currency(r.currency);
                break;
            case DUPLICATE_REFERENCE:
                json.name("existingTransferId").uuid(Uuid7.hi(r.extraTimestampNs, Uuid7.KIND_TRANSFER), Uuid7.lo(r.extra, 0));
                json.name("reference").string(c.reference, c.referenceLength);
                break;
            case TRANSFER_NOT_FOUND:
            case REVERSAL_EXCEEDS_REMAINING:
                json.name("transferId").uuid(c.targetIdHi, c.targetIdLo);
                break;
            case HOLD_NOT_ACTIVE:
            case CAPTURE_EXCEEDS_HOLD:
                json.name("holdId").uuid(c.targetIdHi, c.targetIdLo);
                break;
            default:
                break;
        }
        json.endObject();
    }

    /**
     * @return the account an {@code account-not-found} or {@code currency-mismatch} rejection is about, or 0 when the
     *         result and the payload do not tell, which is all a rejection may show (a replay must render the same bytes):
     *         a hold, a freeze, an unfreeze, a close, a metadata update and a low-balance alert have one account; a capture
     *         looks up only its credit account, after checking the currency the request gave (a mismatch there is with the
     *         hold, no account's). A transfer looks up two: its result names the one that failed in {@code extra}, 0 for a
     *         transfer journaled before the ledger recorded it ({@link Command#rejectionNamesAccount}), whose stored
     *         rejection names none.
     */
    private static long accountRejected(final ProblemType type, final Command c, final Result r)
    {
        if (type != ProblemType.ACCOUNT_NOT_FOUND && type != ProblemType.CURRENCY_MISMATCH && type != ProblemType.NOT_FOUND)
        {
            return 0;
        }
        switch (c.type)
        {
            case CREATE_HOLD:
            case FREEZE_ACCOUNT:
            case FREEZE_ACCOUNT_ALL:
            case UNFREEZE_ACCOUNT:
            case CLOSE_ACCOUNT:
            case UPDATE_ACCOUNT_METADATA:
            case SET_LOW_BALANCE_ALERT:
                return r.accountA;
            case CAPTURE_HOLD:
                return type == ProblemType.ACCOUNT_NOT_FOUND || c.currency == 0 || c.currency == r.currency ? r.accountB : 0;
            case TRANSFER:
                return r.extra;
            default:
                return 0;
        }
    }

    /** @return the detail of a lifecycle rejection, which names the account the result's {@code extra} holds; else the type's. */
    private static String lifecycleDetail(final ProblemType type, final Result r)
    {
        switch (type)
        {
            case ACCOUNT_FROZEN: return "account " + r.extra + " is frozen";
            case ACCOUNT_CLOSED: return "account " + r.extra + " is closed";
            case ACCOUNT_NOT_EMPTY: return "account " + r.extra + " still has posted or held money: it closes only at zero";
            default: return detailOf(type);
        }
    }

    /** @return the detail of a rejection about {@code accountId} ({@link #accountRejected}), which it names. */
    private static String detailNaming(final ProblemType type, final Command c, final Result r, final long accountId)
    {
        if (type == ProblemType.ACCOUNT_NOT_FOUND || type == ProblemType.NOT_FOUND)
        {
            return "account " + accountId + " does not exist";
        }
        if (c.type == CommandType.SET_LOW_BALANCE_ALERT)
        {
            return "account " + accountId + " is in " + CurrencyCode.unpack(r.currency) + ": a threshold is in the account's currency";
        }
        return "account " + accountId + " is not in " + CurrencyCode.unpack(r.currency) + currencyOwner(c.type);
    }

    private static String currencyOwner(final CommandType type)
    {
        switch (type)
        {
            case CAPTURE_HOLD: return ", the currency of the hold";
            case TRANSFER: return ", the currency of the transfer";
            default: return ", the currency of the hold asked for";
        }
    }

    private static String detailOf(final ProblemType type)
    {
        switch (type)
        {
            case ACCOUNT_EXISTS: return "an account with this id already exists";
            case ACCOUNT_NOT_FOUND: return "an account named by the request does not exist";
            case CURRENCY_MISMATCH: return "the currency does not match the currency of the accounts or hold involved";
            case SAME_ACCOUNT: return "the debit and credit accounts are the same account";
            case INSUFFICIENT_FUNDS: return "the account does not have enough available funds";
            case AMOUNT_OVERFLOW: return "the operation would take a balance outside the supported range";
            case DUPLICATE_REFERENCE: return "another transfer already uses this reference";
            case TRANSFER_NOT_FOUND: return "no reversible transfer has this id";
            case REVERSAL_EXCEEDS_REMAINING: return "the reversal asks for more than what is left to reverse";
            case HOLD_NOT_ACTIVE: return "the hold is not active: it does not exist, or was captured, voided or expired";
            case CAPTURE_EXCEEDS_HOLD: return "the capture asks for more than the hold reserved";
            case LINKED_OPERATION_FAILED: return "another operation of the atomic batch failed, so this one was not applied";
            case INVALID_COMMAND: return "the ledger rejected the command as invalid";
            case IDEMPOTENCY_KEY_REUSED: return "this Idempotency-Key was already used with a different request";
            case CAPACITY_EXCEEDED: return "a capacity limit of the ledger is reached; retry later";
            case REFERENCE_CHECK_UNAVAILABLE:
                return "the reference could not be checked against older transfers (their store is unavailable); retry later";
            case COLD_INDEX_UNAVAILABLE:
                return "the ledger could not consult its cold index (older keys, references and transfers) for this request; " +
                    "nothing was applied: retry later with the same Idempotency-Key";
            case INVALID_AMOUNT: return "the amount has more decimals than the currency of the hold or transfer allows";
            default: return type.title();
        }
    }

    private static int retryAfter(final int status)
    {
        return status == 503 ? RETRY_AFTER_SECONDS : 0;
    }
}
