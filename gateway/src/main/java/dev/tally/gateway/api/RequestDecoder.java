package dev.tally.gateway.api;

import dev.tally.gateway.api.json.CharSlice;
import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.problem.ProblemType;
import dev.tally.gateway.api.routing.ResourceId;
import dev.tally.gateway.api.routing.Route;
import dev.tally.gateway.api.routing.RouteMatch;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.id.Uuid7;
import io.netty.buffer.ByteBuf;

import java.io.IOException;

/**
 * Validates a mutating request and fills the {@link Command} the gateway publishes to the ring: type,
 * tenant, idempotency key digest, fingerprint, batch position and payload. The journaler stamps the
 * journal index and time later.
 *
 * <p>One instance per Netty I/O thread: not thread-safe. It reuses one {@link JsonFactory} (whose
 * buffer recycling makes each parser cheap; jackson-core cannot point an existing parser at new input, so a
 * parser is created per body), one SHA-256 digest and all scratch space.
 *
 * <p>Strict by design: the body must be one UTF-8 JSON object; an unknown, duplicate, mistyped, missing
 * or out-of-range member, or JSON {@code null} anywhere, is a 400 whose detail and {@code "field"} member
 * name the member. Order of checks for a single request: path id (404), then {@code Idempotency-Key}
 * (400), then body (400). Nothing invalid reaches the journal, and a failed decode leaves the command(s)
 * cleared, so a half-filled command is never mistaken for a valid one.
 *
 * <p>Batch wire shape ({@code POST /v1/batch}; no {@code Idempotency-Key} header needed, each operation
 * carries its own key, and a header that is sent anyway is ignored):
 * <pre>
 * {"atomic": false,                                     optional, default false
 *  "operations": [                                       1 to LedgerLimits.BATCH_OPERATIONS_MAX
 *    {"op": "account",  "idempotencyKey": "k1", "body": {...as POST /v1/accounts...}},
 *    {"op": "transfer", "idempotencyKey": "k2", "body": {...as POST /v1/transfers...}},
 *    {"op": "reversal", "idempotencyKey": "k3", "transferId": "&lt;uuid&gt;", "body": {...}},   body optional
 *    {"op": "hold",     "idempotencyKey": "k4", "body": {...as POST /v1/holds...}},
 *    {"op": "capture",  "idempotencyKey": "k5", "holdId": "&lt;uuid&gt;", "body": {...}},
 *    {"op": "void",     "idempotencyKey": "k6", "holdId": "&lt;uuid&gt;"}                     body optional
 *    {"op": "freeze",   "idempotencyKey": "k7", "body": {"accountId": 42, "credits": true}}  credits optional
 *    {"op": "unfreeze", "idempotencyKey": "k8", "body": {"accountId": 42}}
 *    {"op": "close",    "idempotencyKey": "k9", "body": {"accountId": 42}}
 *  ]}
 * </pre>
 * The {@code body} of an operation is exactly the body of the single endpoint, and the path id of that
 * endpoint becomes {@code transferId} or {@code holdId}, or, for the account lifecycle, {@code accountId} of the body.
 * Any invalid operation makes the whole batch a 400
 * whose detail starts with {@code operations[i]} and whose {@code "operationIndex"} member is {@code i}.
 *
 * <p>Capture and reversal bodies may give an {@code amount} with or without a {@code currency}. With
 * one, the amount is converted with that currency's exponent and the ledger rejects a mismatch with the
 * hold's or transfer's currency. Without one (the I/O thread does not know the hold's currency), the
 * amount travels in thousandths of a major unit ({@link Command#AMOUNT_THOUSANDTHS_DIGITS}) and the
 * ledger converts it exactly with the hold's or transfer's exponent, rejecting extra decimals.
 */
