package dev.tally.gateway.api;

import dev.tally.gateway.api.json.Money;
import dev.tally.gateway.api.json.CharSlice;
import dev.tally.gateway.api.problem.ProblemType;
import dev.tally.gateway.api.routing.ResourceId;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.currency.CurrencyCode;

import java.io.IOException;

/**
 * The members of one request body, parsed strictly from a streaming JSON parser, then checked against an
 * {@link Operation} and copied, normalized, onto a {@link Command}.
 *
 * <p>Three steps because a batch operation's {@code "op"} may come after its {@code "body"} and an
 * amount's currency after the amount: {@link #parse} checks each member's type and range as it arrives
 * (keeping amounts as text), {@link #check} checks which members the operation allows and requires, and
 * {@link #fill} converts amounts with the currency's exponent and checks the rules between members.
 *
 * <p>Every failure is a {@link Rejection} naming the member. Reused per decoder; not thread-safe.
 */
final class BodyFields
{
    /** Longest amount text kept: 19 digits, a point and the fraction fit well within it. */
    static final int AMOUNT_TEXT_LENGTH_MAX = 40;
    /** The ledger's bound (366 days), so that a hold deadline in nanoseconds cannot overflow. */
    static final long HOLD_TIMEOUT_MAX_MS = dev.tally.ledger.LedgerLimits.HOLD_TIMEOUT_MAX_MS;
    /** The ledger's bound, so that {@code available - amount} cannot underflow. */
    static final long OVERDRAFT_LIMIT_MAX_MINOR = dev.tally.ledger.LedgerLimits.OVERDRAFT_LIMIT_MAX_MINOR;

    private final CharSlice slice = new CharSlice();
    private final char[] amountText = new char[AMOUNT_TEXT_LENGTH_MAX];
    private final char[] overdraftText = new char[AMOUNT_TEXT_LENGTH_MAX];
    /** A low-balance threshold's text: {@code lowBalanceAlert} of a creation, or {@code threshold} of a set. */
    private final char[] thresholdText = new char[AMOUNT_TEXT_LENGTH_MAX];
    private final byte[] reference = new byte[LedgerLimits.REFERENCE_LENGTH_MAX];
    private final Metadata metadataRules = new Metadata();
    private final byte[] metadata = new byte[LedgerLimits.METADATA_LENGTH_MAX];

    private int seen;
    private long id;
    private long debitAccountId;
    private long creditAccountId;
    private long accountId;
    private long expiresInMs;
    private int currency;
    private int subBalances;
    private boolean debitsMustNotExceedCredits;
    private boolean credits;
    private int amountTextLength;
    private int overdraftTextLength;
    private int thresholdTextLength;
    private int referenceLength;
    private int metadataLength;

    BodyFields()
    {
        clear();
    }

    /** Forgets the previous body: what {@link #fill} then writes is the defaults of an empty body. */
    BodyFields clear()
    {
        seen = 0;
        id = 0;
        debitAccountId = 0;
        creditAccountId = 0;
        accountId = 0;
        expiresInMs = 0;
        currency = 0;
        subBalances = 1;
        debitsMustNotExceedCredits = true;
        credits = false;
        amountTextLength = 0;
        overdraftTextLength = 0;
        thresholdTextLength = 0;
        referenceLength = 0;
        metadataLength = 0;
        return this;
    }

