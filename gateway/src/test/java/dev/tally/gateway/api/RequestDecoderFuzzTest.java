package dev.tally.gateway.api;

import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.problem.ProblemType;
import dev.tally.gateway.api.routing.Route;

import dev.tally.ledger.command.Command;
import io.netty.buffer.Unpooled;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static dev.tally.gateway.api.Requests.ACCOUNT_JSON;
import static dev.tally.gateway.api.Requests.CAPTURE_JSON;
import static dev.tally.gateway.api.Requests.HOLD_ID;
import static dev.tally.gateway.api.Requests.HOLD_JSON;
import static dev.tally.gateway.api.Requests.REVERSAL_JSON;
import static dev.tally.gateway.api.Requests.TENANT;
import static dev.tally.gateway.api.Requests.TRANSFER_ID;
import static dev.tally.gateway.api.Requests.TRANSFER_JSON;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Property-based fuzzing of {@link RequestDecoder}: whatever the bytes, decoding returns either a valid
 * command or a 400/404 problem with the command(s) cleared. No exception escapes, and nothing half-filled
 * is ever reported as valid.
 */
class RequestDecoderFuzzTest
{
    private static final Route[] SINGLE_ROUTES = {
        Route.CREATE_ACCOUNT, Route.CREATE_TRANSFER, Route.REVERSE_TRANSFER, Route.CREATE_HOLD, Route.CAPTURE_HOLD, Route.VOID_HOLD};
    private static final String[] VALID_BODIES = {
        ACCOUNT_JSON, TRANSFER_JSON, REVERSAL_JSON, HOLD_JSON, CAPTURE_JSON, "{}",
        "{\"id\":1,\"currency\":\"TRY\",\"overdraftLimit\":\"5.00\"}",
        "{\"atomic\":true,\"operations\":[{\"op\":\"transfer\",\"idempotencyKey\":\"k1\",\"body\":" + TRANSFER_JSON + "}," +
            "{\"op\":\"void\",\"idempotencyKey\":\"k2\",\"holdId\":\"" + HOLD_ID + "\"}," +
            "{\"op\":\"reversal\",\"idempotencyKey\":\"k3\",\"transferId\":\"" + TRANSFER_ID + "\",\"body\":" + REVERSAL_JSON + "}]}",
    };
    /** Bytes that matter to JSON and to the validators, so mutations hit interesting paths more often than noise. */
    private static final byte[] INTERESTING = "{}[]\",:0123456789.-+eE \t\n\\u/ntrfalsTRYJPY\u0000\u007f".getBytes(StandardCharsets.ISO_8859_1);
    private static final String[] FIELD_NAMES = {
        "id", "currency", "subBalances", "debitsMustNotExceedCredits", "overdraftLimit", "debitAccountId", "creditAccountId",
        "accountId", "amount", "reference", "expiresInMs", "op", "idempotencyKey", "body", "transferId", "holdId", "atomic",
        "operations", "x", ""};
    private static final Set<ProblemType> DECODE_PROBLEMS = EnumSet.of(ProblemType.MALFORMED_JSON, ProblemType.INVALID_REQUEST,
        ProblemType.INVALID_AMOUNT, ProblemType.UNSUPPORTED_CURRENCY, ProblemType.IDEMPOTENCY_KEY_MISSING,
        ProblemType.IDEMPOTENCY_KEY_INVALID, ProblemType.BATCH_TOO_LARGE, ProblemType.NOT_FOUND);

    private final RequestDecoder decoder = new RequestDecoder();
    private final Command command = new Command();
    private final Command[] batch = Requests.commands();

    @Property(tries = 3000)
    void shouldNeverThrowOnRandomBytes(@ForAll @Size(max = 600) final byte[] body)
    {
        decodeEverywhere(body);
    }

    @Property(tries = 3000)
    void shouldNeverThrowOnMutatedValidBodies(@ForAll("mutatedBodies") final byte[] body)
    {
        decodeEverywhere(body);
        // the fuzz must reach the accepting paths too, not only the first syntax error
        Statistics.coverage(coverage -> coverage.check("accepted").count(count -> count > 0));
    }

    @Property(tries = 3000)
    void shouldNeverThrowOnStructurallyPlausibleJson(@ForAll("plausibleJson") final String json)
    {
        decodeEverywhere(json.getBytes(StandardCharsets.UTF_8));
        Statistics.coverage(coverage -> coverage.check("accepted").count(count -> count > 0));
    }

    @Property(tries = 1000)
    void shouldNeverThrowOnPlausibleBatches(@ForAll("plausibleBatch") final String json)
    {
        decodeEverywhere(json.getBytes(StandardCharsets.UTF_8));
        Statistics.coverage(coverage -> coverage.check("accepted").count(count -> count > 0));
    }

