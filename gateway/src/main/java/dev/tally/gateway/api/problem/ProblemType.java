package dev.tally.gateway.api.problem;

import dev.tally.ledger.result.ResultCode;

/**
 * Every kind of error the API answers, each with a stable RFC 9457 {@code type} URI, a short human title
 * and its HTTP status. Clients branch on the {@link #uri()}; the slug is part of the public contract, so a
 * constant may be added but a slug is never renamed.
 *
 * <p>Three groups: request validation done on the I/O thread (never journaled, never stored under the
 * idempotency key), HTTP-level errors the transport layer raises, and ledger outcomes mapped from
 * {@link ResultCode} by {@link #of(ResultCode)}.
 */
public enum ProblemType
{
    // ---- validation on the I/O thread (400/404, not stored) ----
    /** The body is not one well-formed UTF-8 JSON object. */
    MALFORMED_JSON("malformed-json", "Malformed JSON", 400),
    /** Well-formed JSON that breaks the request schema: unknown, duplicate, missing or mistyped field, bad value. */
    INVALID_REQUEST("invalid-request", "Invalid request", 400),
    /** An amount that is not a positive decimal with at most the currency's minor digits, or that overflows. */
    INVALID_AMOUNT("invalid-amount", "Invalid amount", 400),
    /** A currency that is not three upper-case letters of an ISO 4217 code Tally accepts. */
    UNSUPPORTED_CURRENCY("unsupported-currency", "Unsupported currency", 400),
    /** A mutating request without an {@code Idempotency-Key}. */
    IDEMPOTENCY_KEY_MISSING("idempotency-key-missing", "Idempotency-Key missing", 400),
    /** An {@code Idempotency-Key} that is not 1 to 255 visible ASCII characters. */
    IDEMPOTENCY_KEY_INVALID("idempotency-key-invalid", "Idempotency-Key invalid", 400),
    /** A batch with more operations than {@code LedgerLimits.BATCH_OPERATIONS_MAX}. */
    BATCH_TOO_LARGE("batch-too-large", "Batch too large", 400),
    /** No such resource (or another tenant's), including a path id that cannot name one. */
    NOT_FOUND("not-found", "Not found", 404),
    /** The path exists but not for this HTTP method. */
    METHOD_NOT_ALLOWED("method-not-allowed", "Method not allowed", 405),

    // ---- raised by the HTTP layer ----
    /** No {@code Authorization: Bearer} key, or an unknown one. */
    UNAUTHORIZED("unauthorized", "Unauthorized", 401),
    /** The body exceeds the configured limit. */
    BODY_TOO_LARGE("body-too-large", "Body too large", 413),
    /** The request line (method, URI, version) exceeds the configured limit. */
    REQUEST_LINE_TOO_LONG("request-line-too-long", "Request line too long", 414),
    /** The request did not arrive whole within the read timeout (a slow or stalled client); the connection is closed. */
    REQUEST_TIMEOUT("request-timeout", "Request timeout", 408),
    /** The tenant sent more requests than its rate limit allows; retry after {@code Retry-After} seconds. */
    RATE_LIMITED("rate-limited", "Too many requests", 429),
    /** The header block exceeds the configured limit. */
    HEADERS_TOO_LARGE("headers-too-large", "Request headers too large", 431),
    /** A body that is not {@code application/json}. */
    UNSUPPORTED_MEDIA_TYPE("unsupported-media-type", "Unsupported media type", 415),
    /** The server is not ready (starting, replaying, or shutting down). */
    SERVICE_UNAVAILABLE("service-unavailable", "Service unavailable", 503),
    /** {@code POST /admin/snapshot} on a server started with {@code --no-snapshots}: it will never take one. */
    SNAPSHOTS_DISABLED("snapshots-disabled", "Snapshots disabled", 409),
    /** A bug: the server failed to handle a valid request. */
    INTERNAL_ERROR("internal-error", "Internal error", 500),

