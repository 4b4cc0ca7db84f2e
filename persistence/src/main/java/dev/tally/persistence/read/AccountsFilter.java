package dev.tally.persistence.read;

import java.time.Instant;
import java.util.List;

/**
 * What a page of a tenant's accounts asks for ({@link LedgerReads#accounts}).
 *
 * @param currency      ISO 4217 code the accounts hold, or null for any.
 * @param createdFrom   the earliest creation time, inclusive, or null.
 * @param createdTo     the latest creation time, exclusive, or null.
 * @param afterAccountId the last account id of the previous page (0: from the first).
 * @param limit         1 to {@link LedgerReads#ENTRIES_PAGE_MAX}.
 * @param metadata      members the account's metadata must all hold, each a one-member JSON object such as
 *                      {@code {"team":"ops"}} (matched by jsonb containment); empty for any account.
 */
public record AccountsFilter(String currency, Instant createdFrom, Instant createdTo, long afterAccountId, int limit, List<String> metadata)
{
    /** A filter without metadata members. */
    public AccountsFilter(final String currency, final Instant createdFrom, final Instant createdTo, final long afterAccountId, final int limit)
    {
        this(currency, createdFrom, createdTo, afterAccountId, limit, List.of());
    }

    public AccountsFilter
    {
        metadata = List.copyOf(metadata);
    }
}
