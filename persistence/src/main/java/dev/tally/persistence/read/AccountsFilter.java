package dev.tally.persistence.read;

import java.time.Instant;

/**
 * What a page of a tenant's accounts asks for ({@link LedgerReads#accounts}).
 *
 * @param currency      ISO 4217 code the accounts hold, or null for any.
 * @param createdFrom   the earliest creation time, inclusive, or null.
 * @param createdTo     the latest creation time, exclusive, or null.
 * @param afterAccountId the last account id of the previous page (0: from the first).
 * @param limit         1 to {@link LedgerReads#ENTRIES_PAGE_MAX}.
 */
public record AccountsFilter(String currency, Instant createdFrom, Instant createdTo, long afterAccountId, int limit)
{
}