public final class RequestDecoder
{
    /** Deepest JSON a valid request has is 4 (batch, operations, operation, body); anything deeper is rejected early. */
    private static final int NESTING_DEPTH_MAX = 8;
    /** No valid number is longer than an amount's text. */
    private static final int NUMBER_LENGTH_MAX = BodyFields.AMOUNT_TEXT_LENGTH_MAX;
    /** No valid string is longer than an idempotency key. */
    private static final int STRING_LENGTH_MAX = 1024;
    private static final int NAME_LENGTH_MAX = 256;
    private static final int COPY_BUFFER_INITIAL_BYTES = 64 * 1024;

    private static final int ENVELOPE_OP = 1;
    private static final int ENVELOPE_KEY = 1 << 1;
    private static final int ENVELOPE_BODY = 1 << 2;
    private static final int ENVELOPE_TRANSFER_ID = 1 << 3;
    private static final int ENVELOPE_HOLD_ID = 1 << 4;

    private final JsonFactory jsonFactory = JsonFactory.builder()
        .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
        .streamReadConstraints(StreamReadConstraints.builder()
            .maxNestingDepth(NESTING_DEPTH_MAX)
            .maxNumberLength(NUMBER_LENGTH_MAX)
            .maxStringLength(STRING_LENGTH_MAX)
            .maxNameLength(NAME_LENGTH_MAX)
            .build())
        .build();
    private final BodyFields fields = new BodyFields();
    private final RequestDigests digests = new RequestDigests();
    /** Carries a reference looked up by {@link #referenceDigest} through the same digest a transfer gets. */
    private final Command referenceProbe = new Command();
    private final ResourceId target = new ResourceId();
    private final CharSlice slice = new CharSlice();
    private final char[] keyChars = new char[LedgerLimits.IDEMPOTENCY_KEY_LENGTH_MAX];
    private byte[] copyBuffer = new byte[COPY_BUFFER_INITIAL_BYTES];

    // the body being decoded
    private byte[] bytes;
    private int offset;
    private int length;

    private int batchSize;
    private int batchOperationsTouched;

    /**
     * @return the digest of a reference of the tenant, {@code {hi, lo}}, as a transfer naming it carries it (the key the
     *         ledger's reference table and the cold index file it under); {@code reference} is 1 to 64 visible ASCII
     *         characters.
     */
    public long[] referenceDigest(final long tenantId, final String reference)
    {
        final Command probe = referenceProbe;
        probe.tenantId = tenantId;
        for (int i = 0; i < reference.length(); i++)
        {
            probe.reference[i] = (byte)reference.charAt(i);
        }
        probe.referenceLength = reference.length();
        digests.reference(probe);
        return new long[] {probe.referenceHi, probe.referenceLo};
    }

    /**
     * Decodes a single mutating request.
     *
     * @param route          a route with a {@link Route#commandType()} (not {@link Route#BATCH}, not a read).
     * @param tenantId       the authenticated tenant.
     * @param idempotencyKey the {@code Idempotency-Key} header value, or {@code null} when absent.
     * @param pathId         the raw {@code {id}} path segment ({@link RouteMatch#pathId()}), or {@code null}.
     * @param body           the request body (readable bytes; its indexes are not moved), or {@code null}.
     * @param into           the command to fill (every field is overwritten).
     * @return {@code null} when {@code into} is ready to publish, otherwise the problem to answer
     * ({@code into} is then cleared).
     */
    public Problem decode(
        final Route route, final long tenantId, final CharSequence idempotencyKey, final String pathId, final ByteBuf body,
        final Command into)
    {
        final Operation operation = Operation.of(route);
        if (operation == null)
        {
            throw new IllegalArgumentException(route + " is not a single-command route");
        }
        try
        {
            decodeSingle(operation, tenantId, idempotencyKey, pathId, body, into);
            return null;
        }
        catch (final Rejection rejection)
        {
            into.clear();
            return rejection.problem();
        }
    }

