package dev.tally.perf.peer;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * A validated {@code POST /v1/accounts} body: {@code {"id":42,"currency":"TRY","subBalances":1,"debitsMustNotExceedCredits":true}}.
 * The peer keeps ONE balance row per account, so {@code subBalances} is accepted (1 to 64, as Tally) and
 * ignored: that is the design being measured. A positive {@code overdraftLimit} is refused (the peer's
 * guard is {@code balance >= amount}).
 *
 * @param id          the client-chosen account id.
 * @param currency    three upper-case letters.
 * @param constrained {@code debitsMustNotExceedCredits}: the balance may never go below zero.
 */
record AccountRequest(long id, String currency, boolean constrained)
{
    static AccountRequest parse(final JsonParser parser, final String prefix) throws IOException, InvalidRequest
    {
        long id = 0;
        String currency = null;
        boolean constrained = true;
        String overdraft = null;
        int seen = 0;
        PeerBody.expectObject(parser, prefix);
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.FIELD_NAME)
        {
            final String name = parser.currentName();
            parser.nextToken();
            switch (name)
            {
                case "id":
                    seen = PeerBody.once(seen, 1, prefix + name);
                    id = PeerBody.accountId(parser, prefix + name);
                    break;
                case "currency":
                    seen = PeerBody.once(seen, 2, prefix + name);
                    currency = PeerBody.currency(parser, prefix + name);
                    break;
                case "subBalances":
                    seen = PeerBody.once(seen, 4, prefix + name);
                    PeerBody.smallInt(parser, prefix + name, 1, 64);
                    break;
                case "debitsMustNotExceedCredits":
                    seen = PeerBody.once(seen, 8, prefix + name);
                    constrained = PeerBody.bool(parser, prefix + name);
                    break;
                case "overdraftLimit":
                    seen = PeerBody.once(seen, 16, prefix + name);
                    overdraft = PeerBody.amountText(parser, prefix + name);
                    break;
                default:
                    throw new InvalidRequest(PeerProblem.INVALID_REQUEST, "unknown member " + prefix + name, prefix + name);
            }
        }
        PeerBody.expectEndObject(token, prefix);
        PeerBody.require(seen, 1, prefix + "id");
        PeerBody.require(seen, 2, prefix + "currency");
        if (overdraft != null && PeerMoney.parseMinor(overdraft, currency) != 0)
        {
            throw new InvalidRequest(PeerProblem.INVALID_REQUEST, "the peer supports no overdraft limit", prefix + "overdraftLimit");
        }
        return new AccountRequest(id, currency, constrained);
    }

    /** @return SHA-256 over the operation name and the canonical validated payload. */
    byte[] fingerprint()
    {
        return PeerBody.sha256("account\n" + id + '\n' + currency + '\n' + constrained);
    }

    /** @return the 201 body. */
    String successBody(final long createdAtMs)
    {
        return "{\"id\":" + id + ",\"currency\":\"" + currency + "\",\"subBalances\":1,\"debitsMustNotExceedCredits\":" + constrained +
            ",\"overdraftLimit\":\"" + PeerMoney.format(0, currency) + "\",\"createdAt\":\"" + PeerJson.time(createdAtMs) + "\"}";
    }
}