    // ---- ledger outcomes (stored and replayed unless noted on the ResultCode) ----
    ACCOUNT_EXISTS("account-exists", "Account exists", 409),
    ACCOUNT_NOT_FOUND("account-not-found", "Account not found", 422),
    CURRENCY_MISMATCH("currency-mismatch", "Currency mismatch", 422),
    SAME_ACCOUNT("same-account", "Same account", 422),
    INSUFFICIENT_FUNDS("insufficient-funds", "Insufficient funds", 422),
    AMOUNT_OVERFLOW("amount-overflow", "Amount overflow", 422),
    DUPLICATE_REFERENCE("duplicate-reference", "Duplicate reference", 409),
    TRANSFER_NOT_FOUND("transfer-not-found", "Transfer not found", 404),
    REVERSAL_EXCEEDS_REMAINING("reversal-exceeds-remaining", "Reversal exceeds remaining amount", 422),
    HOLD_NOT_ACTIVE("hold-not-active", "Hold not active", 422),
    CAPTURE_EXCEEDS_HOLD("capture-exceeds-hold", "Capture exceeds hold", 422),
    LINKED_OPERATION_FAILED("linked-operation-failed", "Linked operation failed", 422),
    INVALID_COMMAND("invalid-command", "Invalid command", 400),
    IDEMPOTENCY_KEY_REUSED("idempotency-key-reused", "Idempotency-Key reused", 422),
    CAPACITY_EXCEEDED("capacity-exceeded", "Capacity exceeded", 503),
    REFERENCE_CHECK_UNAVAILABLE("reference-check-unavailable", "Reference check unavailable", 503),
    COLD_INDEX_UNAVAILABLE("cold-index-unavailable", "Cold index unavailable", 503),
    /** An account the operation debits (or credits, under a freeze of credits too) is frozen; {@code accountId} names it. */
    ACCOUNT_FROZEN("account-frozen", "Account frozen", 422),
    /** An account the operation moves or reserves money on, freezes or closes, is closed; {@code accountId} names it. */
    ACCOUNT_CLOSED("account-closed", "Account closed", 422),
    /** The account to close has posted or held money (an open hold); {@code accountId} names it. */
    ACCOUNT_NOT_EMPTY("account-not-empty", "Account not empty", 422);

    /** Every type URI starts with this; the slug follows. */
    public static final String URI_PREFIX = "https://tally.dev/problems/";

    private final String slug;
    private final String uri;
    private final String title;
    private final int status;

    ProblemType(final String slug, final String title, final int status)
    {
        this.slug = slug;
        this.uri = URI_PREFIX + slug;
        this.title = title;
        this.status = status;
    }

    /** @return the stable slug, e.g. {@code insufficient-funds}. */
    public String slug()
    {
        return slug;
    }

    /** @return the RFC 9457 {@code type} member: {@link #URI_PREFIX} followed by the slug. */
    public String uri()
    {
        return uri;
    }

    /** @return the RFC 9457 {@code title}: the same for every occurrence of this type. */
    public String title()
    {
        return title;
    }

    /** @return the HTTP status code. */
    public int status()
    {
        return status;
    }

    /**
     * Maps a ledger rejection to its problem type.
     *
     * @param code any result code but {@link ResultCode#OK}.
     * @return the problem type of that rejection.
     * @throws IllegalArgumentException for {@link ResultCode#OK}, which is not a problem.
     */
    public static ProblemType of(final ResultCode code)
    {
        switch (code)
        {
            case ACCOUNT_EXISTS: return ACCOUNT_EXISTS;
            case ACCOUNT_NOT_FOUND: return ACCOUNT_NOT_FOUND;
            case CURRENCY_MISMATCH: return CURRENCY_MISMATCH;
            case SAME_ACCOUNT: return SAME_ACCOUNT;
            case INSUFFICIENT_FUNDS: return INSUFFICIENT_FUNDS;
            case AMOUNT_OVERFLOW: return AMOUNT_OVERFLOW;
            case DUPLICATE_REFERENCE: return DUPLICATE_REFERENCE;
            case TRANSFER_NOT_FOUND: return TRANSFER_NOT_FOUND;
            case REVERSAL_EXCEEDS_REMAINING: return REVERSAL_EXCEEDS_REMAINING;
            case HOLD_NOT_ACTIVE: return HOLD_NOT_ACTIVE;
            case CAPTURE_EXCEEDS_HOLD: return CAPTURE_EXCEEDS_HOLD;
            case LINKED_OPERATION_FAILED: return LINKED_OPERATION_FAILED;
            case INVALID_COMMAND: return INVALID_COMMAND;
            case KEY_REUSED: return IDEMPOTENCY_KEY_REUSED;
            case CAPACITY_EXCEEDED: return CAPACITY_EXCEEDED;
            case REFERENCE_CHECK_UNAVAILABLE: return REFERENCE_CHECK_UNAVAILABLE;
            case COLD_INDEX_UNAVAILABLE: return COLD_INDEX_UNAVAILABLE;
            case INVALID_AMOUNT: return INVALID_AMOUNT;
            case ACCOUNT_FROZEN: return ACCOUNT_FROZEN;
            case ACCOUNT_CLOSED: return ACCOUNT_CLOSED;
            case ACCOUNT_NOT_EMPTY: return ACCOUNT_NOT_EMPTY;
            default: throw new IllegalArgumentException("not a rejection: " + code);
        }
    }
}
