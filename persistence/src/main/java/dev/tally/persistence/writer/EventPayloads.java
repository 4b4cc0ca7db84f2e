package dev.tally.persistence.writer;

import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.effect.EventType;
import dev.tally.ledger.id.Uuid7;
import org.agrona.collections.Long2LongHashMap;

/**
 * Encodes one outbox row per ledger event, its JSON payload written straight into the COPY stream; a
 * TransferPosted row's payload is NULL: the same members are its transfers row's columns, and
 * {@code tally_outbox_payload} (migration V6) renders them when the row is read (the relay's claim, the
 * {@code outbox_events} view), so a plain transfer's facts are stored and parsed once.
 *
 * <p>Payload, schema version 2 (consumers must ignore fields they do not know; a change that removes or
 * re-types a field gets a new {@code schemaVersion}). Every event carries {@code schemaVersion, eventId,
 * type, tenantId, journalIndex, occurredAt} (journaled time, ISO-8601 UTC) and then:
 * <pre>
 * AccountCreated     accountId, currency, subBalances, debitsMustNotExceedCredits, overdraftLimitMinor, metadata (or null)
 * TransferPosted     transferId, debitAccountId, creditAccountId, amount, amountMinor, currency, reference (or null),
 *                    metadata (the transfer's JSON object of strings, or null) -- rendered from the transfers row
 * TransferReversed   transferId (the reversal), reversedTransferId, debitAccountId, creditAccountId, amount, amountMinor, currency
 * HoldCreated        holdId, accountId, amount, amountMinor, currency, expiresAt
 * HoldCaptured       holdId, transferId, accountId, creditAccountId, amount, amountMinor (captured), releasedMinor, currency
 * HoldVoided         holdId, accountId, amount, amountMinor, currency
 * HoldExpired        holdId, accountId, amount, amountMinor, currency
 * HoldMarkedUnknown  holdId, accountId, amount, amountMinor, currency
 * AccountFrozen      accountId, currency, creditsFrozen (false: debits only)
 * AccountUnfrozen    accountId, currency
 * AccountClosed      accountId, currency
 * AccountMetadataUpdated  accountId, currency, metadata (the account's JSON object of strings now; null: removed)
 * AccountBalanceLow, AccountBalanceRecovered
 *                    accountId, currency, available, availableMinor (after the command), threshold, thresholdMinor
 * </pre>
 * {@code tenantId} and every account id are JSON strings of their decimal digits (version 1 wrote them as numbers,
 * which a JavaScript consumer reads through a double, exact only up to 2^53); the relay adds {@code tenant}, the
 * tenant's name, when it delivers ({@code OutboxRelay}). {@code journalIndex} and the minor-unit integers stay numbers.
 * {@code amount} is a decimal string in major units (as in the HTTP API), {@code amountMinor} the integer.
 * A member with nothing to say is {@code null}, never left out ({@code reference}, {@code metadata}), so a
 * consumer reads one shape per event type. {@code metadata} is the client's object as the gateway canonicalised
 * it, embedded as JSON (not a string holding JSON). It came without a new schema version (a field added, which
 * consumers ignore until they know it); events written before it existed have no such member (an AccountCreated
 * event's came with account metadata, later than a TransferPosted event's).
 *
 * <p>Aggregates, for per-aggregate ordering by the relay: an account ("account", its id, unique only within its
 * tenant: the relay keys aggregates by tenant too), a transfer ("transfer", its uuid; a reversal is an event of the
 * transfer it reverses), a hold ("hold", its uuid).
 */
final class EventPayloads
{
    /** The payload schema this writer produces. */
    static final int SCHEMA_VERSION = 2;

