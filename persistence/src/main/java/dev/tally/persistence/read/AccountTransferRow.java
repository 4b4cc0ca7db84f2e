package dev.tally.persistence.read;

import java.util.UUID;

/**
 * One transfer as an account saw it: the account's entry (its id is the listing's keyset cursor) and the transfer.
 *
 * @param entryId  the account's leg of the transfer.
 * @param debit    true when the transfer debited the account, false when it credited it.
 * @param transfer the transfer.
 */
public record AccountTransferRow(UUID entryId, boolean debit, TransferRow transfer)
{
}
