package dev.tally.gateway.api;

import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.problem.ProblemType;
import dev.tally.gateway.api.routing.ResourceId;
import dev.tally.gateway.api.routing.Route;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import dev.tally.gateway.api.LedgerHarness.Reply;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.query.TransferView;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static dev.tally.gateway.api.Requests.TENANT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResponseRendererTest
{
    /** 2026-01-01T00:00:00Z. */
    private static final long START_NS = 1_767_225_600_000_000_000L;
    private static final String FUNDING = "{\"id\":1,\"currency\":\"TRY\",\"debitsMustNotExceedCredits\":false}";
    private static final String MERCHANT = "{\"id\":2,\"currency\":\"TRY\"}";
    private static final String TRANSFER = "{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1000.00\",\"currency\":\"TRY\",\"reference\":\"inv-45982\"}";

    private final LedgerHarness ledger = new LedgerHarness(TENANT, START_NS);
    private final ResponseRenderer renderer = new ResponseRenderer();

    @BeforeEach
    void createAccounts()
    {
        assertEquals(201, ledger.submit(Route.CREATE_ACCOUNT, "a1", null, FUNDING).status());
        assertEquals(201, ledger.submit(Route.CREATE_ACCOUNT, "a2", null, MERCHANT).status());
    }

    @Test
    void shouldRenderACreatedAccountFromItsPayload()
    {
        final Reply reply = ledger.submit(Route.CREATE_ACCOUNT, "a3", null, "{\"id\":3,\"currency\":\"JPY\",\"overdraftLimit\":\"500\"}");
        assertEquals(201, reply.status());
        assertEquals(RenderedResponse.JSON, reply.contentType());
        assertEquals("{\"id\":\"3\",\"currency\":\"JPY\",\"subBalances\":1,\"debitsMustNotExceedCredits\":true,\"overdraftLimit\":\"500\"," +
            "\"posted\":\"0\",\"held\":\"0\",\"available\":\"0\",\"subBalanceDetail\":[{\"index\":0,\"posted\":\"0\",\"held\":\"0\"," +
            "\"available\":\"0\"}],\"createdAt\":\"2026-01-01T00:00:00.000Z\"}", reply.body());
    }

    @Test
    void shouldRenderALowBalanceAlertAtCreationOnItsSetAndRemovalAndOnARead()
    {
        final Reply created = ledger.submit(Route.CREATE_ACCOUNT, "a3", null, "{\"id\":3,\"currency\":\"TRY\",\"lowBalanceAlert\":\"50\"}");
        assertEquals(201, created.status());
        assertTrue(created.body().contains("\"overdraftLimit\":\"0.00\",\"lowBalanceAlert\":{\"threshold\":\"50.00\",\"state\":\"waiting\"}," +
            "\"posted\":\"0.00\""), created.body());

        ledger.submit(Route.CREATE_TRANSFER, "t1", null, TRANSFER);
        final Reply set = ledger.submit(Route.SET_LOW_BALANCE_ALERT, "s1", "2", "{\"threshold\":\"250.5\"}");
        assertEquals(200, set.status());
        assertTrue(set.body().startsWith("{\"id\":\"2\",\"lowBalanceAlert\":{\"threshold\":\"250.50\",\"state\":\"armed\"},\"changedAt\":\""),
            set.body());
        assertValidJson(set.body());
        final AccountView view = ledger.ledger().readAccount(2, TENANT, new AccountView());
        final ByteBuf body = Unpooled.buffer();
        renderer.renderAccount(view, body);
        assertTrue(body.toString(StandardCharsets.UTF_8).contains("\"creditsFrozen\":false,\"lowBalanceAlert\":{\"threshold\":\"250.50\"," +
            "\"state\":\"armed\"},\"posted\""), body.toString(StandardCharsets.UTF_8));
        body.release();

        final Reply removed = ledger.submit(Route.REMOVE_LOW_BALANCE_ALERT, "r1", "2", "");
        assertEquals(200, removed.status());
        assertTrue(removed.body().startsWith("{\"id\":\"2\",\"lowBalanceAlert\":null,\"changedAt\":\""), removed.body());
        assertValidJson(removed.body());

        final Reply unknown = ledger.submit(Route.SET_LOW_BALANCE_ALERT, "s2", "9", "{\"threshold\":\"1\"}");
        assertEquals(404, unknown.status());
        assertTrue(unknown.body().contains("\"accountId\":\"9\""), unknown.body());
        final Reply mismatch = ledger.submit(Route.SET_LOW_BALANCE_ALERT, "s3", "2", "{\"threshold\":\"1\",\"currency\":\"USD\"}");
        assertEquals(422, mismatch.status());
        assertTrue(mismatch.body().contains("account 2 is in TRY") && mismatch.body().contains("\"accountId\":\"2\""), mismatch.body());
    }

    @Test
    void shouldRenderAHotAccountWithItsSubBalancesInTheSpecsOutShape()
    {
        final Reply reply = ledger.submit(Route.CREATE_ACCOUNT, "a4", null, "{\"id\":4,\"currency\":\"TRY\",\"subBalances\":3}");
        assertEquals(201, reply.status());
        final String detail = "{\"index\":%d,\"posted\":\"0.00\",\"held\":\"0.00\",\"available\":\"0.00\"}";
        assertTrue(reply.body().contains("\"posted\":\"0.00\",\"held\":\"0.00\",\"available\":\"0.00\",\"subBalanceDetail\":[" +
            String.format(detail, 0) + "," + String.format(detail, 1) + "," + String.format(detail, 2) + "]"), reply.body());
    }

    @Test
    void shouldRenderATransferWithItsUuidv7IdFromTheOrigin()
    {
        final Reply reply = ledger.submit(Route.CREATE_TRANSFER, "t1", null, TRANSFER);
        assertEquals(201, reply.status());
        assertFalse(reply.replayed());
        assertEquals("{\"id\":\"" + transferId(3) + "\",\"kind\":\"transfer\",\"debitAccountId\":\"1\",\"creditAccountId\":\"2\"," +
            "\"amount\":\"1000.00\",\"currency\":\"TRY\",\"reference\":\"inv-45982\",\"createdAt\":\"2026-01-01T00:00:00.000Z\"}", reply.body());
    }

    @Test
    void shouldRenderHoldCaptureVoidAndReversal()
    {
        ledger.submit(Route.CREATE_TRANSFER, "t1", null, TRANSFER);
        final Reply hold = ledger.submit(Route.CREATE_HOLD, "h1", null,
            "{\"accountId\":\"2\",\"amount\":\"50.00\",\"currency\":\"TRY\",\"expiresInMs\":30000}");
        final String holdId = holdId(4);
        assertEquals("{\"id\":\"" + holdId + "\",\"accountId\":\"2\",\"amount\":\"50.00\",\"currency\":\"TRY\"," +
            "\"expiresAt\":\"2026-01-01T00:00:30.000Z\",\"createdAt\":\"2026-01-01T00:00:00.000Z\"}", hold.body());

        final Reply capture = ledger.submit(Route.CAPTURE_HOLD, "c1", holdId, "{\"creditAccountId\":1,\"amount\":\"20.00\",\"currency\":\"TRY\"}");
        assertEquals(201, capture.status());
        assertEquals("{\"holdId\":\"" + holdId + "\",\"transferId\":\"" + transferId(5) + "\",\"kind\":\"capture\"," +
            "\"debitAccountId\":\"2\",\"creditAccountId\":\"1\",\"amount\":\"20.00\",\"currency\":\"TRY\",\"createdAt\":\"2026-01-01T00:00:00.000Z\"}",
            capture.body());

        ledger.submit(Route.CREATE_HOLD, "h2", null, "{\"accountId\":2,\"amount\":\"7.5\",\"currency\":\"TRY\",\"expiresInMs\":1000}");
        final Reply voided = ledger.submit(Route.VOID_HOLD, "v1", holdId(6), "");
        assertEquals("{\"holdId\":\"" + holdId(6) + "\",\"accountId\":\"2\",\"releasedAmount\":\"7.50\",\"currency\":\"TRY\"," +
            "\"voidedAt\":\"2026-01-01T00:00:00.000Z\"}", voided.body());

        final Reply reversal = ledger.submit(Route.REVERSE_TRANSFER, "r1", transferId(3), "{\"amount\":\"100\",\"currency\":\"TRY\"}");
        assertEquals("{\"id\":\"" + transferId(8) + "\",\"kind\":\"reversal\",\"reversedTransferId\":\"" + transferId(3) + "\"," +
            "\"debitAccountId\":\"2\",\"creditAccountId\":\"1\",\"amount\":\"100.00\",\"currency\":\"TRY\",\"createdAt\":\"2026-01-01T00:00:00.000Z\"}",
            reversal.body());
    }

    @Test
    void shouldEchoCanonicalMetadataAndReplayItByteForByteWhateverTheRetrysSpelling()
    {
        final String withMetadata = TRANSFER.replace("}", ",\"metadata\":{\"orderId\":\"A-17\",\"city\":\"\u0130zmir\"}}");
        final Reply reply = ledger.submit(Route.CREATE_TRANSFER, "t1", null, withMetadata);
        assertEquals(201, reply.status());
        assertEquals("{\"id\":\"" + transferId(3) + "\",\"kind\":\"transfer\",\"debitAccountId\":\"1\",\"creditAccountId\":\"2\"," +
            "\"amount\":\"1000.00\",\"currency\":\"TRY\",\"reference\":\"inv-45982\",\"metadata\":{\"city\":\"\u0130zmir\",\"orderId\":\"A-17\"}," +
            "\"createdAt\":\"2026-01-01T00:00:00.000Z\"}", reply.body());

        final Reply retry = ledger.submit(Route.CREATE_TRANSFER, "t1", null,
            TRANSFER.replace("}", ", \"metadata\" : { \"city\" : \"\\u0130zmir\", \"orderId\" : \"A-17\" } }"));
        assertTrue(retry.replayed());
        assertEquals(reply.body(), retry.body(), "members reordered and escaped otherwise: the same canonical metadata");

        final Reply other = ledger.submit(Route.CREATE_TRANSFER, "t1", null, TRANSFER.replace("}", ",\"metadata\":{\"orderId\":\"A-18\"}}"));
        assertEquals(422, other.status(), "other metadata under the same key is another payload");
    }

    @Test
    void shouldReplayEveryOutcomeByteForByteWithTheReplayedFlag()
    {
        final String[][] requests = {
            {"CREATE_TRANSFER", "t1", null, TRANSFER},
            {"CREATE_ACCOUNT", "a2-again", null, MERCHANT},
            {"CREATE_TRANSFER", "t2", null, TRANSFER.replace("inv-45982", "inv-2").replace("1000.00", "99999")},
            {"CREATE_TRANSFER", "t3", null, TRANSFER.replace("\"debitAccountId\":1,\"creditAccountId\":2", "\"debitAccountId\":2,\"creditAccountId\":1")
                .replace("1000.00", "9999999.00").replace("inv-45982", "inv-3")},
            {"CREATE_TRANSFER", "t4", null, TRANSFER},
            {"CREATE_HOLD", "h1", null, "{\"accountId\":2,\"amount\":\"50.00\",\"currency\":\"TRY\",\"expiresInMs\":60000}"},
            {"CAPTURE_HOLD", "c1", "HOLD", "{\"creditAccountId\":1,\"amount\":\"60.00\",\"currency\":\"TRY\"}"},
            {"CAPTURE_HOLD", "c2", "HOLD", "{\"creditAccountId\":1}"},
            {"VOID_HOLD", "v1", "HOLD", ""},
            {"REVERSE_TRANSFER", "r1", "TRANSFER", "{\"amount\":\"10.00\",\"currency\":\"TRY\"}"},
            {"REVERSE_TRANSFER", "r2", "TRANSFER", "{\"amount\":\"2000.00\",\"currency\":\"TRY\"}"},
            {"REVERSE_TRANSFER", "r3", "TRANSFER", ""},
        };
        String holdId = null;
        String transferId = null;
        final Set<Integer> statuses = new HashSet<>();
        for (final String[] request : requests)
        {
            final Route route = Route.valueOf(request[0]);
            final String pathId = request[2] == null ? null : request[2].equals("HOLD") ? holdId : transferId;
            final Reply first = ledger.submit(route, request[1], pathId, request[3]);
            ledger.advanceMs(5_000);
            final Reply replay = ledger.submit(route, request[1], pathId, request[3]);
            assertFalse(first.replayed(), request[1]);
            assertTrue(replay.replayed(), request[1]);
            assertEquals(first.status(), replay.status(), request[1]);
            assertEquals(first.contentType(), replay.contentType(), request[1]);
            assertEquals(first.body(), replay.body(), request[1]);
            assertValidJson(first.body());
            statuses.add(first.status());
            if (route == Route.CREATE_HOLD)
            {
                holdId = idIn(first.body());
            }
            if ("t1".equals(request[1]))
            {
                transferId = idIn(first.body());
            }
        }
        assertEquals(Set.of(201, 409, 422), statuses, "successes and both kinds of stored rejection were replayed");
    }

    @Test
    void shouldNameTheExistingTransferOnADuplicateReference()
    {
        ledger.submit(Route.CREATE_TRANSFER, "t1", null, TRANSFER);
        final Reply duplicate = ledger.submit(Route.CREATE_TRANSFER, "t2", null, TRANSFER);
        assertEquals(409, duplicate.status());
        assertEquals(Problem.CONTENT_TYPE, duplicate.contentType());
        assertEquals("{\"type\":\"https://tally.dev/problems/duplicate-reference\",\"title\":\"Duplicate reference\",\"status\":409," +
            "\"detail\":\"another transfer already uses this reference\",\"existingTransferId\":\"" + transferId(3) + "\"," +
            "\"reference\":\"inv-45982\"}", duplicate.body());
    }

    @Test
    void shouldAnswerKeyReusedForTheSameKeyWithAnotherPayloadWithoutReplaying()
    {
        ledger.submit(Route.CREATE_TRANSFER, "t1", null, TRANSFER);
        final Reply reused = ledger.submit(Route.CREATE_TRANSFER, "t1", null, TRANSFER.replace("1000.00", "1000.01"));
        assertEquals(422, reused.status());
        assertTrue(reused.body().contains("\"type\":\"https://tally.dev/problems/idempotency-key-reused\""), reused.body());
        assertFalse(reused.replayed());
    }

    @Test
    void shouldRenderInsufficientFundsWithTheAccountAndAmount()
    {
        final Reply reply = ledger.submit(Route.CREATE_TRANSFER, "t9", null,
            "{\"debitAccountId\":\"2\",\"creditAccountId\":\"1\",\"amount\":\"0.01\",\"currency\":\"TRY\"}");
        assertEquals(422, reply.status());
        assertEquals("{\"type\":\"https://tally.dev/problems/insufficient-funds\",\"title\":\"Insufficient funds\",\"status\":422," +
            "\"detail\":\"the account does not have enough available funds\",\"accountId\":\"2\",\"amount\":\"0.01\",\"currency\":\"TRY\"}",
            reply.body());
    }

    @Test
    void shouldNameTheAccountAHoldFoundMissingOrInAnotherCurrency()
    {
        final Reply missing = ledger.submit(Route.CREATE_HOLD, "h10", null,
            "{\"accountId\":\"9\",\"amount\":\"0.01\",\"currency\":\"TRY\",\"expiresInMs\":60000}");
        assertEquals("{\"type\":\"https://tally.dev/problems/account-not-found\",\"title\":\"Account not found\",\"status\":422," +
            "\"detail\":\"account 9 does not exist\",\"accountId\":\"9\"}", missing.body());
        final Reply mismatch = ledger.submit(Route.CREATE_HOLD, "h11", null,
            "{\"accountId\":\"1\",\"amount\":\"0.01\",\"currency\":\"USD\",\"expiresInMs\":60000}");
        assertEquals("{\"type\":\"https://tally.dev/problems/currency-mismatch\",\"title\":\"Currency mismatch\",\"status\":422," +
            "\"detail\":\"account 1 is not in USD, the currency of the hold asked for\",\"accountId\":\"1\"}", mismatch.body());
        assertEquals(mismatch.body(), ledger.submit(Route.CREATE_HOLD, "h11", null,
            "{\"accountId\":\"1\",\"amount\":\"0.01\",\"currency\":\"USD\",\"expiresInMs\":60000}").body(), "the same on a replay");
    }

    @Test
    void shouldNameACapturesCreditAccountButNotForTheCurrencyTheRequestGave()
    {
        final Reply hold = ledger.submit(Route.CREATE_HOLD, "h12", null, "{\"accountId\":1,\"amount\":\"5.00\",\"currency\":\"TRY\",\"expiresInMs\":60000}");
        assertEquals(201, hold.status(), hold.body());
        final String holdId = idIn(hold.body());
        final Reply missing = ledger.submit(Route.CAPTURE_HOLD, "c1", holdId, "{\"creditAccountId\":9}");
        assertEquals("{\"type\":\"https://tally.dev/problems/account-not-found\",\"title\":\"Account not found\",\"status\":422," +
            "\"detail\":\"account 9 does not exist\",\"accountId\":\"9\"}", missing.body());
        final Reply askedInUsd = ledger.submit(Route.CAPTURE_HOLD, "c2", holdId, "{\"creditAccountId\":2,\"amount\":\"1.00\",\"currency\":\"USD\"}");
        assertEquals("{\"type\":\"https://tally.dev/problems/currency-mismatch\",\"title\":\"Currency mismatch\",\"status\":422," +
            "\"detail\":\"the currency does not match the currency of the accounts or hold involved\"}", askedInUsd.body());
    }

    @Test
    void shouldNameTheAccountATransferFoundMissingOrInAnotherCurrency()
    {
        final Reply missing = ledger.submit(Route.CREATE_TRANSFER, "t10", null,
            "{\"debitAccountId\":\"1\",\"creditAccountId\":\"9\",\"amount\":\"0.01\",\"currency\":\"TRY\"}");
        assertEquals("{\"type\":\"https://tally.dev/problems/account-not-found\",\"title\":\"Account not found\",\"status\":422," +
            "\"detail\":\"account 9 does not exist\",\"accountId\":\"9\"}", missing.body());
        ledger.submit(Route.CREATE_ACCOUNT, "a5", null, "{\"id\":5,\"currency\":\"USD\"}");
        final Reply mismatch = ledger.submit(Route.CREATE_TRANSFER, "t11", null,
            "{\"debitAccountId\":1,\"creditAccountId\":5,\"amount\":\"0.01\",\"currency\":\"TRY\"}");
        assertEquals("{\"type\":\"https://tally.dev/problems/currency-mismatch\",\"title\":\"Currency mismatch\",\"status\":422," +
            "\"detail\":\"account 5 is not in TRY, the currency of the transfer\",\"accountId\":\"5\"}", mismatch.body());
    }

    @Test
    void shouldNameNoAccountOfATransferRejectedBeforeTheLedgerRecordedWhichFailed()
    {
        // journaled before Command.rejectionNamesAccount: the stored result's extra is 0, and its replay says what it said then
        final Command command = new Command();
        command.type = CommandType.TRANSFER;
        command.debitAccountId = 1;
        command.creditAccountId = 9;
        final Result result = new Result();
        result.code = ResultCode.ACCOUNT_NOT_FOUND;
        result.type = CommandType.TRANSFER;
        result.accountA = 1;
        result.accountB = 9;
        final ByteBuf body = Unpooled.buffer();
        assertEquals(422, renderer.render(command, result, body).status());
        assertEquals("{\"type\":\"https://tally.dev/problems/account-not-found\",\"title\":\"Account not found\",\"status\":422," +
            "\"detail\":\"an account named by the request does not exist\"}", body.toString(StandardCharsets.UTF_8));
        body.release();
    }

    @Test
    void shouldAnswerAnUnansweredColdIndexWith503RetryAfterAndWhatTheClientDoes()
    {
        final Command command = new Command();
        command.type = CommandType.REVERSE_TRANSFER;
        final Result result = new Result();
        result.code = ResultCode.COLD_INDEX_UNAVAILABLE;
        result.type = CommandType.REVERSE_TRANSFER;
        final ByteBuf body = Unpooled.buffer();
        final RenderedResponse response = renderer.render(command, result, body);
        assertEquals(503, response.status());
        assertEquals(1, response.retryAfterSeconds());
        assertEquals("{\"type\":\"https://tally.dev/problems/cold-index-unavailable\",\"title\":\"Cold index unavailable\",\"status\":503," +
            "\"detail\":\"the ledger could not consult its cold index (older keys, references and transfers) for this request; " +
            "nothing was applied: retry later with the same Idempotency-Key\"}", body.toString(StandardCharsets.UTF_8));
        body.release();
    }

    @Test
    void shouldMapEveryResultCodeToAStatusAndAStableProblemType()
    {
        final Map<ResultCode, Integer> expected = new EnumMap<>(ResultCode.class);
        expected.put(ResultCode.OK, 201);
        expected.put(ResultCode.ACCOUNT_EXISTS, 409);
        expected.put(ResultCode.ACCOUNT_NOT_FOUND, 422);
        expected.put(ResultCode.CURRENCY_MISMATCH, 422);
        expected.put(ResultCode.SAME_ACCOUNT, 422);
        expected.put(ResultCode.INSUFFICIENT_FUNDS, 422);
        expected.put(ResultCode.AMOUNT_OVERFLOW, 422);
        expected.put(ResultCode.DUPLICATE_REFERENCE, 409);
        expected.put(ResultCode.TRANSFER_NOT_FOUND, 404);
        expected.put(ResultCode.REVERSAL_EXCEEDS_REMAINING, 422);
        expected.put(ResultCode.HOLD_NOT_ACTIVE, 422);
        expected.put(ResultCode.CAPTURE_EXCEEDS_HOLD, 422);
        expected.put(ResultCode.LINKED_OPERATION_FAILED, 422);
        expected.put(ResultCode.INVALID_COMMAND, 400);
        expected.put(ResultCode.KEY_REUSED, 422);
        expected.put(ResultCode.CAPACITY_EXCEEDED, 503);
        expected.put(ResultCode.REFERENCE_CHECK_UNAVAILABLE, 503);
        expected.put(ResultCode.INVALID_AMOUNT, 400);
        expected.put(ResultCode.COLD_INDEX_UNAVAILABLE, 503);
        expected.put(ResultCode.ACCOUNT_FROZEN, 422);
        expected.put(ResultCode.ACCOUNT_CLOSED, 422);
        expected.put(ResultCode.ACCOUNT_NOT_EMPTY, 422);
        assertEquals(ResultCode.values().length, expected.size(), "every result code has an expected status");

        final Set<ProblemType> types = new HashSet<>();
        for (final ResultCode code : ResultCode.values())
        {
            assertEquals(expected.get(code), ResponseRenderer.statusOf(code), code.name());
            if (code == ResultCode.OK)
            {
                assertThrows(IllegalArgumentException.class, () -> ProblemType.of(code));
                continue;
            }
            final ProblemType type = ProblemType.of(code);
            assertTrue(types.add(type), "one type per code: " + code);
            for (final CommandType commandType : new CommandType[] {CommandType.TRANSFER, CommandType.CAPTURE_HOLD, CommandType.CREATE_ACCOUNT})
            {
                final Command command = new Command();
                command.type = commandType;
                final Result result = new Result();
                result.code = code;
                result.type = commandType;
                final ByteBuf body = Unpooled.buffer();
                final RenderedResponse response = renderer.render(command, result, body);
                final String json = body.toString(StandardCharsets.UTF_8);
                assertEquals(expected.get(code), response.status(), code.name());
                assertEquals(Problem.CONTENT_TYPE, response.contentType());
                assertEquals(code == ResultCode.CAPACITY_EXCEEDED || code == ResultCode.REFERENCE_CHECK_UNAVAILABLE ||
                    code == ResultCode.COLD_INDEX_UNAVAILABLE ? 1 : 0, response.retryAfterSeconds(), code.name());
                assertTrue(json.startsWith("{\"type\":\"" + type.uri() + "\",\"title\":\"" + type.title() + "\",\"status\":" + type.status()), json);
                assertValidJson(json);
            }
        }
        assertEquals("https://tally.dev/problems/idempotency-key-reused", ProblemType.of(ResultCode.KEY_REUSED).uri());
        assertEquals("https://tally.dev/problems/insufficient-funds", ProblemType.of(ResultCode.INSUFFICIENT_FUNDS).uri());
    }

    @Test
    void shouldGiveEveryProblemTypeADistinctSlug()
    {
        final Set<String> slugs = new HashSet<>();
        for (final ProblemType type : ProblemType.values())
        {
            assertTrue(slugs.add(type.slug()), type.slug());
            assertTrue(type.slug().matches("[a-z]+(-[a-z]+)*"), type.slug());
            assertEquals(ProblemType.URI_PREFIX + type.slug(), type.uri());
        }
    }

    @Test
    void shouldRenderABatchWithEachOperationsStatusAndBodyAndReplayIt()
    {
        final String json = "{\"atomic\":false,\"operations\":[" +
            "{\"op\":\"transfer\",\"idempotencyKey\":\"b1\",\"body\":" + TRANSFER + "}," +
            "{\"op\":\"transfer\",\"idempotencyKey\":\"b2\",\"body\":{\"debitAccountId\":2,\"creditAccountId\":1,\"amount\":\"1000.01\",\"currency\":\"TRY\"}}]}";
        final Reply first = ledger.submitBatch(json);
        assertEquals(200, first.status());
        assertFalse(first.replayed());
        assertEquals("{\"atomic\":false,\"results\":[" +
            "{\"index\":0,\"status\":201,\"body\":{\"id\":\"" + transferId(3) + "\",\"kind\":\"transfer\",\"debitAccountId\":\"1\",\"creditAccountId\":\"2\"," +
            "\"amount\":\"1000.00\",\"currency\":\"TRY\",\"reference\":\"inv-45982\",\"createdAt\":\"2026-01-01T00:00:00.000Z\"}}," +
            "{\"index\":1,\"status\":422,\"body\":{\"type\":\"https://tally.dev/problems/insufficient-funds\",\"title\":\"Insufficient funds\"," +
            "\"status\":422,\"detail\":\"the account does not have enough available funds\",\"accountId\":\"2\",\"amount\":\"1000.01\"," +
            "\"currency\":\"TRY\"}}]}", first.body());

        ledger.advanceMs(60_000);
        final Reply replay = ledger.submitBatch(json);
        assertEquals(200, replay.status());
        assertTrue(replay.replayed());
        assertEquals(first.body().replace("\"body\":", "\"replayed\":true,\"body\":"), replay.body());
    }

    @Test
    void shouldRenderAnAtomicBatchWhoseLinkedOperationsFailed()
    {
        final String json = "{\"atomic\":true,\"operations\":[" +
            "{\"op\":\"transfer\",\"idempotencyKey\":\"b1\",\"body\":" + TRANSFER + "}," +
            "{\"op\":\"transfer\",\"idempotencyKey\":\"b2\",\"body\":{\"debitAccountId\":2,\"creditAccountId\":1,\"amount\":\"1000.01\",\"currency\":\"TRY\"}}]}";
        final Reply reply = ledger.submitBatch(json);
        assertTrue(reply.body().startsWith("{\"atomic\":true,\"results\":[{\"index\":0,\"status\":422,\"body\":{\"type\":" +
            "\"https://tally.dev/problems/linked-operation-failed\""), reply.body());
        assertValidJson(reply.body());
    }

    @Test
    void shouldRenderAnAccountWithTotalsAndEverySubBalance()
    {
        ledger.submit(Route.CREATE_TRANSFER, "t1", null, TRANSFER);
        ledger.submit(Route.CREATE_HOLD, "h1", null, "{\"accountId\":2,\"amount\":\"0.50\",\"currency\":\"TRY\",\"expiresInMs\":60000}");
        final AccountView view = ledger.ledger().readAccount(2, TENANT, new AccountView());
        final ByteBuf body = Unpooled.buffer();
        final RenderedResponse response = renderer.renderAccount(view, body);
        assertEquals(200, response.status());
        assertEquals("{\"id\":\"2\",\"currency\":\"TRY\",\"subBalances\":1,\"debitsMustNotExceedCredits\":true,\"overdraftLimit\":\"0.00\"," +
            "\"status\":\"active\",\"creditsFrozen\":false,\"posted\":\"1000.00\",\"held\":\"0.50\",\"available\":\"999.50\",\"subBalanceDetail\":[{\"index\":0,\"posted\":\"1000.00\"," +
            "\"held\":\"0.50\",\"available\":\"999.50\"}],\"createdAt\":\"2026-01-01T00:00:00.000Z\"}", body.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldLeaveOutTheCreationTimeOfAnAccountTheLedgerDoesNotKnowItFor()
    {
        // an account restored from a snapshot written before the ledger kept creation times
        final AccountView view = ledger.ledger().readAccount(2, TENANT, new AccountView());
        view.createdNs = 0;
        final ByteBuf body = Unpooled.buffer();
        renderer.renderAccount(view, body);
        final String json = body.toString(StandardCharsets.UTF_8);
        assertTrue(json.endsWith("\"available\":\"0.00\"}]}"), json);
        assertFalse(json.contains("createdAt"), json);
    }

    @Test
    void shouldEchoAnAccountsMetadataAndRenderItsUpdateTheSameOnAReplay()
    {
        final Reply created = ledger.submit(Route.CREATE_ACCOUNT, "a5", null, "{\"id\":5,\"currency\":\"TRY\",\"metadata\":{\"team\":\"ops\"}}");
        assertTrue(created.body().contains("}],\"metadata\":{\"team\":\"ops\"},\"createdAt\":"), created.body());

        final Reply updated = ledger.submit(Route.UPDATE_ACCOUNT_METADATA, "m5", "5", "{\"metadata\":{\"b\":\"2\",\"a\":\"1\"}}");
        assertEquals(200, updated.status());
        assertTrue(updated.body().startsWith("{\"id\":\"5\",\"metadata\":{\"a\":\"1\",\"b\":\"2\"},\"updatedAt\":\"2026-"), updated.body());
        final Reply replayed = ledger.submit(Route.UPDATE_ACCOUNT_METADATA, "m5", "5", "{\"metadata\":{\"a\":\"1\",\"b\":\"2\"}}");
        assertTrue(replayed.replayed());
        assertEquals(updated.body(), replayed.body(), "the retry's own canonical metadata: the same bytes");
        final Reply removed = ledger.submit(Route.UPDATE_ACCOUNT_METADATA, "m5-none", "5", "{\"metadata\":{}}");
        assertTrue(removed.body().startsWith("{\"id\":\"5\",\"metadata\":{},\"updatedAt\":"), removed.body());

        final Reply unknown = ledger.submit(Route.UPDATE_ACCOUNT_METADATA, "m9", "9", "{\"metadata\":{}}");
        assertEquals(404, unknown.status(), "the account the path names is the resource, as for its lifecycle: " + unknown.body());
        assertTrue(unknown.body().contains("/problems/not-found\"") && unknown.body().contains("\"accountId\":\"9\""), unknown.body());
        assertValidJson(updated.body());
    }

    @Test
    void shouldRenderAnAccountWithTheMetadataTheReadModelGives()
    {
        final AccountView view = ledger.ledger().readAccount(2, TENANT, new AccountView());
        final ByteBuf body = Unpooled.buffer();
        renderer.renderAccount(view, "{\"team\":\"ops\"}".getBytes(StandardCharsets.UTF_8), body);
        final String json = body.toString(StandardCharsets.UTF_8);
        assertTrue(json.contains("\"creditsFrozen\":false,\"metadata\":{\"team\":\"ops\"},\"posted\":\"0.00\""), json);
        assertValidJson(json);
    }

    @Test
    void shouldRenderEachSubBalanceOfAHotAccount()
    {
        ledger.submit(Route.CREATE_ACCOUNT, "a3", null, "{\"id\":3,\"currency\":\"TRY\",\"subBalances\":4}");
        for (int i = 0; i < 20; i++)
        {
            ledger.submit(Route.CREATE_TRANSFER, "hot" + i, null, "{\"debitAccountId\":1,\"creditAccountId\":3,\"amount\":\"1.00\",\"currency\":\"TRY\"}");
        }
        final AccountView view = ledger.ledger().readAccount(3, TENANT, new AccountView());
        final ByteBuf body = Unpooled.buffer();
        renderer.renderAccount(view, body);
        final String json = body.toString(StandardCharsets.UTF_8);
        assertTrue(json.contains("\"posted\":\"20.00\",\"held\":\"0.00\",\"available\":\"20.00\""), json);
        for (int i = 0; i < 4; i++)
        {
            assertTrue(json.contains("{\"index\":" + i + ",\"posted\":\""), json);
        }
        assertValidJson(json);
    }

    @Test
    void shouldAnswerNotFoundForAMissingAccountOrTransfer()
    {
        final ByteBuf body = Unpooled.buffer();
        final AccountView account = ledger.ledger().readAccount(99, TENANT, new AccountView());
        assertEquals(404, renderer.renderAccount(account, body).status());
        assertTrue(body.toString(StandardCharsets.UTF_8).contains("/problems/not-found"));
        final TransferView transfer = ledger.ledger().readTransfer(1, 1, TENANT, new TransferView());
        assertEquals(404, renderer.renderTransfer(transfer, Unpooled.buffer()).status());
    }

    @Test
    void shouldRenderAStoredTransferWithItsReferenceAndReversedAmount()
    {
        ledger.submit(Route.CREATE_TRANSFER, "t1", null, TRANSFER);
        ledger.submit(Route.REVERSE_TRANSFER, "r1", transferId(3), "{\"amount\":\"1.5\",\"currency\":\"TRY\"}");
        final ResourceId id = new ResourceId();
        assertTrue(id.parse(transferId(3), Uuid7.KIND_TRANSFER));
        final TransferView view = ledger.ledger().readTransfer(id.hi(), id.lo(), TENANT, new TransferView());
        final ByteBuf body = Unpooled.buffer();
        assertEquals(200, renderer.renderTransfer(view, body).status());
        assertEquals("{\"id\":\"" + transferId(3) + "\",\"kind\":\"transfer\",\"debitAccountId\":\"1\",\"creditAccountId\":\"2\",\"amount\":\"1000.00\"," +
            "\"currency\":\"TRY\",\"reversedAmount\":\"1.50\",\"reference\":\"inv-45982\",\"createdAt\":\"2026-01-01T00:00:00.000Z\"}",
            body.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldRenderAProblemAsEscapedAsciiJson()
    {
        final Problem problem = new Problem(ProblemType.INVALID_REQUEST, "bad \"x\"\n\u00e9\u0000").with("field", "a\\b").with("operationIndex", 3);
        final String json = new String(problem.toJson(), StandardCharsets.US_ASCII);
        assertEquals("{\"type\":\"https://tally.dev/problems/invalid-request\",\"title\":\"Invalid request\",\"status\":400," +
            "\"detail\":\"bad \\\"x\\\"\\u000a\\u00e9\\u0000\",\"field\":\"a\\\\b\",\"operationIndex\":3}", json);
        assertValidJson(json);
        final ByteBuf body = Unpooled.buffer();
        final RenderedResponse response = renderer.renderProblem(problem, body);
        assertEquals(400, response.status());
        assertEquals(Problem.CONTENT_TYPE, response.contentType());
        assertEquals(json, body.toString(StandardCharsets.US_ASCII));
    }

    @Test
    void shouldCutLongDetailsThatMayEchoClientInput()
    {
        final Problem problem = new Problem(ProblemType.INVALID_REQUEST, "x".repeat(10_000)).with("field", "y".repeat(10_000));
        assertEquals(Problem.TEXT_LENGTH_MAX, problem.detail().length());
        assertEquals(Problem.TEXT_LENGTH_MAX, ((String)problem.member("field")).length());
    }

    private static String transferId(final long journalIndex)
    {
        return Uuid7.toString(Uuid7.hi(START_NS, Uuid7.KIND_TRANSFER), Uuid7.lo(journalIndex, 0));
    }

    private static String holdId(final long journalIndex)
    {
        return Uuid7.toString(Uuid7.hi(START_NS, Uuid7.KIND_HOLD), Uuid7.lo(journalIndex, 0));
    }

    private static String idIn(final String json)
    {
        final int start = json.indexOf("\"id\":\"") + 6;
        return json.substring(start, start + ResourceId.UUID_LENGTH);
    }

    private static void assertValidJson(final String json)
    {
        try (JsonParser parser = new JsonFactory().createParser(json))
        {
            while (parser.nextToken() != null)
            {
                // walking every token is the validation
            }
        }
        catch (final IOException e)
        {
            throw new AssertionError("invalid JSON: " + json, e);
        }
    }
}
