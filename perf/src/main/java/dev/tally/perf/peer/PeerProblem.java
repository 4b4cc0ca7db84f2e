package dev.tally.perf.peer;

/**
 * The RFC 9457 problem bodies the peer renders itself (validation, authentication, routing, key reuse,
 * overload), with the same types, titles and member order as Tally's. Rejections decided inside the
 * transaction (insufficient funds, duplicate reference...) are rendered by the SQL in
 * {@code peer/transfer.sql} and stored with the key.
 */
enum PeerProblem
{
    MALFORMED_JSON("malformed-json", 400, "Malformed JSON"),
    INVALID_REQUEST("invalid-request", 400, "Invalid request"),
    INVALID_AMOUNT("invalid-amount", 400, "Invalid amount"),
    UNSUPPORTED_CURRENCY("unsupported-currency", 400, "Unsupported currency"),
    IDEMPOTENCY_KEY_MISSING("idempotency-key-missing", 400, "Idempotency-Key missing"),
    IDEMPOTENCY_KEY_INVALID("idempotency-key-invalid", 400, "Idempotency-Key invalid"),
    BATCH_TOO_LARGE("batch-too-large", 400, "Batch too large"),
    UNAUTHORIZED("unauthorized", 401, "Unauthorized"),
    NOT_FOUND("not-found", 404, "Not found"),
    METHOD_NOT_ALLOWED("method-not-allowed", 405, "Method not allowed"),
    IDEMPOTENCY_KEY_REUSED("idempotency-key-reused", 422, "Idempotency-Key reused"),
    SERVICE_UNAVAILABLE("service-unavailable", 503, "Service unavailable");

    private final String slug;
    private final int status;
    private final String title;

    PeerProblem(final String slug, final int status, final String title)
    {
        this.slug = slug;
        this.status = status;
        this.title = title;
    }

    int status()
    {
        return status;
    }

    /** @return the body, with an optional {@code field} extension (null for none). */
    String body(final String detail, final String field)
    {
        final StringBuilder json = new StringBuilder(192).append("{\"type\":\"https://tally.dev/problems/").append(slug)
            .append("\",\"title\":\"").append(title).append("\",\"status\":").append(status).append(",\"detail\":");
        PeerJson.string(json, detail);
        if (field != null)
        {
            json.append(",\"field\":");
            PeerJson.string(json, field);
        }
        return json.append('}').toString();
    }

    /** @return the reply carrying this problem. */
    PeerReply reply(final String detail, final String field)
    {
        return PeerReply.problem(status, body(detail, field), false);
    }
}
