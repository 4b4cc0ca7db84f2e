package dev.tally.gateway.api.routing;

import dev.tally.ledger.command.CommandType;

/**
 * Every endpoint of the v1 API with its method and path template ({@code {id}} marks the one path
 * parameter a route may have). The order matters only for readability; {@link Router} tries them all.
 */
public enum Route
{
    CREATE_ACCOUNT("POST", "/v1/accounts", CommandType.CREATE_ACCOUNT),
    GET_ACCOUNT("GET", "/v1/accounts/{id}", null),
    LIST_ACCOUNT_ENTRIES("GET", "/v1/accounts/{id}/entries", null),
    /** The tenant's accounts, keyset paged, from the read model. */
    LIST_ACCOUNTS("GET", "/v1/accounts", null),
    /** The transfers that moved one account, keyset paged, from the read model. */
    LIST_ACCOUNT_TRANSFERS("GET", "/v1/accounts/{id}/transfers", null),
    ACCOUNT_STATEMENT("GET", "/v1/accounts/{id}/statement", null),
    CREATE_TRANSFER("POST", "/v1/transfers", CommandType.TRANSFER),
    GET_TRANSFER("GET", "/v1/transfers/{id}", null),
    /** The tenant's transfer holding a reference ({@code ?reference=}). */
    FIND_TRANSFER("GET", "/v1/transfers", null),
    REVERSE_TRANSFER("POST", "/v1/transfers/{id}/reversals", CommandType.REVERSE_TRANSFER),
    CREATE_HOLD("POST", "/v1/holds", CommandType.CREATE_HOLD),
    GET_HOLD("GET", "/v1/holds/{id}", null),
    CAPTURE_HOLD("POST", "/v1/holds/{id}/capture", CommandType.CAPTURE_HOLD),
    VOID_HOLD("POST", "/v1/holds/{id}/void", CommandType.VOID_HOLD),
    /** The command type is the debits-only freeze; a body with {@code "credits": true} makes it {@code FREEZE_ACCOUNT_ALL}. */
    FREEZE_ACCOUNT("POST", "/v1/accounts/{id}/freeze", CommandType.FREEZE_ACCOUNT),
    UNFREEZE_ACCOUNT("POST", "/v1/accounts/{id}/unfreeze", CommandType.UNFREEZE_ACCOUNT),
    CLOSE_ACCOUNT("POST", "/v1/accounts/{id}/close", CommandType.CLOSE_ACCOUNT),
    /** Replaces the account's metadata with the body's {@code metadata} ({@code {}} removes it). */
    UPDATE_ACCOUNT_METADATA("PUT", "/v1/accounts/{id}/metadata", CommandType.UPDATE_ACCOUNT_METADATA),
    /** Sets or changes the account's low-balance threshold. */
    SET_LOW_BALANCE_ALERT("PUT", "/v1/accounts/{id}/low-balance-alert", CommandType.SET_LOW_BALANCE_ALERT),
    /** Removes it: the same command type, with no threshold. */
    REMOVE_LOW_BALANCE_ALERT("DELETE", "/v1/accounts/{id}/low-balance-alert", CommandType.SET_LOW_BALANCE_ALERT),
    /** Each operation carries its own idempotency key: the request needs no {@code Idempotency-Key} header. */
    BATCH("POST", "/v1/batch", null),
    HEALTH("GET", "/health", null),
    READY("GET", "/ready", null),
    METRICS("GET", "/metrics", null),
    /**
     * Asks for a snapshot now. Authenticated by the admin key alone (never a tenant's); without one a POST is
     * answered 404 as an unknown path would (another method still gets 405: the router knows the path). It journals a
     * SNAPSHOT command through the snapshotter, not from the request.
     */
    ADMIN_SNAPSHOT("POST", "/admin/snapshot", null);

    /** The path parameter placeholder in {@link #template()}. */
    static final String ID_PLACEHOLDER = "{id}";

    private final String method;
    private final String template;
    private final String[] segments;
    private final CommandType commandType;

    Route(final String method, final String template, final CommandType commandType)
    {
        this.method = method;
        this.template = template;
        this.segments = template.substring(1).split("/");
        this.commandType = commandType;
    }

    /** @return the HTTP method, upper case ({@code GET}, {@code POST}, {@code PUT} or {@code DELETE}). */
    public String method()
    {
        return method;
    }

    /** @return the path template, e.g. {@code /v1/holds/{id}/capture}. */
    public String template()
    {
        return template;
    }

    /**
     * @return the ledger command a request on this route becomes, or {@code null} for reads, probes and
     * {@link #BATCH} (whose operations each name their own).
     */
    public CommandType commandType()
    {
        return commandType;
    }

    /** @return true for the tenants' routes that change state (and so go through the journal as the request's command). */
    public boolean isMutating()
    {
        return !"GET".equals(method) && !isAdmin();
    }

    /** @return true for the operators' routes, authenticated by the admin key instead of a tenant's. */
    public boolean isAdmin()
    {
        return this == ADMIN_SNAPSHOT;
    }

    /** @return true when the request must carry an {@code Idempotency-Key} header: every mutation but a batch. */
    public boolean requiresIdempotencyKey()
    {
        return commandType != null;
    }

    /** @return true when the template has an {@code {id}} segment. */
    public boolean hasPathId()
    {
        return template.contains(ID_PLACEHOLDER);
    }

    /** @return the path segments of the template, without the leading slash. */
    String[] segments()
    {
        return segments;
    }
}
