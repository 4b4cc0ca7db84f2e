package dev.tally.perf.peer;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * A validated {@code POST /v1/accounts} body: {@code {"id":42,"currency":"TRY","subBalances":1,"debitsMustNotExceedCredits":true}}.
 * {@code subBalances} (1 to 64, as Tally) becomes the account's balance rows through the peer's {@link HotRows}
 * variant. A positive {@code overdraftLimit} is refused (the peer's guard is {@code balance >= amount}).
 *
 * @param id          the client-chosen account id.
 * @param currency    three upper-case letters.
 * @param constrained {@code debitsMustNotExceedCredits}: no balance row may go below zero.
 * @param subBalances the sub-balances asked for.
 */
record AccountRequest(long id, String currency, boolean constrained, int subBalances)
{
    static AccountRequest parse(final JsonParser parser, final String prefix) throws IOException, InvalidRequest
    {
        long id = 0;
        String currency = null;
        boolean constrained = true;
        int subBalances = 1;
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
                    subBalances = PeerBody.smallInt(parser, prefix + name, 1, 64);
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
        return new AccountRequest(id, currency, constrained, subBalances);
    }

    /** @return SHA-256 over the operation name and the canonical validated payload. */
    byte[] fingerprint()
    {
        return PeerBody.sha256("account\n" + id + '\n' + currency + '\n' + constrained + '\n' + subBalances);
    }

    /** @return the 201 body of the account created with {@code rows} balance rows. */
    String successBody(final long createdAtMs, final int rows)
    {
        return "{\"id\":" + id + ",\"currency\":\"" + currency + "\",\"subBalances\":" + rows + ",\"debitsMustNotExceedCredits\":" + constrained +
            ",\"overdraftLimit\":\"" + PeerMoney.format(0, currency) + "\",\"createdAt\":\"" + PeerJson.time(createdAtMs) + "\"}";
    }
}
