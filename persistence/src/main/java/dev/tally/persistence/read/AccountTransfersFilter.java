package dev.tally.persistence.read;

import java.time.Instant;
import java.util.UUID;

/**
 * What a page of an account's transfers asks for ({@link LedgerReads#accountTransfers}).
 *
 * @param from         the earliest journaled time, inclusive, or null.
 * @param to           the latest journaled time, exclusive, or null.
 * @param direction    {@link #ANY}, {@link #DEBIT} or {@link #CREDIT}.
 * @param afterEntryId the last entry id of the previous page (null: from the first).
 * @param limit        1 to {@link LedgerReads#ENTRIES_PAGE_MAX}.
 */
public record AccountTransfersFilter(Instant from, Instant to, int direction, UUID afterEntryId, int limit)
{
    /** Both directions. */
    public static final int ANY = 0;
    /** Only transfers that debited the account. */
    public static final int DEBIT = 1;
    /** Only transfers that credited the account. */
    public static final int CREDIT = 2;
}