    @Property(tries = 1000)
    void shouldNeverThrowOnRandomKeysAndPathIds(@ForAll final String key, @ForAll final String pathId)
    {
        for (final Route route : SINGLE_ROUTES)
        {
            check(decoder.decode(route, TENANT, key, pathId, Requests.body(TRANSFER_JSON), command));
        }
    }

    private void decodeEverywhere(final byte[] body)
    {
        boolean anyAccepted = false;
        for (final Route route : SINGLE_ROUTES)
        {
            final String pathId = route == Route.REVERSE_TRANSFER ? TRANSFER_ID : route.hasPathId() ? HOLD_ID : null;
            anyAccepted |= check(decoder.decode(route, TENANT, "key", pathId, Unpooled.wrappedBuffer(body), command));
        }
        // a failed decode clears the commands it touched; start clean so that "touched" is all we look at
        final int checked = Math.min(batch.length, body.length / 2 + 1);
        for (int i = 0; i < Math.max(checked, decoder.batchSize()); i++)
        {
            batch[i].clear();
        }
        final Problem problem = decoder.decodeBatch(TENANT, Unpooled.wrappedBuffer(body), batch);
        final boolean accepted = problem == null;
        if (problem == null)
        {
            final int size = decoder.batchSize();
            assertTrue(size >= 1);
            for (int i = 0; i < size; i++)
            {
                assertNull(Requests.violation(batch[i], TENANT), "operation " + i);
                assertTrue(batch[i].batchSize == size && batch[i].batchPosition == i);
            }
        }
        else
        {
            assertTrue(DECODE_PROBLEMS.contains(problem.type()) && problem.status() == 400, problem::toString);
            for (int i = 0; i < checked; i++)
            {
                assertTrue(Requests.isCleared(batch[i]), "operation " + i + " cleared after " + problem);
            }
        }
        Statistics.collect(anyAccepted || accepted ? "accepted" : "rejected");
    }

    /** @return true when the request was accepted (and the command is valid). */
    private boolean check(final Problem problem)
    {
        if (problem == null)
        {
            assertNull(Requests.violation(command, TENANT));
            return true;
        }
        else
        {
            assertTrue(DECODE_PROBLEMS.contains(problem.type()), problem::toString);
            assertTrue(problem.status() == 400 || problem.status() == 404, problem::toString);
            assertTrue(Requests.isCleared(command), () -> "cleared after " + problem);
            problem.toJson();
            return false;
        }
    }

    @Provide
    Arbitrary<byte[]> mutatedBodies()
    {
        final Arbitrary<byte[]> seed = Arbitraries.of(VALID_BODIES).map(s -> s.getBytes(StandardCharsets.UTF_8));
        final Arbitrary<List<int[]>> mutations = Arbitraries.integers().between(0, Integer.MAX_VALUE)
            .array(int[].class).ofSize(3).list().ofMinSize(1).ofMaxSize(6);
        return Combinators.combine(seed, mutations).as(RequestDecoderFuzzTest::mutate);
    }

    /** Applies each mutation: {kind, position, argument}. */
    private static byte[] mutate(final byte[] seed, final List<int[]> mutations)
    {
        byte[] bytes = seed;
        for (final int[] mutation : mutations)
        {
            final int length = bytes.length;
            final int at = length == 0 ? 0 : mutation[1] % length;
            final byte interesting = INTERESTING[mutation[2] % INTERESTING.length];
            switch (mutation[0] % 6)
            {
                case 0: // replace one byte
                    if (length > 0)
                    {
                        bytes = bytes.clone();
                        bytes[at] = (mutation[2] & 1) == 0 ? interesting : (byte)mutation[2];
                    }
                    break;
                case 1: // insert one byte
                    bytes = splice(bytes, at, 0, new byte[] {interesting});
                    break;
                case 2: // delete a range
                    bytes = splice(bytes, at, Math.min(length - at, 1 + mutation[2] % 8), new byte[0]);
                    break;
                case 3: // duplicate a range
                    final int span = Math.min(length - at, 1 + mutation[2] % 40);
                    final byte[] copy = new byte[span];
                    System.arraycopy(bytes, at, copy, 0, span);
                    bytes = splice(bytes, at, 0, copy);
                    break;
                case 4: // truncate
                    bytes = java.util.Arrays.copyOf(bytes, at);
                    break;
                default: // change a digit run into a long one
                    bytes = splice(bytes, at, 0, "9".repeat(1 + mutation[2] % 30).getBytes(StandardCharsets.US_ASCII));
                    break;
            }
        }
        return bytes;
    }