    /**
     * Decodes {@code POST /v1/batch} into consecutive commands with {@code batchSize}, {@code batchPosition}
     * and {@code atomic} set.
     *
     * @param tenantId the authenticated tenant.
     * @param body     the request body (readable bytes; its indexes are not moved).
     * @param into     pre-allocated commands, at least {@link LedgerLimits#BATCH_OPERATIONS_MAX} of them.
     * @return {@code null} when {@code into[0 .. batchSize())} are ready to publish, otherwise the problem
     * to answer (the commands touched are then cleared).
     */
    public Problem decodeBatch(final long tenantId, final ByteBuf body, final Command[] into)
    {
        if (into.length < LedgerLimits.BATCH_OPERATIONS_MAX)
        {
            throw new IllegalArgumentException("need room for " + LedgerLimits.BATCH_OPERATIONS_MAX + " commands, got " + into.length);
        }
        batchSize = 0;
        batchOperationsTouched = 0;
        try
        {
            batchSize = decodeBatchBody(tenantId, body, into);
            return null;
        }
        catch (final Rejection rejection)
        {
            for (int i = 0; i < batchOperationsTouched; i++)
            {
                into[i].clear();
            }
            return rejection.problem();
        }
    }

    /** @return the number of operations of the last successful {@link #decodeBatch}; 0 after a failed one. */
    public int batchSize()
    {
        return batchSize;
    }

    private void decodeSingle(
        final Operation operation, final long tenantId, final CharSequence idempotencyKey, final String pathId, final ByteBuf body,
        final Command into)
    {
        if (operation.hasTarget() && (pathId == null || !target.parse(pathId, operation.targetKind())))
        {
            final String noun = operation.targetKind() == Uuid7.KIND_TRANSFER ? "transfer" : "hold";
            throw new Rejection(new Problem(ProblemType.NOT_FOUND, "no " + noun + " has the id " + pathId));
        }
        final long pathAccountId = operation.accountInPath() && pathId != null ? ResourceId.parseAccountId(pathId) : 0;
        if (operation.accountInPath() && pathAccountId <= 0)
        {
            throw new Rejection(new Problem(ProblemType.INVALID_REQUEST,
                "the account id in the path must be a positive 63-bit decimal integer, not " + pathId).with("field", "id"));
        }
        final Problem keyProblem = IdempotencyKey.validate(idempotencyKey, IdempotencyKey.HEADER + " header");
        if (keyProblem != null)
        {
            throw new Rejection(keyProblem);
        }
        fields.clear();
        locate(body);
        if (length == 0)
        {
            if (operation.bodyRequired())
            {
                throw Rejection.of(ProblemType.MALFORMED_JSON, -1, "the request needs a JSON object body");
            }
        }
        else
        {
            try (JsonParser parser = openObject())
            {
                fields.parse(parser, -1);
                expectEnd(parser);
            }
            catch (final IOException e)
            {
                throw malformed(e);
            }
        }
        if (operation.accountInPath())
        {
            fields.pathAccount(operation, pathAccountId);
        }
        fields.check(operation, -1);
        fill(operation, tenantId, idempotencyKey, into, -1);
    }

    private int decodeBatchBody(final long tenantId, final ByteBuf body, final Command[] into)
    {
        locate(body);
        boolean atomic = false;
        boolean atomicSeen = false;
        int count = -1;
        try (JsonParser parser = openObject())
        {
            JsonToken token;
            while ((token = parser.nextToken()) == JsonToken.FIELD_NAME)
            {
                final String name = parser.currentName();
                if ("atomic".equals(name) && !atomicSeen)
                {
                    atomicSeen = true;
                    token = parser.nextToken();
                    if (token != JsonToken.VALUE_TRUE && token != JsonToken.VALUE_FALSE)
                    {
                        throw Rejection.field(ProblemType.INVALID_REQUEST, -1, name, "must be true or false");
                    }
                    atomic = token == JsonToken.VALUE_TRUE;
                }
                else if ("operations".equals(name) && count < 0)
                {
                    count = operations(parser, tenantId, into);
                }
                else
                {
                    throw Rejection.field(ProblemType.INVALID_REQUEST, -1, name,
                        "atomic".equals(name) || "operations".equals(name) ? "appears more than once" : "is not a known field");
                }
            }
            expectEndOfObject(token, -1);
            expectEnd(parser);
        }
        catch (final IOException e)
        {
            throw malformed(e);
        }
        if (count < 0)
        {
            throw Rejection.field(ProblemType.INVALID_REQUEST, -1, "operations", "is required");
        }
        for (int i = 0; i < count; i++)
        {
            into[i].batchSize = count;
            into[i].batchPosition = i;
            into[i].atomic = atomic;
        }
        return count;
    }

