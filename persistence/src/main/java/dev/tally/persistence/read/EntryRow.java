package dev.tally.persistence.read;

import java.time.Instant;
import java.util.UUID;

/**
 * One ledger entry (a leg of a transfer) as stored in PostgreSQL.
 *
 * @param id           the entry's UUIDv7 (keyset paging cursor: pages are ordered by it).
 * @param transferId   the transfer this leg belongs to.
 * @param tenantId     owner of the account.
 * @param accountId    the account debited (negative amount) or credited (positive).
 * @param amountMinor  signed amount in minor units.
 * @param currency     ISO 4217 code.
 * @param journalIndex journal index of the command that posted it.
 * @param createdAt    journaled time of that command.
 * @param kind         the transfer's kind: {@code transfer}, {@code reversal} or {@code capture}.
 * @param balanceAfterMinor the account's posted total right after this entry (all its sub-balances, journal order).
 */
public record EntryRow(
    UUID id, UUID transferId, long tenantId, long accountId, long amountMinor, String currency, long journalIndex, Instant createdAt,
    String kind, long balanceAfterMinor)
{
}
