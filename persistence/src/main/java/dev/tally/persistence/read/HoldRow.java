package dev.tally.persistence.read;

import java.time.Instant;
import java.util.UUID;

/**
 * One hold as stored in PostgreSQL (holds the ledger's memory no longer holds: captured, voided or expired).
 *
 * @param id                  the hold's UUIDv7.
 * @param tenantId            owner.
 * @param accountId           the account the amount is reserved on.
 * @param amountMinor         the amount reserved, minor units.
 * @param currency            ISO 4217 code.
 * @param status              "active", "unknown", "captured", "voided" or "expired".
 * @param expiresAt           the journaled deadline it expires at while active.
 * @param capturedTransferId  for a captured hold, the transfer the capture posted; otherwise null.
 * @param capturedAmountMinor for a captured hold, the amount captured (the rest was released); otherwise 0.
 * @param createdAt           journaled time of the command that created it.
 * @param resolvedAt          journaled time it was captured, voided or expired; null while live.
 * @param journalIndex        journal index of the command that created it.
 */
public record HoldRow(
    UUID id, long tenantId, long accountId, long amountMinor, String currency, String status, Instant expiresAt,
    UUID capturedTransferId, long capturedAmountMinor, Instant createdAt, Instant resolvedAt, long journalIndex)
{
}