    /** Reads the operations array; returns how many operations it holds. */
    private int operations(final JsonParser parser, final long tenantId, final Command[] into) throws IOException
    {
        if (parser.nextToken() != JsonToken.START_ARRAY)
        {
            throw Rejection.field(ProblemType.INVALID_REQUEST, -1, "operations", "must be an array of operations");
        }
        int count = 0;
        JsonToken token;
        while ((token = parser.nextToken()) != JsonToken.END_ARRAY)
        {
            if (count == LedgerLimits.BATCH_OPERATIONS_MAX)
            {
                throw new Rejection(new Problem(ProblemType.BATCH_TOO_LARGE,
                    "a batch holds at most " + LedgerLimits.BATCH_OPERATIONS_MAX + " operations")
                    .with("operationsMax", LedgerLimits.BATCH_OPERATIONS_MAX));
            }
            if (token != JsonToken.START_OBJECT)
            {
                throw Rejection.of(token == null ? ProblemType.MALFORMED_JSON : ProblemType.INVALID_REQUEST, count,
                    "must be a JSON object");
            }
            batchOperationsTouched = count + 1;
            operation(parser, tenantId, count, into[count]);
            count++;
        }
        if (count == 0)
        {
            throw Rejection.field(ProblemType.INVALID_REQUEST, -1, "operations",
                "must hold 1 to " + LedgerLimits.BATCH_OPERATIONS_MAX + " operations");
        }
        return count;
    }

