package dev.tally.perf.peer;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Strict JSON body reading for the peer (jackson-core's streaming parser, as a typical service would use):
 * unknown, duplicate, missing, mistyped or null members are 400s that name the member.
 */
final class PeerBody
{
    /** Duplicate members are rejected by the parser itself. */
    static final JsonFactory JSON = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    static final int IDEMPOTENCY_KEY_LENGTH_MAX = 255;

    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() ->
    {
        try
        {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
    });

    private PeerBody()
    {
    }

    /** Opens a parser over a whole body; the first token must start an object. */
    static JsonParser open(final byte[] body) throws IOException, InvalidRequest
    {
        if (body.length == 0)
        {
            throw new InvalidRequest(PeerProblem.MALFORMED_JSON, "the body is empty", null);
        }
        return JSON.createParser(body);
    }

    /** Maps a parse failure (including a duplicate member) to 400 malformed-json. */
    static InvalidRequest malformed(final JsonParseException ex)
    {
        final String message = ex.getOriginalMessage();
        return new InvalidRequest(PeerProblem.MALFORMED_JSON, message.length() > 200 ? message.substring(0, 200) : message, null);
    }

    static void expectObject(final JsonParser parser, final String prefix) throws IOException, InvalidRequest
    {
        final JsonToken token = parser.currentToken() == null ? parser.nextToken() : parser.currentToken();
        if (token != JsonToken.START_OBJECT)
        {
            throw new InvalidRequest(PeerProblem.INVALID_REQUEST, (prefix.isEmpty() ? "the body" : prefix) + " must be a JSON object",
                prefix.isEmpty() ? null : prefix);
        }
    }

    static void expectEndObject(final JsonToken token, final String prefix) throws InvalidRequest
    {
        if (token != JsonToken.END_OBJECT)
        {
            throw new InvalidRequest(PeerProblem.MALFORMED_JSON, "unexpected token in " + (prefix.isEmpty() ? "the body" : prefix), null);
        }
    }

    /** Marks a member as seen; a second occurrence is a 400. */
    static int once(final int seen, final int bit, final String field) throws InvalidRequest
    {
        if ((seen & bit) != 0)
        {
            throw new InvalidRequest(PeerProblem.INVALID_REQUEST, "member given twice: " + field, field);
        }
        return seen | bit;
    }

    static void require(final int seen, final int bit, final String field) throws InvalidRequest
    {
        if ((seen & bit) == 0)
        {
            throw new InvalidRequest(PeerProblem.INVALID_REQUEST, "missing member " + field, field);
        }
    }

    /** @return a positive 63-bit account id given as a JSON integer. */
    static long accountId(final JsonParser parser, final String field) throws IOException, InvalidRequest
    {
        if (parser.currentToken() != JsonToken.VALUE_NUMBER_INT || parser.getNumberType() != JsonParser.NumberType.INT &&
            parser.getNumberType() != JsonParser.NumberType.LONG)
        {
            throw new InvalidRequest(PeerProblem.INVALID_REQUEST, field + " must be an integer from 1 to 9223372036854775807", field);
        }
        final long id = parser.getLongValue();
        if (id < 1)
        {
            throw new InvalidRequest(PeerProblem.INVALID_REQUEST, field + " must be an integer from 1 to 9223372036854775807", field);
        }
        return id;
    }

    /** @return the amount's text: a JSON string, or a JSON number's literal text (checked against the currency later). */
    static String amountText(final JsonParser parser, final String field) throws IOException, InvalidRequest
    {
        final JsonToken token = parser.currentToken();
        if (token != JsonToken.VALUE_STRING && token != JsonToken.VALUE_NUMBER_INT && token != JsonToken.VALUE_NUMBER_FLOAT)
        {
            throw new InvalidRequest(PeerProblem.INVALID_AMOUNT, field + " must be a decimal string or number", field);
        }
        final String text = parser.getText();
        if (text.length() > 40)
        {
            throw new InvalidRequest(PeerProblem.INVALID_AMOUNT, field + " is too long", field);
        }
        return text;
    }

    static String currency(final JsonParser parser, final String field) throws IOException, InvalidRequest
    {
        if (parser.currentToken() != JsonToken.VALUE_STRING || !PeerMoney.isCurrency(parser.getText()))
        {
            throw new InvalidRequest(PeerProblem.UNSUPPORTED_CURRENCY, field + " must be three upper-case letters of an ISO 4217 code", field);
        }
        return parser.getText();
    }

    static boolean bool(final JsonParser parser, final String field) throws InvalidRequest
    {
        final JsonToken token = parser.currentToken();
        if (token != JsonToken.VALUE_TRUE && token != JsonToken.VALUE_FALSE)
        {
            throw new InvalidRequest(PeerProblem.INVALID_REQUEST, field + " must be true or false", field);
        }
        return token == JsonToken.VALUE_TRUE;
    }

    static int smallInt(final JsonParser parser, final String field, final int min, final int max) throws IOException, InvalidRequest
    {
        if (parser.currentToken() != JsonToken.VALUE_NUMBER_INT || parser.getNumberType() != JsonParser.NumberType.INT ||
            parser.getIntValue() < min || parser.getIntValue() > max)
        {
            throw new InvalidRequest(PeerProblem.INVALID_REQUEST, field + " must be an integer from " + min + " to " + max, field);
        }
        return parser.getIntValue();
    }

    /** @return a string of 1 to {@code lengthMax} visible ASCII characters. */
    static String visibleAscii(final JsonParser parser, final String field, final int lengthMax) throws IOException, InvalidRequest
    {
        if (parser.currentToken() != JsonToken.VALUE_STRING || !isVisibleAscii(parser.getText(), lengthMax))
        {
            throw new InvalidRequest(PeerProblem.INVALID_REQUEST, field + " must be 1 to " + lengthMax + " visible ASCII characters", field);
        }
        return parser.getText();
    }

    /** @return true for 1 to {@code lengthMax} characters from 0x21 to 0x7E. */
    static boolean isVisibleAscii(final String text, final int lengthMax)
    {
        if (text == null || text.isEmpty() || text.length() > lengthMax)
        {
            return false;
        }
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c < 0x21 || c > 0x7E)
            {
                return false;
            }
        }
        return true;
    }

    /** Validates an {@code Idempotency-Key} header value (400 when missing or malformed). */
    static String idempotencyKey(final String key) throws InvalidRequest
    {
        if (key == null)
        {
            throw new InvalidRequest(PeerProblem.IDEMPOTENCY_KEY_MISSING, "send an Idempotency-Key header", null);
        }
        if (!isVisibleAscii(key, IDEMPOTENCY_KEY_LENGTH_MAX))
        {
            throw new InvalidRequest(PeerProblem.IDEMPOTENCY_KEY_INVALID, "the key must be 1 to 255 visible ASCII characters", null);
        }
        return key;
    }

    static byte[] sha256(final String canonical)
    {
        return SHA_256.get().digest(canonical.getBytes(StandardCharsets.UTF_8));
    }
}
