package dev.tally.persistence.read;

import java.time.Instant;

/**
 * One account as stored in PostgreSQL, with its balances summed over its sub-balances as the read model holds them
 * (they lag the ledger by the writer's lag).
 *
 * @param accountId                  the client's id.
 * @param currency                   ISO 4217 code.
 * @param subBalances                how many sub-balances it spreads over.
 * @param debitsMustNotExceedCredits whether its available balance may not go below its floor.
 * @param overdraftLimitMinor        how far below zero it may go, minor units.
 * @param createdAt                  journaled time of the command that created it.
 * @param postedMinor                posted, summed over sub-balances.
 * @param heldMinor                  held, summed over sub-balances.
 * @param metadata                   its metadata as PostgreSQL's jsonb text (not the canonical form), or null for none.
 */
public record AccountRow(
    long accountId, String currency, int subBalances, boolean debitsMustNotExceedCredits, long overdraftLimitMinor,
    Instant createdAt, long postedMinor, long heldMinor, String metadata)
{
}