    /**
     * Reads the members of the object whose {@code START_OBJECT} is the parser's current token, up to and
     * including its {@code END_OBJECT}.
     *
     * @param operationIndex the batch operation, or -1 for a single request (only for naming fields).
     */
    void parse(final JsonParser parser, final int operationIndex) throws IOException
    {
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.FIELD_NAME)
        {
            final String name = parser.currentName();
            final BodyField field = BodyField.ofJsonName(name);
            if (field == null)
            {
                throw Rejection.field(ProblemType.INVALID_REQUEST, operationIndex, path(operationIndex, name), "is not a known field");
            }
            if ((seen & field.bit()) != 0)
            {
                throw Rejection.field(ProblemType.INVALID_REQUEST, operationIndex, path(operationIndex, name), "appears more than once");
            }
            seen |= field.bit();
            read(field, parser.nextToken(), parser, operationIndex);
        }
        if (token != JsonToken.END_OBJECT)
        {
            throw Rejection.of(ProblemType.MALFORMED_JSON, operationIndex, "unexpected end of the body object");
        }
    }

    /** Checks that the members present are exactly ones the operation allows, and none it requires is missing. */
    void check(final Operation operation, final int operationIndex)
    {
        final BodyField extra = BodyField.first(seen & ~operation.allowedFields());
        if (extra != null)
        {
            throw reject(ProblemType.INVALID_REQUEST, operationIndex, extra,
                "is not allowed in a " + operation.wireName() + " request");
        }
        final BodyField missing = BodyField.first(operation.requiredFields() & ~seen);
        if (missing != null)
        {
            throw reject(ProblemType.INVALID_REQUEST, operationIndex, missing, "is required");
        }
    }

    /** Writes the normalized payload of {@code operation} onto {@code c} (target id, key and digests excluded). */
    void fill(final Operation operation, final Command c, final int operationIndex)
    {
        c.currency = currency;
        switch (operation)
        {
            case ACCOUNT:
                fillAccount(c, operationIndex);
                break;
            case TRANSFER:
                if (debitAccountId == creditAccountId)
                {
                    throw reject(ProblemType.INVALID_REQUEST, operationIndex,
                        BodyField.CREDIT_ACCOUNT_ID, "must differ from debitAccountId");
                }
                c.debitAccountId = debitAccountId;
                c.creditAccountId = creditAccountId;
                c.amountMinor = positiveAmount(operationIndex);
                System.arraycopy(reference, 0, c.reference, 0, referenceLength);
                c.referenceLength = referenceLength;
                c.metadata(metadata, metadataLength);
                break;
            case REVERSAL:
                c.amountMinor = has(BodyField.AMOUNT) ? positiveAmount(operationIndex) : 0;
                break;
            case HOLD:
                c.accountId = accountId;
                c.amountMinor = positiveAmount(operationIndex);
                c.holdTimeoutMs = expiresInMs;
                break;
            case CAPTURE:
                c.creditAccountId = creditAccountId;
                c.amountMinor = has(BodyField.AMOUNT) ? positiveAmount(operationIndex) : 0;
                break;
            case VOID:
                break;
            case FREEZE:
                c.accountId = accountId;
                c.type = credits ? CommandType.FREEZE_ACCOUNT_ALL : CommandType.FREEZE_ACCOUNT;
                break;
            case UNFREEZE:
            case CLOSE:
            case REMOVE_LOW_BALANCE_ALERT:
                c.accountId = accountId;
                break;
            case ACCOUNT_METADATA:
                c.accountId = accountId;
                c.metadata(metadata, metadataLength);
                break;
            case SET_LOW_BALANCE_ALERT:
                c.accountId = accountId;
                // Without a currency the gateway does not know the account's minor digits: thousandths, as a capture's.
                c.amountMinor = positiveThreshold(BodyField.THRESHOLD, currency == 0 ? Command.AMOUNT_THOUSANDTHS_DIGITS :
                    CurrencyCode.minorDigits(currency), operationIndex);
                break;
            default:
                throw new IllegalArgumentException("no body rules for " + operation);
        }
    }

    /**
     * Sets the account a single lifecycle request names in its path, after its body was parsed: the body may not name
     * one too.
     */
    void pathAccount(final Operation operation, final long accountIdFromPath)
    {
        if (has(BodyField.ACCOUNT_ID))
        {
            throw reject(ProblemType.INVALID_REQUEST, -1, BodyField.ACCOUNT_ID,
                "is not allowed in a " + operation.wireName() + " request: the path names the account");
        }
        accountId = accountIdFromPath;
        seen |= BodyField.ACCOUNT_ID.bit();
    }

    private void fillAccount(final Command c, final int operationIndex)
    {
        c.accountId = id;
        c.subBalances = subBalances;
        c.debitsMustNotExceedCredits = debitsMustNotExceedCredits;
        c.metadata(metadata, metadataLength);
        // The threshold travels in amountMinor, which a creation does not use otherwise: 0 is none.
        c.amountMinor = has(BodyField.LOW_BALANCE_ALERT) ?
            positiveThreshold(BodyField.LOW_BALANCE_ALERT, CurrencyCode.minorDigits(currency), operationIndex) : 0;
        if (!has(BodyField.OVERDRAFT_LIMIT))
        {
            c.overdraftLimitMinor = 0;
            return;
        }
        final long limit = Money.parseMinor(overdraftText, 0, overdraftTextLength, CurrencyCode.minorDigits(currency));
        if (limit < 0 || limit > OVERDRAFT_LIMIT_MAX_MINOR)
        {
            throw reject(ProblemType.INVALID_AMOUNT, operationIndex, BodyField.OVERDRAFT_LIMIT, Money.describe(limit < 0 ? limit : Money.ERROR_OVERFLOW));
        }
        if (limit > 0 && (subBalances != 1 || !debitsMustNotExceedCredits))
        {
            throw reject(ProblemType.INVALID_REQUEST, operationIndex, BodyField.OVERDRAFT_LIMIT,
                "is only allowed when subBalances is 1 and debitsMustNotExceedCredits is true");
        }
        c.overdraftLimitMinor = limit;
    }

    private long positiveAmount(final int operationIndex)
    {
        // A capture or reversal may give its amount without a currency: the I/O thread does not know the
        // hold's or transfer's currency, so the amount travels in thousandths of a major unit (the largest
        // exponent Tally accepts) and the ledger converts it exactly, or rejects extra decimals.
        final int digits = currency == 0 ? Command.AMOUNT_THOUSANDTHS_DIGITS : CurrencyCode.minorDigits(currency);
        final long minor = Money.parseMinor(amountText, 0, amountTextLength, digits);
        if (minor <= 0)
        {
            throw reject(ProblemType.INVALID_AMOUNT, operationIndex, BodyField.AMOUNT,
                minor == 0 ? "must be greater than zero" : Money.describe(minor));
        }
        return minor;
    }

    /** @return the low-balance threshold {@code field} gave, in units of {@code digits} decimals: greater than zero. */
    private long positiveThreshold(final BodyField field, final int digits, final int operationIndex)
    {
        final long minor = Money.parseMinor(thresholdText, 0, thresholdTextLength, digits);
        if (minor <= 0)
        {
            throw reject(ProblemType.INVALID_AMOUNT, operationIndex, field, minor == 0 ? "must be greater than zero" : Money.describe(minor));
        }
        return minor;
    }

    private boolean has(final BodyField field)
    {
        return (seen & field.bit()) != 0;
    }

    private void read(final BodyField field, final JsonToken token, final JsonParser parser, final int operationIndex)
        throws IOException
    {
        switch (field)
        {
            case ID: id = accountId(token, parser, operationIndex, field); break;
            case DEBIT_ACCOUNT_ID: debitAccountId = accountId(token, parser, operationIndex, field); break;
            case CREDIT_ACCOUNT_ID: creditAccountId = accountId(token, parser, operationIndex, field); break;
            case ACCOUNT_ID: accountId = accountId(token, parser, operationIndex, field); break;
            case SUB_BALANCES:
                subBalances = (int)boundedLong(token, parser, operationIndex, field, LedgerLimits.SUB_BALANCES_MAX);
                break;
            case EXPIRES_IN_MS:
                expiresInMs = boundedLong(token, parser, operationIndex, field, HOLD_TIMEOUT_MAX_MS);
                break;
            case DEBITS_MUST_NOT_EXCEED_CREDITS:
                if (token != JsonToken.VALUE_TRUE && token != JsonToken.VALUE_FALSE)
                {
                    throw reject(ProblemType.INVALID_REQUEST, operationIndex, field, "must be true or false");
                }
                debitsMustNotExceedCredits = token == JsonToken.VALUE_TRUE;
                break;
            case CREDITS:
                if (token != JsonToken.VALUE_TRUE && token != JsonToken.VALUE_FALSE)
                {
                    throw reject(ProblemType.INVALID_REQUEST, operationIndex, field, "must be true or false");
                }
                credits = token == JsonToken.VALUE_TRUE;
                break;
            case CURRENCY: currency = currency(token, parser, operationIndex, field); break;
            case AMOUNT: amountTextLength = amountText(token, parser, operationIndex, field, amountText); break;
            case OVERDRAFT_LIMIT: overdraftTextLength = amountText(token, parser, operationIndex, field, overdraftText); break;
            case LOW_BALANCE_ALERT:
            case THRESHOLD:
                thresholdTextLength = amountText(token, parser, operationIndex, field, thresholdText);
                break;
            case REFERENCE: referenceLength = reference(token, parser, operationIndex, field); break;
            case METADATA: metadataLength = metadata(parser, operationIndex, field); break;
            default: throw new IllegalStateException("unhandled body field " + field);
        }
    }

    /**
     * @return an account id, 1 to 2^63 - 1, given as a JSON integer or as a string of its decimal digits (the form replies
     *         write it in, which a JavaScript client keeps exact above 2^53); either gives the same command and fingerprint.
     */
    private long accountId(final JsonToken token, final JsonParser parser, final int operationIndex, final BodyField field)
        throws IOException
    {
        final long value = token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_STRING ?
            ResourceId.parseAccountId(text(parser)) : ResourceId.INVALID_ACCOUNT_ID;
        if (value < 1)
        {
            throw reject(ProblemType.INVALID_REQUEST, operationIndex, field,
                "must be an integer from 1 to " + Long.MAX_VALUE + ", as a JSON number or a string of its decimal digits");
        }
        return value;
    }

    /** @return an integer from 1 to {@code max}, given as a JSON integer (not a string, not a fraction). */
    private long boundedLong(
        final JsonToken token, final JsonParser parser, final int operationIndex, final BodyField field, final long max) throws IOException
    {
        final long value = token == JsonToken.VALUE_NUMBER_INT ? ResourceId.parseAccountId(text(parser)) : ResourceId.INVALID_ACCOUNT_ID;
        if (value < 1 || value > max)
        {
            throw reject(ProblemType.INVALID_REQUEST, operationIndex, field, "must be an integer from 1 to " + max);
        }
        return value;
    }

    private int currency(final JsonToken token, final JsonParser parser, final int operationIndex, final BodyField field)
        throws IOException
    {
        if (token != JsonToken.VALUE_STRING)
        {
            throw reject(ProblemType.INVALID_REQUEST, operationIndex, field, "must be a string such as \"TRY\"");
        }
        final int packed = CurrencyCode.pack(text(parser));
        if (packed == 0 || CurrencyCode.minorDigits(packed) < 0)
        {
            throw reject(ProblemType.UNSUPPORTED_CURRENCY, operationIndex, field,
                "must be an upper-case ISO 4217 code that Tally accepts, such as \"TRY\"");
        }
        return packed;
    }

    /** Keeps an amount's text (JSON string or number) until the currency is known; returns its length. */
    private int amountText(
        final JsonToken token, final JsonParser parser, final int operationIndex, final BodyField field, final char[] into)
        throws IOException
    {
        if (token != JsonToken.VALUE_STRING && token != JsonToken.VALUE_NUMBER_INT && token != JsonToken.VALUE_NUMBER_FLOAT)
        {
            throw reject(ProblemType.INVALID_AMOUNT, operationIndex, field,
                "must be a decimal string such as \"1000.00\" or a JSON number");
        }
        final int length = parser.getTextLength();
        if (length > into.length)
        {
            throw reject(ProblemType.INVALID_AMOUNT, operationIndex, field, "is too long");
        }
        System.arraycopy(parser.getTextCharacters(), parser.getTextOffset(), into, 0, length);
        return length;
    }

    private int reference(final JsonToken token, final JsonParser parser, final int operationIndex, final BodyField field)
        throws IOException
    {
        final CharSequence text = token == JsonToken.VALUE_STRING ? text(parser) : null;
        final int length = text == null ? 0 : text.length();
        boolean valid = length >= 1 && length <= LedgerLimits.REFERENCE_LENGTH_MAX;
        for (int i = 0; valid && i < length; i++)
        {
            valid = IdempotencyKey.isVisibleAscii(text.charAt(i));
            reference[i] = (byte)text.charAt(i);
        }
        if (!valid)
        {
            throw reject(ProblemType.INVALID_REQUEST, operationIndex, field,
                "must be a string of 1 to " + LedgerLimits.REFERENCE_LENGTH_MAX + " visible ASCII characters");
        }
        return length;
    }

    /** @return the canonical metadata's length, written into {@link #metadata} (0 for {@code {}}). */
    private int metadata(final JsonParser parser, final int operationIndex, final BodyField field) throws IOException
    {
        try
        {
            return metadataRules.canonical(parser, metadata);
        }
        catch (final Metadata.Invalid invalid)
        {
            throw reject(ProblemType.INVALID_REQUEST, operationIndex, field, invalid.getMessage());
        }
    }

    private CharSequence text(final JsonParser parser) throws IOException
    {
        return slice.wrap(parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength());
    }

    /** Builds the rejection of one member; its path is only built here, on the error path. */
    private static Rejection reject(final ProblemType type, final int operationIndex, final BodyField field, final String complaint)
    {
        return Rejection.field(type, operationIndex, path(operationIndex, field.jsonName()), complaint);
    }

    /** @return how a body member is named in problems: bare in a single request, under {@code body.} in a batch. */
    private static String path(final int operationIndex, final String name)
    {
        return operationIndex < 0 ? name : "body." + name;
    }
}
