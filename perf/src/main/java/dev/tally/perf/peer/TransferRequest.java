package dev.tally.perf.peer;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A validated {@code POST /v1/transfers} body, the same shape as Tally's:
 * {@code {"debitAccountId":1,"creditAccountId":2,"amount":"1000.00","currency":"TRY","reference":"inv-45982"}}.
 *
 * @param debitAccountId  the debited account.
 * @param creditAccountId the credited account (never the debited one).
 * @param amountMinor     the amount in minor units (positive).
 * @param currency        three upper-case letters.
 * @param reference       the business identity, or null.
 */
record TransferRequest(long debitAccountId, long creditAccountId, long amountMinor, String currency, String reference)
{
    private static final int REFERENCE_LENGTH_MAX = 64;

    /** Reads and validates one body; {@code prefix} names the members in errors (e.g. {@code operations[3].body.}). */
    static TransferRequest parse(final JsonParser parser, final String prefix) throws IOException, InvalidRequest
    {
        long debit = 0;
        long credit = 0;
        String amountText = null;
        String currency = null;
        String reference = null;
        int seen = 0;
        PeerBody.expectObject(parser, prefix);
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.FIELD_NAME)
        {
            final String name = parser.currentName();
            parser.nextToken();
            switch (name)
            {
                case "debitAccountId":
                    seen = PeerBody.once(seen, 1, prefix + name);
                    debit = PeerBody.accountId(parser, prefix + name);
                    break;
                case "creditAccountId":
                    seen = PeerBody.once(seen, 2, prefix + name);
                    credit = PeerBody.accountId(parser, prefix + name);
                    break;
                case "amount":
                    seen = PeerBody.once(seen, 4, prefix + name);
                    amountText = PeerBody.amountText(parser, prefix + name);
                    break;
                case "currency":
                    seen = PeerBody.once(seen, 8, prefix + name);
                    currency = PeerBody.currency(parser, prefix + name);
                    break;
                case "reference":
                    seen = PeerBody.once(seen, 16, prefix + name);
                    reference = PeerBody.visibleAscii(parser, prefix + name, REFERENCE_LENGTH_MAX);
                    break;
                default:
                    throw new InvalidRequest(PeerProblem.INVALID_REQUEST, "unknown member " + prefix + name, prefix + name);
            }
        }
        PeerBody.expectEndObject(token, prefix);
        PeerBody.require(seen, 1, prefix + "debitAccountId");
        PeerBody.require(seen, 2, prefix + "creditAccountId");
        PeerBody.require(seen, 4, prefix + "amount");
        PeerBody.require(seen, 8, prefix + "currency");
        if (debit == credit)
        {
            throw new InvalidRequest(PeerProblem.INVALID_REQUEST, "creditAccountId must differ from debitAccountId", prefix + "creditAccountId");
        }
        final long amountMinor = PeerMoney.parseMinor(amountText, currency);
        if (amountMinor <= 0)
        {
            throw new InvalidRequest(PeerProblem.INVALID_AMOUNT, prefix + "amount is not a positive amount of " + currency, prefix + "amount");
        }
        return new TransferRequest(debit, credit, amountMinor, currency, reference);
    }

    /** @return SHA-256 over the operation name and the canonical validated payload. */
    byte[] fingerprint()
    {
        return PeerBody.sha256("transfer\n" + debitAccountId + '\n' + creditAccountId + '\n' + amountMinor + '\n' + currency + '\n' +
            (reference == null ? "" : reference));
    }

    /** @return the amount as rendered, e.g. {@code 1.00}. */
    String amountText()
    {
        return PeerMoney.format(amountMinor, currency);
    }

    /** @return the 201 body this transfer will have if it is applied. */
    String successBody(final UUID transferId, final long createdAtMs)
    {
        final StringBuilder json = new StringBuilder(256).append("{\"id\":\"").append(transferId)
            .append("\",\"kind\":\"transfer\",\"debitAccountId\":").append(debitAccountId)
            .append(",\"creditAccountId\":").append(creditAccountId)
            .append(",\"amount\":\"").append(amountText()).append("\",\"currency\":\"").append(currency).append('"');
        if (reference != null)
        {
            json.append(",\"reference\":");
            PeerJson.string(json, reference);
        }
        return json.append(",\"createdAt\":\"").append(PeerJson.time(createdAtMs)).append("\"}").toString();
    }

    /** @return a time-ordered UUIDv7: 48 bits of milliseconds, version 7, variant 2, random bits. */
    static UUID uuid7(final long epochMs)
    {
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        final long hi = (epochMs << 16) | 0x7000L | (random.nextLong() & 0x0FFFL);
        final long lo = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(hi, lo);
    }
}