    void row(final CopyBuffer out, final WriteBatch b, final int i, final Long2LongHashMap holdIdHi, final Long2LongHashMap holdIdLo)
    {
        final EventType type = EventType.fromCode(b.eventType[i]);
        final long time = b.eventTime[i];
        final long command = b.eventCommand[i];
        final long eventHi = Uuid7.hi(time, Uuid7.KIND_EVENT);
        final long eventLo = Uuid7.lo(command, b.eventOrdinal[i]);
        final long transferHi = Uuid7.hi(time, Uuid7.KIND_TRANSFER);
        final long transferLo = Uuid7.lo(command, 0);
        out.row(8).uuid(eventHi, eventLo).int8(b.eventTenant[i]);
        switch (type)
        {
            case ACCOUNT_CREATED:
            case ACCOUNT_FROZEN:
            case ACCOUNT_UNFROZEN:
            case ACCOUNT_CLOSED:
            case ACCOUNT_METADATA_UPDATED:
            case ACCOUNT_BALANCE_LOW:
            case ACCOUNT_BALANCE_RECOVERED:
                out.text("account").beginTextField().appendLong(b.eventSubject[i]).endField();
                break;
            case TRANSFER_POSTED:
                out.text("transfer").beginTextField().appendUuid(transferHi, transferLo).endField();
                break;
            case TRANSFER_REVERSED:
                out.text("transfer").beginTextField()
                    .appendUuid(Uuid7.hi(b.eventAuxLong[i], Uuid7.KIND_TRANSFER), Uuid7.lo(b.eventExtra[i], 0)).endField();
                break;
            default:
                out.text("hold").beginTextField().appendUuid(holdIdHi.get(b.eventSubject[i]), holdIdLo.get(b.eventSubject[i]))
                    .endField();
                break;
        }
        out.text(type.wireName());
        if (type == EventType.TRANSFER_POSTED)
        {
            // its payload is its transfers row's (tally_outbox_payload, V6): stored once, rendered when read
            out.nul().int8(command).timestampNs(time);
            return;
        }

        out.beginJsonbField();
        out.appendAscii("{\"schemaVersion\":").appendLong(SCHEMA_VERSION);
        out.appendAscii(",\"eventId\":\"").appendUuid(eventHi, eventLo);
        out.appendAscii("\",\"type\":\"").appendAscii(type.wireName());
        out.appendAscii("\",\"tenantId\":\"").appendLong(b.eventTenant[i]);
        out.appendAscii("\",\"journalIndex\":").appendLong(command);
        out.appendAscii(",\"occurredAt\":\"").appendIsoInstant(Math.floorDiv(time, 1_000_000L)).appendAscii("\"");
        switch (type)
        {
            case ACCOUNT_CREATED:
                out.appendAscii(",\"accountId\":\"").appendLong(b.eventSubject[i]).appendAscii("\"");
                currency(out, b.eventCurrency[i]);
                out.appendAscii(",\"subBalances\":").appendLong(b.eventExtra[i]);
                out.appendAscii(",\"debitsMustNotExceedCredits\":").appendAscii(b.eventAuxInt[i] != 0 ? "true" : "false");
                out.appendAscii(",\"overdraftLimitMinor\":").appendLong(b.eventAuxLong[i]);
                metadata(out, b, i);
                break;
            case ACCOUNT_METADATA_UPDATED:
                out.appendAscii(",\"accountId\":\"").appendLong(b.eventSubject[i]).appendAscii("\"");
                currency(out, b.eventCurrency[i]);
                metadata(out, b, i);
                break;
            case ACCOUNT_FROZEN:
                out.appendAscii(",\"accountId\":\"").appendLong(b.eventSubject[i]).appendAscii("\"");
                currency(out, b.eventCurrency[i]);
                out.appendAscii(",\"creditsFrozen\":").appendAscii(b.eventExtra[i] != 0 ? "true" : "false");
                break;
            case ACCOUNT_UNFROZEN:
            case ACCOUNT_CLOSED:
                out.appendAscii(",\"accountId\":\"").appendLong(b.eventSubject[i]).appendAscii("\"");
                currency(out, b.eventCurrency[i]);
                break;
            case ACCOUNT_BALANCE_LOW:
            case ACCOUNT_BALANCE_RECOVERED:
                out.appendAscii(",\"accountId\":\"").appendLong(b.eventSubject[i]).appendAscii("\"");
                currency(out, b.eventCurrency[i]);
                decimal(out, "available", b.eventAmount[i], b.eventCurrency[i]);
                decimal(out, "threshold", b.eventExtra[i], b.eventCurrency[i]);
                break;
            case TRANSFER_REVERSED:
                out.appendAscii(",\"transferId\":\"").appendUuid(transferHi, transferLo);
                out.appendAscii("\",\"reversedTransferId\":\"")
                    .appendUuid(Uuid7.hi(b.eventAuxLong[i], Uuid7.KIND_TRANSFER), Uuid7.lo(b.eventExtra[i], 0)).appendAscii("\"");
                twoAccounts(out, b, i, "debitAccountId", "creditAccountId");
                amount(out, b, i);
                break;
            case HOLD_CREATED:
                holdId(out, b, i, holdIdHi, holdIdLo);
                out.appendAscii(",\"accountId\":\"").appendLong(b.eventAccountA[i]).appendAscii("\"");
                amount(out, b, i);
                out.appendAscii(",\"expiresAt\":\"").appendIsoInstant(b.eventExtra[i]).appendAscii("\"");
                break;
            case HOLD_CAPTURED:
                holdId(out, b, i, holdIdHi, holdIdLo);
                out.appendAscii(",\"transferId\":\"").appendUuid(transferHi, transferLo).appendAscii("\"");
                twoAccounts(out, b, i, "accountId", "creditAccountId");
                amount(out, b, i);
                out.appendAscii(",\"releasedMinor\":").appendLong(b.eventExtra[i]);
                break;
            default:
                holdId(out, b, i, holdIdHi, holdIdLo);
                out.appendAscii(",\"accountId\":\"").appendLong(b.eventAccountA[i]).appendAscii("\"");
                amount(out, b, i);
                break;
        }
        out.appendAscii("}").endField();
        out.int8(command).timestampNs(time);
    }