    private static byte[] splice(final byte[] bytes, final int at, final int removed, final byte[] inserted)
    {
        final byte[] result = new byte[bytes.length - removed + inserted.length];
        System.arraycopy(bytes, 0, result, 0, at);
        System.arraycopy(inserted, 0, result, at, inserted.length);
        System.arraycopy(bytes, at + removed, result, at + inserted.length, bytes.length - at - removed);
        return result;
    }

    @Provide
    Arbitrary<String> plausibleJson()
    {
        return object(2);
    }

    @Provide
    Arbitrary<String> plausibleBatch()
    {
        final Arbitrary<String> valid = Arbitraries.of(
            "{\"op\":\"transfer\",\"idempotencyKey\":\"k1\",\"body\":" + TRANSFER_JSON + "}",
            "{\"op\":\"account\",\"idempotencyKey\":\"k2\",\"body\":" + ACCOUNT_JSON + "}",
            "{\"op\":\"hold\",\"idempotencyKey\":\"k3\",\"body\":" + HOLD_JSON + "}",
            "{\"holdId\":\"" + HOLD_ID + "\",\"op\":\"capture\",\"idempotencyKey\":\"k4\",\"body\":" + CAPTURE_JSON + "}",
            "{\"op\":\"reversal\",\"transferId\":\"" + TRANSFER_ID + "\",\"idempotencyKey\":\"k5\"}",
            "{\"op\":\"void\",\"idempotencyKey\":\"k6\",\"holdId\":\"" + HOLD_ID + "\",\"body\":{}}");
        final Arbitrary<String> random = Combinators.combine(
            Arbitraries.of("transfer", "account", "hold", "capture", "reversal", "void", "refund"),
            Arbitraries.strings().withCharRange('!', '~').ofMinLength(0).ofMaxLength(6),
            Arbitraries.of(TRANSFER_ID, HOLD_ID, "x"),
            object(1),
            Arbitraries.integers().between(0, 15))
            .as((op, key, id, body, omit) -> "{" +
                ((omit & 1) == 0 ? "\"op\":\"" + op + "\"," : "") +
                ((omit & 2) == 0 ? "\"idempotencyKey\":\"" + key.replace("\\", "").replace("\"", "") + "\"," : "") +
                ((omit & 4) == 0 ? "\"holdId\":\"" + id + "\"," : "") +
                ((omit & 8) == 0 ? "\"transferId\":\"" + id + "\"," : "") +
                "\"body\":" + body + "}");
        final Arbitrary<String> operation = Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(4, valid), net.jqwik.api.Tuple.of(1, random));
        return Combinators.combine(operation.list().ofMaxSize(4), Arbitraries.of("true", "false", "true", "false", "1", "null"))
            .as((operations, atomic) -> "{\"atomic\":" + atomic + ",\"operations\":[" + String.join(",", operations) + "]}");
    }

    private static Arbitrary<String> object(final int depth)
    {
        final Arbitrary<String> member = Combinators.combine(Arbitraries.of(FIELD_NAMES), value(depth))
            .as((name, value) -> "\"" + name + "\":" + value);
        return member.list().ofMaxSize(7).map(members -> "{" + String.join(",", members) + "}");
    }

    private static Arbitrary<String> value(final int depth)
    {
        final Arbitrary<String> scalar = Arbitraries.oneOf(
            Arbitraries.of("0", "1", "2", "-1", "64", "65", "30000", "31622400000", "31622400001", "9223372036854775807",
                "9223372036854775808", "1.5", "10.50", "1e3", "-0", "0.001", "true", "false", "null"),
            Arbitraries.longs().map(String::valueOf),
            Arbitraries.of("\"TRY\"", "\"JPY\"", "\"KWD\"", "\"try\"", "\"XXX\"", "\"\"", "\"1000.00\"", "\"0.01\"", "\"5.0\"",
                "\"-5\"", "\"1e3\"", "\"inv-1\"", "\"" + TRANSFER_ID + "\"", "\"" + HOLD_ID + "\"", "\"transfer\"", "\"void\"",
                "\"a b\"", "\"\\u00e9\"", "\"" + "r".repeat(65) + "\""),
            Arbitraries.strings().ofMaxLength(12).map(s -> "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\""));
        if (depth <= 0)
        {
            return scalar;
        }
        return Arbitraries.oneOf(scalar, scalar, scalar, Arbitraries.lazy(() -> object(depth - 1)),
            Arbitraries.lazy(() -> value(depth - 1)).list().ofMaxSize(3).map(values -> "[" + String.join(",", values) + "]"));
    }
}