    /** Reads one operation object (its {@code START_OBJECT} is current) and fills {@code into}. */
    private void operation(final JsonParser parser, final long tenantId, final int index, final Command into) throws IOException
    {
        fields.clear();
        Operation operation = null;
        int seen = 0;
        int keyLength = 0;
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.FIELD_NAME)
        {
            final String name = parser.currentName();
            final int member = envelopeMember(name);
            if (member == 0)
            {
                throw Rejection.field(ProblemType.INVALID_REQUEST, index, name, "is not a known field");
            }
            if ((seen & member) != 0)
            {
                throw Rejection.field(ProblemType.INVALID_REQUEST, index, name, "appears more than once");
            }
            seen |= member;
            token = parser.nextToken();
            switch (member)
            {
                case ENVELOPE_OP: operation = operationName(token, parser, index); break;
                case ENVELOPE_KEY: keyLength = batchKey(token, parser, index); break;
                case ENVELOPE_BODY:
                    if (token != JsonToken.START_OBJECT)
                    {
                        throw Rejection.field(ProblemType.INVALID_REQUEST, index, name, "must be a JSON object");
                    }
                    fields.parse(parser, index);
                    break;
                case ENVELOPE_TRANSFER_ID: targetId(token, parser, index, name, Uuid7.KIND_TRANSFER); break;
                case ENVELOPE_HOLD_ID: targetId(token, parser, index, name, Uuid7.KIND_HOLD); break;
                default: throw new IllegalStateException("unhandled envelope member " + name);
            }
        }
        expectEndOfObject(token, index);
        checkEnvelope(operation, seen, index);
        fields.check(operation, index);
        fill(operation, tenantId, slice.wrap(keyChars, 0, keyLength), into, index);
    }

    private void checkEnvelope(final Operation operation, final int seen, final int index)
    {
        if (operation == null)
        {
            throw Rejection.field(ProblemType.INVALID_REQUEST, index, "op", "is required: one of " + Operation.WIRE_NAMES);
        }
        if ((seen & ENVELOPE_KEY) == 0)
        {
            throw Rejection.field(ProblemType.IDEMPOTENCY_KEY_MISSING, index, "idempotencyKey", "is required on every operation");
        }
        if (operation.bodyRequired() && (seen & ENVELOPE_BODY) == 0)
        {
            throw Rejection.field(ProblemType.INVALID_REQUEST, index, "body", "is required for " + operation.wireName());
        }
        final int targetMember = !operation.hasTarget() ? 0 :
            operation.targetKind() == Uuid7.KIND_TRANSFER ? ENVELOPE_TRANSFER_ID : ENVELOPE_HOLD_ID;
        final int strayTarget = seen & (ENVELOPE_TRANSFER_ID | ENVELOPE_HOLD_ID) & ~targetMember;
        if (strayTarget != 0)
        {
            throw Rejection.field(ProblemType.INVALID_REQUEST, index, strayTarget == ENVELOPE_HOLD_ID ? "holdId" : "transferId",
                "is not allowed for " + operation.wireName());
        }
        if (targetMember != 0 && (seen & targetMember) == 0)
        {
            throw Rejection.field(ProblemType.INVALID_REQUEST, index, operation.targetField(), "is required for " + operation.wireName());
        }
    }

    private Operation operationName(final JsonToken token, final JsonParser parser, final int index) throws IOException
    {
        final Operation operation = token == JsonToken.VALUE_STRING ? Operation.ofWireName(text(parser)) : null;
        if (operation == null)
        {
            throw Rejection.field(ProblemType.INVALID_REQUEST, index, "op", "must be one of " + Operation.WIRE_NAMES);
        }
        return operation;
    }

    /** Copies and validates an operation's key; returns its length. */
    private int batchKey(final JsonToken token, final JsonParser parser, final int index) throws IOException
    {
        if (token != JsonToken.VALUE_STRING)
        {
            throw Rejection.field(ProblemType.IDEMPOTENCY_KEY_INVALID, index, "idempotencyKey", "must be a string");
        }
        final CharSequence key = text(parser);
        if (!IdempotencyKey.isValid(key))
        {
            final Problem problem = IdempotencyKey.validate(key, "operations[" + index + "].idempotencyKey");
            throw new Rejection(problem.with("field", "operations[" + index + "].idempotencyKey").with("operationIndex", index));
        }
        System.arraycopy(parser.getTextCharacters(), parser.getTextOffset(), keyChars, 0, key.length());
        return key.length();
    }

    private void targetId(final JsonToken token, final JsonParser parser, final int index, final String name, final int kind)
        throws IOException
    {
        if (token != JsonToken.VALUE_STRING || !target.parse(text(parser), kind))
        {
            throw Rejection.field(ProblemType.INVALID_REQUEST, index, name,
                "must be the id of a Tally " + (kind == Uuid7.KIND_TRANSFER ? "transfer" : "hold"));
        }
    }

    /** Sets the envelope, payload and digests of a validated request. */
    private void fill(final Operation operation, final long tenantId, final CharSequence key, final Command c, final int index)
    {
        // The first write into c: a holder reused request after request, reset here rather than cleared
        // up front so that an unchanged type is not stored again (Command.reset).
        c.reset(operation.commandType());
        c.tenantId = tenantId;
        fields.fill(operation, c, index);
        if (operation.hasTarget())
        {
            c.targetIdHi = target.hi();
            c.targetIdLo = target.lo();
        }
        if (c.referenceLength > 0)
        {
            digests.reference(c);
        }
        digests.key(tenantId, key, c);
        digests.fingerprint(operation, c);
    }

    /** Points {@link #bytes} at the body, copying it only when it is not backed by an array. */
    private void locate(final ByteBuf body)
    {
        if (body == null)
        {
            bytes = copyBuffer;
            offset = 0;
            length = 0;
        }
        else if (body.hasArray())
        {
            bytes = body.array();
            offset = body.arrayOffset() + body.readerIndex();
            length = body.readableBytes();
        }
        else
        {
            length = body.readableBytes();
            if (copyBuffer.length < length)
            {
                copyBuffer = new byte[Math.max(length, copyBuffer.length * 2)];
            }
            body.getBytes(body.readerIndex(), copyBuffer, 0, length);
            bytes = copyBuffer;
            offset = 0;
        }
    }

    /**
     * Opens a parser positioned on the body's {@code START_OBJECT}. The body must start (after JSON
     * whitespace) with {@code '{'} and hold no NUL in its first four bytes: that rules out a BOM and the
     * UTF-16/32 encodings jackson would otherwise detect, so only UTF-8 is ever accepted.
     */
    private JsonParser openObject() throws IOException
    {
        int first = offset;
        final int end = offset + length;
        while (first < end && isJsonWhitespace(bytes[first]))
        {
            first++;
        }
        if (first == end || bytes[first] != '{')
        {
            throw Rejection.of(ProblemType.MALFORMED_JSON, -1, "the body must be a UTF-8 JSON object");
        }
        for (int i = offset; i < Math.min(end, offset + 4); i++)
        {
            if (bytes[i] == 0)
            {
                throw Rejection.of(ProblemType.MALFORMED_JSON, -1, "the body must be a UTF-8 JSON object");
            }
        }
        final JsonParser parser = jsonFactory.createParser(bytes, offset, length);
        if (parser.nextToken() != JsonToken.START_OBJECT)
        {
            parser.close();
            throw Rejection.of(ProblemType.MALFORMED_JSON, -1, "the body must be a UTF-8 JSON object");
        }
        return parser;
    }

    private static void expectEndOfObject(final JsonToken token, final int index)
    {
        if (token != JsonToken.END_OBJECT)
        {
            throw Rejection.of(ProblemType.MALFORMED_JSON, index, "unexpected end of a JSON object");
        }
    }

    private static void expectEnd(final JsonParser parser) throws IOException
    {
        if (parser.nextToken() != null)
        {
            throw Rejection.of(ProblemType.MALFORMED_JSON, -1, "unexpected content after the JSON object");
        }
    }

    private CharSequence text(final JsonParser parser) throws IOException
    {
        return slice.wrap(parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength());
    }

    /**
     * The members have five different lengths, so one comparison decides. Not a {@code switch} on the string: that
     * hashes it first, and Jackson hands each parser's names over as new strings whose hash is not cached yet
     * (≈ 4 % of the I/O thread's time in batch runs).
     */
    private static int envelopeMember(final String name)
    {
        switch (name.length())
        {
            case 2: return "op".equals(name) ? ENVELOPE_OP : 0;
            case 14: return "idempotencyKey".equals(name) ? ENVELOPE_KEY : 0;
            case 4: return "body".equals(name) ? ENVELOPE_BODY : 0;
            case 10: return "transferId".equals(name) ? ENVELOPE_TRANSFER_ID : 0;
            case 6: return "holdId".equals(name) ? ENVELOPE_HOLD_ID : 0;
            default: return 0;
        }
    }

    private static boolean isJsonWhitespace(final byte b)
    {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }

    private static Rejection malformed(final IOException e)
    {
        final String reason = e instanceof JsonProcessingException ? ((JsonProcessingException)e).getOriginalMessage() : e.getMessage();
        return Rejection.of(ProblemType.MALFORMED_JSON, -1, "the body is not valid JSON: " + reason);
    }
}