    /** The event's metadata, embedded as JSON (the canonical bytes, valid JSON), or null when it carries none. */
    private static void metadata(final CopyBuffer out, final WriteBatch b, final int i)
    {
        out.appendAscii(",\"metadata\":");
        if (b.eventMetadataLength[i] > 0)
        {
            out.appendBytes(b.metadata, b.eventMetadataOffset[i], b.eventMetadataLength[i]);
        }
        else
        {
            out.appendAscii("null");
        }
    }

    private static void holdId(
        final CopyBuffer out, final WriteBatch b, final int i, final Long2LongHashMap hi, final Long2LongHashMap lo)
    {
        out.appendAscii(",\"holdId\":\"").appendUuid(hi.get(b.eventSubject[i]), lo.get(b.eventSubject[i])).appendAscii("\"");
    }

    private static void twoAccounts(final CopyBuffer out, final WriteBatch b, final int i, final String a, final String bName)
    {
        out.appendAscii(",\"").appendAscii(a).appendAscii("\":\"").appendLong(b.eventAccountA[i]);
        out.appendAscii("\",\"").appendAscii(bName).appendAscii("\":\"").appendLong(b.eventAccountB[i]).appendAscii("\"");
    }

    private static void amount(final CopyBuffer out, final WriteBatch b, final int i)
    {
        final int digits = Math.max(0, CurrencyCode.minorDigits(b.eventCurrency[i]));
        out.appendAscii(",\"amount\":\"").appendDecimal(b.eventAmount[i], digits).appendAscii("\"");
        out.appendAscii(",\"amountMinor\":").appendLong(b.eventAmount[i]);
        currency(out, b.eventCurrency[i]);
    }

    /** Writes {@code name} as a decimal string in major units and {@code nameMinor} as the integer. */
    private static void decimal(final CopyBuffer out, final String name, final long minor, final int currency)
    {
        final int digits = Math.max(0, CurrencyCode.minorDigits(currency));
        out.appendAscii(",\"").appendAscii(name).appendAscii("\":\"").appendDecimal(minor, digits).appendAscii("\"");
        out.appendAscii(",\"").appendAscii(name).appendAscii("Minor\":").appendLong(minor);
    }

    private static void currency(final CopyBuffer out, final int packed)
    {
        out.appendAscii(",\"currency\":\"").currencyChars(packed).appendAscii("\"");
    }
}
