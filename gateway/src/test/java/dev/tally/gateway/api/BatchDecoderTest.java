package dev.tally.gateway.api;

import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.problem.ProblemType;
import dev.tally.gateway.api.routing.Route;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.id.Uuid7;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.tally.gateway.api.Requests.ACCOUNT_JSON;
import static dev.tally.gateway.api.Requests.CAPTURE_JSON;
import static dev.tally.gateway.api.Requests.HOLD_ID;
import static dev.tally.gateway.api.Requests.HOLD_JSON;
import static dev.tally.gateway.api.Requests.REVERSAL_JSON;
import static dev.tally.gateway.api.Requests.TENANT;
import static dev.tally.gateway.api.Requests.TRANSFER_ID;
import static dev.tally.gateway.api.Requests.TRANSFER_JSON;
import static dev.tally.gateway.api.Requests.body;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BatchDecoderTest
{
    private static final String TRANSFER_OP =
        "{\"op\":\"transfer\",\"idempotencyKey\":\"k%d\",\"body\":{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"}}";

    private final RequestDecoder decoder = new RequestDecoder();
    private final Command[] commands = Requests.commands();

    @Test
    void shouldDecodeEveryOperationKindWithItsPositionAndTheAtomicFlag()
    {
        final String json = "{\"atomic\":true,\"operations\":[" +
            "{\"op\":\"account\",\"idempotencyKey\":\"k0\",\"body\":" + ACCOUNT_JSON + "}," +
            "{\"op\":\"transfer\",\"idempotencyKey\":\"k1\",\"body\":" + TRANSFER_JSON + "}," +
            "{\"op\":\"reversal\",\"idempotencyKey\":\"k2\",\"transferId\":\"" + TRANSFER_ID + "\",\"body\":" + REVERSAL_JSON + "}," +
            "{\"op\":\"hold\",\"idempotencyKey\":\"k3\",\"body\":" + HOLD_JSON + "}," +
            "{\"op\":\"capture\",\"idempotencyKey\":\"k4\",\"holdId\":\"" + HOLD_ID + "\",\"body\":" + CAPTURE_JSON + "}," +
            "{\"op\":\"void\",\"idempotencyKey\":\"k5\",\"holdId\":\"" + HOLD_ID + "\"}," +
            "{\"op\":\"reversal\",\"idempotencyKey\":\"k6\",\"transferId\":\"" + TRANSFER_ID + "\"}" +
            "]}";
        assertNull(decoder.decodeBatch(TENANT, body(json), commands));
        assertEquals(7, decoder.batchSize());
        final CommandType[] expected = {CommandType.CREATE_ACCOUNT, CommandType.TRANSFER, CommandType.REVERSE_TRANSFER,
            CommandType.CREATE_HOLD, CommandType.CAPTURE_HOLD, CommandType.VOID_HOLD, CommandType.REVERSE_TRANSFER};
        for (int i = 0; i < 7; i++)
        {
            final Command c = commands[i];
            assertEquals(expected[i], c.type);
            assertEquals(7, c.batchSize);
            assertEquals(i, c.batchPosition);
            assertTrue(c.atomic);
            assertNull(Requests.violation(c, TENANT), () -> "operation " + c.batchPosition);
        }
        assertEquals(42, commands[0].accountId);
        assertEquals(100_000, commands[1].amountMinor);
        assertEquals(TRANSFER_ID, Uuid7.toString(commands[2].targetIdHi, commands[2].targetIdLo));
        assertEquals(500, commands[2].amountMinor);
        assertEquals(HOLD_ID, Uuid7.toString(commands[4].targetIdHi, commands[4].targetIdLo));
        assertEquals(0, commands[6].amountMinor);
    }

    @Test
    void shouldGiveABatchOperationTheSameKeyDigestAndFingerprintAsTheSingleRequest()
    {
        final Command single = new Command();
        assertNull(decoder.decode(Route.CREATE_TRANSFER, TENANT, "k1", null, body(TRANSFER_JSON), single));
        final String json = "{\"operations\":[{\"body\":" + TRANSFER_JSON + ",\"idempotencyKey\":\"k1\",\"op\":\"transfer\"}]}";
        assertNull(decoder.decodeBatch(TENANT, body(json), commands));
        assertEquals(single.keyHi, commands[0].keyHi);
        assertEquals(single.keyLo, commands[0].keyLo);
        assertEquals(single.fingerprintHi, commands[0].fingerprintHi);
        assertEquals(single.fingerprintLo, commands[0].fingerprintLo);
        assertEquals(single.referenceHi, commands[0].referenceHi);
        assertEquals(1, commands[0].batchSize);
        assertEquals(false, commands[0].atomic);
    }

    @Test
    void shouldCarryNothingOverFromTheBatchTheHoldersHeldBefore()
    {
        // The decoder resets each holder when it fills it (not up front): decode every kind of operation into
        // holders that held every other kind, and compare with holders that held nothing.
        final String[] ops = {
            "{\"op\":\"account\",\"idempotencyKey\":\"k0\",\"body\":" + ACCOUNT_JSON + "}",
            "{\"op\":\"transfer\",\"idempotencyKey\":\"k1\",\"body\":" + TRANSFER_JSON + "}",
            "{\"op\":\"reversal\",\"idempotencyKey\":\"k2\",\"transferId\":\"" + TRANSFER_ID + "\",\"body\":" + REVERSAL_JSON + "}",
            "{\"op\":\"hold\",\"idempotencyKey\":\"k3\",\"body\":" + HOLD_JSON + "}",
            "{\"op\":\"capture\",\"idempotencyKey\":\"k4\",\"holdId\":\"" + HOLD_ID + "\",\"body\":" + CAPTURE_JSON + "}",
            "{\"op\":\"void\",\"idempotencyKey\":\"k5\",\"holdId\":\"" + HOLD_ID + "\"}"};
        for (int shift = 0; shift < ops.length; shift++)
        {
            final StringBuilder json = new StringBuilder("{\"atomic\":").append(shift % 2 == 0).append(",\"operations\":[");
            for (int i = 0; i < ops.length; i++)
            {
                json.append(i == 0 ? "" : ",").append(ops[(i + shift) % ops.length]);
            }
            final String batch = json.append("]}").toString();
            assertNull(decoder.decodeBatch(TENANT, body(batch), commands));
            final Command[] fresh = Requests.commands();
            assertNull(new RequestDecoder().decodeBatch(TENANT, body(batch), fresh));
            for (int i = 0; i < ops.length; i++)
            {
                assertArrayEquals(Requests.encoded(fresh[i]), Requests.encoded(commands[i]), "shift " + shift + ", operation " + i);
            }
        }
    }

    @Test
    void shouldAcceptTheAtomicFlagAfterTheOperations()
    {
        assertNull(decoder.decodeBatch(TENANT, body("{\"operations\":[" + String.format(TRANSFER_OP, 0) + "],\"atomic\":true}"), commands));
        assertTrue(commands[0].atomic);
    }

    @Test
    void shouldAcceptTheLargestBatch()
    {
        assertNull(decoder.decodeBatch(TENANT, body(batchOf(LedgerLimits.BATCH_OPERATIONS_MAX)), commands));
        assertEquals(LedgerLimits.BATCH_OPERATIONS_MAX, decoder.batchSize());
        final Command last = commands[LedgerLimits.BATCH_OPERATIONS_MAX - 1];
        assertEquals(LedgerLimits.BATCH_OPERATIONS_MAX - 1, last.batchPosition);
        assertTrue(last.isLastOfBatch());
        assertTrue(commands[0].keyHi != last.keyHi, "each operation has its own key");
    }

    @Test
    void shouldRejectABatchOfOneOperationTooMany()
    {
        final Problem problem = decoder.decodeBatch(TENANT, body(batchOf(LedgerLimits.BATCH_OPERATIONS_MAX + 1)), commands);
        assertEquals(ProblemType.BATCH_TOO_LARGE, problem.type());
        assertEquals(400, problem.status());
        assertEquals(0, decoder.batchSize());
        assertCleared(LedgerLimits.BATCH_OPERATIONS_MAX);
    }

    @Test
    void shouldRejectTheWholeBatchNamingTheOperationWithoutAKey()
    {
        final String json = "{\"operations\":[" + String.format(TRANSFER_OP, 0) + "," + String.format(TRANSFER_OP, 1) +
            ",{\"op\":\"transfer\",\"body\":" + TRANSFER_JSON + "}]}";
        final Problem problem = decoder.decodeBatch(TENANT, body(json), commands);
        assertEquals(ProblemType.IDEMPOTENCY_KEY_MISSING, problem.type());
        assertEquals(400, problem.status());
        assertEquals(2L, problem.member("operationIndex"));
        assertEquals("operations[2].idempotencyKey", problem.member("field"));
        assertTrue(problem.detail().startsWith("operations[2]"), problem.detail());
        assertCleared(3);
    }

    @ParameterizedTest(name = "[{0}] -> {1} {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', nullValues = "NULL", value = {
        "``|MALFORMED_JSON|NULL|NULL",
        "[]|MALFORMED_JSON|NULL|NULL",
        "{}|INVALID_REQUEST|NULL|operations",
        "{\"operations\":[]}|INVALID_REQUEST|NULL|operations",
        "{\"operations\":{}}|INVALID_REQUEST|NULL|operations",
        "{\"operations\":null}|INVALID_REQUEST|NULL|operations",
        "{\"operations\":[1]}|INVALID_REQUEST|0|NULL",
        "{\"operations\":[{\"op\":\"void\",\"idempotencyKey\":\"k\",\"holdId\":\"" + HOLD_ID_TEXT + "\"}],\"operations\":[]}|INVALID_REQUEST|NULL|operations",
        "{\"atomic\":1,\"operations\":[]}|INVALID_REQUEST|NULL|atomic",
        "{\"atomic\":true,\"atomic\":true}|INVALID_REQUEST|NULL|atomic",
        "{\"mode\":\"atomic\"}|INVALID_REQUEST|NULL|mode",
        "{\"operations\":[{\"idempotencyKey\":\"k\",\"body\":{}}]}|INVALID_REQUEST|0|operations[0].op",
        "{\"operations\":[{\"op\":\"refund\",\"idempotencyKey\":\"k\"}]}|INVALID_REQUEST|0|operations[0].op",
        "{\"operations\":[{\"op\":\"Transfer\",\"idempotencyKey\":\"k\"}]}|INVALID_REQUEST|0|operations[0].op",
        "{\"operations\":[{\"op\":\"void\",\"op\":\"void\",\"idempotencyKey\":\"k\"}]}|INVALID_REQUEST|0|operations[0].op",
        "{\"operations\":[{\"op\":\"void\",\"idempotencyKey\":\"k\",\"holdId\":\"x\"}]}|INVALID_REQUEST|0|operations[0].holdId",
        "{\"operations\":[{\"op\":\"void\",\"idempotencyKey\":\"k\"}]}|INVALID_REQUEST|0|operations[0].holdId",
        "{\"operations\":[{\"op\":\"void\",\"idempotencyKey\":\"k\",\"transferId\":\"" + TRANSFER_ID_TEXT + "\",\"holdId\":\"" + HOLD_ID_TEXT + "\"}]}|INVALID_REQUEST|0|operations[0].transferId",
        "{\"operations\":[{\"op\":\"reversal\",\"idempotencyKey\":\"k\",\"transferId\":\"" + HOLD_ID_TEXT + "\"}]}|INVALID_REQUEST|0|operations[0].transferId",
        "{\"operations\":[{\"op\":\"transfer\",\"idempotencyKey\":\"k\"}]}|INVALID_REQUEST|0|operations[0].body",
        "{\"operations\":[{\"op\":\"transfer\",\"idempotencyKey\":\"k\",\"body\":[]}]}|INVALID_REQUEST|0|operations[0].body",
        "{\"operations\":[{\"op\":\"transfer\",\"idempotencyKey\":\"k\",\"body\":{},\"extra\":1}]}|INVALID_REQUEST|0|operations[0].extra",
        "{\"operations\":[{\"op\":\"transfer\",\"idempotencyKey\":\"k\",\"bodY\":{}}]}|INVALID_REQUEST|0|operations[0].bodY",
        "{\"operations\":[{\"op\":\"transfer\",\"idempotencyKeY\":\"k\",\"body\":{}}]}|INVALID_REQUEST|0|operations[0].idempotencyKeY",
        "{\"operations\":[{\"oP\":\"void\",\"idempotencyKey\":\"k\",\"holdId\":\"" + HOLD_ID_TEXT + "\"}]}|INVALID_REQUEST|0|operations[0].oP",
        "{\"operations\":[{\"op\":\"transfer\",\"idempotencyKey\":\"\",\"body\":{}}]}|IDEMPOTENCY_KEY_INVALID|0|operations[0].idempotencyKey",
        "{\"operations\":[{\"op\":\"transfer\",\"idempotencyKey\":\"a b\",\"body\":{}}]}|IDEMPOTENCY_KEY_INVALID|0|operations[0].idempotencyKey",
        "{\"operations\":[{\"op\":\"transfer\",\"idempotencyKey\":7,\"body\":{}}]}|IDEMPOTENCY_KEY_INVALID|0|operations[0].idempotencyKey",
        "{\"operations\":[{\"op\":\"transfer\",\"idempotencyKey\":\"k\",\"body\":{\"amount\":\"1\"}}]}|INVALID_REQUEST|0|operations[0].body.debitAccountId",
        "{\"operations\":[{\"op\":\"hold\",\"idempotencyKey\":\"k\",\"body\":" + TRANSFER_JSON_TEXT + "}]}|INVALID_REQUEST|0|operations[0].body.debitAccountId",
        "{\"operations\":[{\"body\":{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1.001\",\"currency\":\"TRY\"},\"op\":\"transfer\",\"idempotencyKey\":\"k\"}]}|INVALID_AMOUNT|0|operations[0].body.amount",
        "{\"operations\":[{\"op\":\"capture\",\"idempotencyKey\":\"k\",\"holdId\":\"" + HOLD_ID_TEXT + "\",\"body\":{\"creditAccountId\":2,\"amount\":\"1.0001\"}}]}|INVALID_AMOUNT|0|operations[0].body.amount",
    })
    void shouldAnswerEachInvalidBatchWithItsProblemTypeOperationAndField(
        final String json, final ProblemType expectedType, final Long expectedIndex, final String expectedField)
    {
        final Problem problem = decoder.decodeBatch(TENANT, body(json), commands);
        assertEquals(expectedType, problem == null ? null : problem.type(), () -> "problem " + problem);
        assertEquals(400, problem.status());
        assertEquals(expectedIndex, problem.member("operationIndex"), problem::toString);
        assertEquals(expectedField, problem.member("field"), problem::toString);
        assertCleared(2);
    }

    private static final String TRANSFER_ID_TEXT = "0190a5b2-1c3d-7000-8000-000000004000";
    private static final String HOLD_ID_TEXT = "0190a5b2-1c3d-7100-8000-000000004000";
    private static final String TRANSFER_JSON_TEXT =
        "{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1000.00\",\"currency\":\"TRY\"}";

    @Test
    void shouldNameTheFailingOperationDeepInsideALargeBatch()
    {
        final StringBuilder json = new StringBuilder("{\"operations\":[");
        for (int i = 0; i < 100; i++)
        {
            json.append(i == 0 ? "" : ",").append(i == 73 ? String.format(TRANSFER_OP, i).replace("\"1\"", "\"0\"") : String.format(TRANSFER_OP, i));
        }
        final Problem problem = decoder.decodeBatch(TENANT, body(json.append("]}").toString()), commands);
        assertEquals(ProblemType.INVALID_AMOUNT, problem.type());
        assertEquals(73L, problem.member("operationIndex"));
        assertCleared(74);
    }

    @Test
    void shouldRefuseACommandArrayTooSmallForTheLargestBatch()
    {
        assertThrows(IllegalArgumentException.class, () -> decoder.decodeBatch(TENANT, body("{}"), new Command[10]));
    }

    private static String batchOf(final int operations)
    {
        final StringBuilder json = new StringBuilder(operations * 140).append("{\"atomic\":false,\"operations\":[");
        for (int i = 0; i < operations; i++)
        {
            json.append(i == 0 ? "" : ",").append(String.format(TRANSFER_OP, i));
        }
        return json.append("]}").toString();
    }

    private void assertCleared(final int count)
    {
        for (int i = 0; i < count; i++)
        {
            assertTrue(Requests.isCleared(commands[i]), "command " + i + " cleared");
        }
    }
}
