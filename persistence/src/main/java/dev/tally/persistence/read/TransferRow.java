package dev.tally.persistence.read;

import java.time.Instant;
import java.util.UUID;

/**
 * One transfer as stored in PostgreSQL (transfers older than the ledger's in-memory window are read from here).
 *
 * @param id              the transfer's UUIDv7.
 * @param tenantId        owner.
 * @param kind            "transfer", "reversal" or "capture".
 * @param debitAccountId  account debited.
 * @param creditAccountId account credited.
 * @param amountMinor     amount in minor units (positive).
 * @param currency        ISO 4217 code.
 * @param reference       the business reference, or null.
 * @param reversesId      for a reversal, the transfer it reverses; otherwise null.
 * @param holdId          for a capture, the hold it captured; otherwise null.
 * @param reversedMinor   how much of this transfer later reversals moved back.
 * @param journalIndex    journal index of the command that created it.
 * @param createdAt       journaled time of that command.
 * @param metadata        the transfer's metadata, a JSON object of strings, or null when it has none (always for
 *                        a reversal or a capture). As jsonb prints it: the same object as the canonical text the
 *                        gateway accepted, not the same bytes (members ordered by key length, then bytes;
 *                        {@code ", "} and {@code ": "} between them), so a reply that must be canonical
 *                        canonicalises it again.
 */
public record TransferRow(
    UUID id, long tenantId, String kind, long debitAccountId, long creditAccountId, long amountMinor, String currency,
    String reference, UUID reversesId, UUID holdId, long reversedMinor, long journalIndex, Instant createdAt,
    String metadata)
{
}
