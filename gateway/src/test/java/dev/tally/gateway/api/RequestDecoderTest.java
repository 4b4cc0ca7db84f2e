package dev.tally.gateway.api;

import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.problem.ProblemType;
import dev.tally.gateway.api.routing.Route;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.id.Uuid7;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static dev.tally.gateway.api.Requests.ACCOUNT_JSON;
import static dev.tally.gateway.api.Requests.CAPTURE_JSON;
import static dev.tally.gateway.api.Requests.HOLD_ID;
import static dev.tally.gateway.api.Requests.HOLD_JSON;
import static dev.tally.gateway.api.Requests.JPY;
import static dev.tally.gateway.api.Requests.REVERSAL_JSON;
import static dev.tally.gateway.api.Requests.TENANT;
import static dev.tally.gateway.api.Requests.TRANSFER_ID;
import static dev.tally.gateway.api.Requests.TRANSFER_JSON;
import static dev.tally.gateway.api.Requests.TRY;
import static dev.tally.gateway.api.Requests.ascii;
import static dev.tally.gateway.api.Requests.body;
import static dev.tally.gateway.api.Requests.longBytes;
import static dev.tally.gateway.api.Requests.sha256x128;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RequestDecoderTest
{
    private final RequestDecoder decoder = new RequestDecoder();
    private final Command command = new Command();

    // ---------------------------------------------------------------------------------------------
    // Valid requests fill the command.
    // ---------------------------------------------------------------------------------------------

    @Test
    void shouldFillATransferWithMinorUnitsPackedCurrencyReferenceAndDigests()
    {
        assertNull(decode(Route.CREATE_TRANSFER, "key-1", null, TRANSFER_JSON));
        assertEquals(CommandType.TRANSFER, command.type);
        assertEquals(TENANT, command.tenantId);
        assertEquals(1, command.debitAccountId);
        assertEquals(2, command.creditAccountId);
        assertEquals(100_000, command.amountMinor);
        assertEquals(TRY, command.currency);
        assertEquals("inv-45982", new String(command.reference, 0, command.referenceLength, StandardCharsets.US_ASCII));
        assertEquals(1, command.batchSize);
        assertEquals(0, command.batchPosition);
        assertFalse(command.atomic);
        assertEquals(0, command.journalIndex, "stamped by the journaler, not the gateway");
        assertEquals(0, command.timestampNs);

        final long[] key = sha256x128(longBytes(TENANT), ascii("key-1"));
        assertEquals(key[0], command.keyHi);
        assertEquals(key[1], command.keyLo);
        final long[] reference = sha256x128(ascii("ref"), longBytes(TENANT), ascii("inv-45982"));
        assertEquals(reference[0], command.referenceHi);
        assertEquals(reference[1], command.referenceLo);
        assertTrue(command.hasReference());
        assertNotEquals(0, command.fingerprintHi | command.fingerprintLo);
    }

    @Test
    void shouldComputeTheDocumentedFingerprintOfATransfer()
    {
        assertNull(decode(Route.CREATE_TRANSFER, "key-1", null, TRANSFER_JSON));
        final byte[] canonical = java.nio.ByteBuffer.allocate(32 + 9)
            .putLong(1).putLong(2).putLong(100_000).putInt(TRY).putInt(9).put(ascii("inv-45982")).array();
        final long[] expected = sha256x128(ascii("transfer"), new byte[] {0}, canonical);
        assertEquals(expected[0], command.fingerprintHi);
        assertEquals(expected[1], command.fingerprintLo);
    }

    @Test
    void shouldKeepTheFingerprintOfAnAccountWithoutAThresholdAndAddTheThresholdWhenThereIsOne()
    {
        assertNull(decode(Route.CREATE_ACCOUNT, "k", null, "{\"id\":42,\"currency\":\"TRY\"}"));
        assertEquals(0, command.amountMinor);
        final byte[] canonical = java.nio.ByteBuffer.allocate(25).putLong(42).putInt(TRY).putInt(1).put((byte)1).putLong(0).array();
        final long[] before = sha256x128(ascii("account"), new byte[] {0}, canonical);
        assertEquals(before[0], command.fingerprintHi, "the fingerprint it had before thresholds existed");
        assertEquals(before[1], command.fingerprintLo);

        assertNull(decode(Route.CREATE_ACCOUNT, "k", null, "{\"id\":42,\"currency\":\"TRY\",\"lowBalanceAlert\":\"50.5\"}"));
        assertEquals(5_050, command.amountMinor, "the threshold travels in amountMinor, in the account's minor units");
        final long[] with = sha256x128(ascii("account"), new byte[] {0}, canonical, longBytes(5_050));
        assertEquals(with[0], command.fingerprintHi);
        assertEquals(with[1], command.fingerprintLo);
    }

    @Test
    void shouldFillALowBalanceAlertFromThePathWithOrWithoutACurrency()
    {
        assertNull(decode(Route.SET_LOW_BALANCE_ALERT, "k", "42", "{\"threshold\":\"7.25\",\"currency\":\"TRY\"}"));
        assertEquals(CommandType.SET_LOW_BALANCE_ALERT, command.type);
        assertEquals(42, command.accountId);
        assertEquals(725, command.amountMinor);
        assertEquals(TRY, command.currency);
        final long[] withCurrency = new long[] {command.fingerprintHi, command.fingerprintLo};

        assertNull(decode(Route.SET_LOW_BALANCE_ALERT, "k", "42", "{\"threshold\":\"7.25\"}"));
        assertEquals(7_250, command.amountMinor, "thousandths, for the ledger to convert");
        assertEquals(0, command.currency);
        assertFalse(Arrays.equals(withCurrency, new long[] {command.fingerprintHi, command.fingerprintLo}));

        assertNull(decode(Route.REMOVE_LOW_BALANCE_ALERT, "k", "42", ""));
        assertEquals(CommandType.SET_LOW_BALANCE_ALERT, command.type, "a removal is the same command with no threshold");
        assertEquals(42, command.accountId);
        assertEquals(0, command.amountMinor);
        assertArrayEquals(fingerprint(Route.REMOVE_LOW_BALANCE_ALERT, "42", ""), fingerprint(Route.REMOVE_LOW_BALANCE_ALERT, "42", "{}"));
        assertDifferent(fingerprint(Route.REMOVE_LOW_BALANCE_ALERT, "42", ""), Route.REMOVE_LOW_BALANCE_ALERT, "43", "");
    }

    @Test
    void shouldLeaveTheReferenceDigestZeroWhenThereIsNoReference()
    {
        assertNull(decode(Route.CREATE_TRANSFER, "k", null, "{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":5,\"currency\":\"JPY\"}"));
        assertFalse(command.hasReference());
        assertEquals(0, command.referenceLength);
        assertEquals(5, command.amountMinor);
        assertEquals(JPY, command.currency);
    }

    @Test
    void shouldFillAnAccountWithDefaults()
    {
        assertNull(decode(Route.CREATE_ACCOUNT, "k", null, "{\"id\":42,\"currency\":\"TRY\"}"));
        assertEquals(CommandType.CREATE_ACCOUNT, command.type);
        assertEquals(42, command.accountId);
        assertEquals(TRY, command.currency);
        assertEquals(1, command.subBalances);
        assertTrue(command.debitsMustNotExceedCredits);
        assertEquals(0, command.overdraftLimitMinor);
    }

    @Test
    void shouldFillAHotUnconstrainedAccountAndAnOverdraft()
    {
        assertNull(decode(Route.CREATE_ACCOUNT, "k", null,
            "{\"id\":9223372036854775807,\"currency\":\"KWD\",\"subBalances\":64,\"debitsMustNotExceedCredits\":false}"));
        assertEquals(Long.MAX_VALUE, command.accountId);
        assertEquals(64, command.subBalances);
        assertFalse(command.debitsMustNotExceedCredits);

        assertNull(decode(Route.CREATE_ACCOUNT, "k", null, "{\"id\":1,\"currency\":\"TRY\",\"overdraftLimit\":\"250.5\"}"));
        assertEquals(25_050, command.overdraftLimitMinor);
    }

    @Test
    void shouldFillAHold()
    {
        assertNull(decode(Route.CREATE_HOLD, "k", null, HOLD_JSON));
        assertEquals(CommandType.CREATE_HOLD, command.type);
        assertEquals(1, command.accountId);
        assertEquals(5_000, command.amountMinor);
        assertEquals(TRY, command.currency);
        assertEquals(30_000, command.holdTimeoutMs);
    }

    @Test
    void shouldFillACaptureWithItsHoldFromThePath()
    {
        assertNull(decode(Route.CAPTURE_HOLD, "k", HOLD_ID, CAPTURE_JSON));
        assertEquals(CommandType.CAPTURE_HOLD, command.type);
        assertEquals(HOLD_ID, Uuid7.toString(command.targetIdHi, command.targetIdLo));
        assertEquals(2, command.creditAccountId);
        assertEquals(2_000, command.amountMinor);
        assertEquals(TRY, command.currency);
    }

    @Test
    void shouldCaptureEverythingWhenNoAmountIsGiven()
    {
        assertNull(decode(Route.CAPTURE_HOLD, "k", HOLD_ID, "{\"creditAccountId\":2}"));
        assertEquals(0, command.amountMinor);
        assertEquals(0, command.currency);
    }

    @Test
    void shouldFillAReversalWithItsTransferFromThePath()
    {
        assertNull(decode(Route.REVERSE_TRANSFER, "k", TRANSFER_ID, REVERSAL_JSON));
        assertEquals(CommandType.REVERSE_TRANSFER, command.type);
        assertEquals(TRANSFER_ID, Uuid7.toString(command.targetIdHi, command.targetIdLo));
        assertEquals(500, command.amountMinor);
    }

    @Test
    void shouldReverseEverythingOnAnEmptyBodyOrEmptyObject()
    {
        assertNull(decode(Route.REVERSE_TRANSFER, "k", TRANSFER_ID, ""));
        assertEquals(0, command.amountMinor);
        final long fingerprintHi = command.fingerprintHi;
        assertNull(decode(Route.REVERSE_TRANSFER, "k", TRANSFER_ID, " { } "));
        assertEquals(0, command.amountMinor);
        assertEquals(fingerprintHi, command.fingerprintHi);
        assertNull(decoder.decode(Route.REVERSE_TRANSFER, TENANT, "k", TRANSFER_ID, null, command));
        assertEquals(fingerprintHi, command.fingerprintHi);
    }

    @Test
    void shouldTakeAnAccountIdAsAStringOfDigitsAsTheSameCommandAsANumber()
    {
        assertNull(decode(Route.CREATE_TRANSFER, "k", null,
            "{\"debitAccountId\":9223372036854775807,\"creditAccountId\":9007199254740993,\"amount\":\"1\",\"currency\":\"TRY\"}"));
        final long fingerprintHi = command.fingerprintHi;
        final long fingerprintLo = command.fingerprintLo;
        assertNull(decode(Route.CREATE_TRANSFER, "k", null,
            "{\"debitAccountId\":\"9223372036854775807\",\"creditAccountId\":\"9007199254740993\",\"amount\":\"1\",\"currency\":\"TRY\"}"));
        assertEquals(Long.MAX_VALUE, command.debitAccountId);
        assertEquals(9_007_199_254_740_993L, command.creditAccountId);
        assertEquals(fingerprintHi, command.fingerprintHi, "the same request: a retry may spell it either way");
        assertEquals(fingerprintLo, command.fingerprintLo);
        for (final Route route : new Route[] {Route.CREATE_ACCOUNT, Route.CREATE_HOLD})
        {
            final String body = route == Route.CREATE_ACCOUNT ? "{\"id\":\"42\",\"currency\":\"TRY\"}" :
                "{\"accountId\":\"42\",\"amount\":\"1\",\"currency\":\"TRY\",\"expiresInMs\":1000}";
            assertNull(decode(route, "k", null, body));
            assertEquals(42, command.accountId, route::toString);
        }
    }

    @Test
    void shouldFillAVoidFromAnEmptyBodyOrEmptyObject()
    {
        assertNull(decode(Route.VOID_HOLD, "k", HOLD_ID, ""));
        assertEquals(CommandType.VOID_HOLD, command.type);
        assertEquals(HOLD_ID, Uuid7.toString(command.targetIdHi, command.targetIdLo));
        assertNull(decode(Route.VOID_HOLD, "k", HOLD_ID, "{}"));
    }

    @Test
    void shouldDecodeADirectBufferLikeAHeapOne()
    {
        final ByteBuf direct = Requests.directBody(TRANSFER_JSON);
        try
        {
            assertNull(decoder.decode(Route.CREATE_TRANSFER, TENANT, "k", null, direct, command));
        }
        finally
        {
            direct.release();
        }
        final long fingerprintHi = command.fingerprintHi;
        assertNull(decode(Route.CREATE_TRANSFER, "k", null, TRANSFER_JSON));
        assertEquals(fingerprintHi, command.fingerprintHi);
    }

    @Test
    void shouldNotMoveTheBodyIndexes()
    {
        final ByteBuf buffer = body(TRANSFER_JSON);
        final int readerIndex = buffer.readerIndex();
        assertNull(decoder.decode(Route.CREATE_TRANSFER, TENANT, "k", null, buffer, command));
        assertEquals(readerIndex, buffer.readerIndex());
    }

    @Test
    void shouldRefuseRoutesThatAreNotSingleCommands()
    {
        assertThrows(IllegalArgumentException.class, () -> decoder.decode(Route.BATCH, TENANT, "k", null, body("{}"), command));
        assertThrows(IllegalArgumentException.class, () -> decoder.decode(Route.GET_ACCOUNT, TENANT, "k", "1", null, command));
    }

    // ---------------------------------------------------------------------------------------------
    // Every decode error: the right problem type, status and field; the command left cleared.
    // ---------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0} [{2}] -> {3} {4}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', nullValues = "NULL", value = {
        // idempotency key
        "CREATE_TRANSFER|NULL|" + TRANSFER_JSON + "|IDEMPOTENCY_KEY_MISSING|NULL",
        "CREATE_TRANSFER|``|" + TRANSFER_JSON + "|IDEMPOTENCY_KEY_INVALID|NULL",
        "CREATE_TRANSFER|`a b`|" + TRANSFER_JSON + "|IDEMPOTENCY_KEY_INVALID|NULL",
        "VOID_HOLD|NULL|{}|IDEMPOTENCY_KEY_MISSING|NULL",
        // malformed JSON
        "CREATE_TRANSFER|k|``|MALFORMED_JSON|NULL",
        "CREATE_TRANSFER|k|`   `|MALFORMED_JSON|NULL",
        "CREATE_TRANSFER|k|{|MALFORMED_JSON|NULL",
        "CREATE_TRANSFER|k|[]|MALFORMED_JSON|NULL",
        "CREATE_TRANSFER|k|null|MALFORMED_JSON|NULL",
        "CREATE_TRANSFER|k|\"x\"|MALFORMED_JSON|NULL",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,}|MALFORMED_JSON|NULL",
        "CREATE_TRANSFER|k|{'debitAccountId':1}|MALFORMED_JSON|NULL",
        "CREATE_TRANSFER|k|{\"debitAccountId\":01}|MALFORMED_JSON|NULL",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1 /* c */}|MALFORMED_JSON|NULL",
        "CREATE_TRANSFER|k|{} {}|MALFORMED_JSON|NULL",
        "CREATE_TRANSFER|k|{}x|MALFORMED_JSON|NULL",
        "CREATE_TRANSFER|k|{\"amount\":NaN}|MALFORMED_JSON|NULL",
        "VOID_HOLD|k|{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":{\"g\":{\"h\":{}}}}}}}}}|INVALID_REQUEST|a",
        // structure
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"memo\":\"x\"}|INVALID_REQUEST|memo",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"}|INVALID_REQUEST|debitAccountId",
        "CREATE_TRANSFER|k|{\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"}|INVALID_REQUEST|debitAccountId",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"currency\":\"TRY\"}|INVALID_REQUEST|amount",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\"}|INVALID_REQUEST|currency",
        "CREATE_TRANSFER|k|{\"debitAccountId\":\"01\",\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"}|INVALID_REQUEST|debitAccountId",
        "CREATE_TRANSFER|k|{\"debitAccountId\":\"1.0\",\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"}|INVALID_REQUEST|debitAccountId",
        "CREATE_TRANSFER|k|{\"debitAccountId\":\"\",\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"}|INVALID_REQUEST|debitAccountId",
        "CREATE_TRANSFER|k|{\"debitAccountId\":\"+1\",\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"}|INVALID_REQUEST|debitAccountId",
        "CREATE_TRANSFER|k|{\"debitAccountId\":\"9223372036854775808\",\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"}|INVALID_REQUEST|debitAccountId",
        "CREATE_TRANSFER|k|{\"debitAccountId\":true,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"}|INVALID_REQUEST|debitAccountId",
        "CREATE_TRANSFER|k|{\"debitAccountId\":\"2\",\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"}|INVALID_REQUEST|creditAccountId",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1.0,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"}|INVALID_REQUEST|debitAccountId",
        "CREATE_TRANSFER|k|{\"debitAccountId\":0,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"}|INVALID_REQUEST|debitAccountId",
        "CREATE_TRANSFER|k|{\"debitAccountId\":-1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"}|INVALID_REQUEST|debitAccountId",
        "CREATE_TRANSFER|k|{\"debitAccountId\":9223372036854775808,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"}|INVALID_REQUEST|debitAccountId",
        "CREATE_TRANSFER|k|{\"debitAccountId\":null,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"}|INVALID_REQUEST|debitAccountId",
        "CREATE_TRANSFER|k|{\"debitAccountId\":2,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"}|INVALID_REQUEST|creditAccountId",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"reference\":\"\"}|INVALID_REQUEST|reference",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"reference\":\"a b\"}|INVALID_REQUEST|reference",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"reference\":\"caf\u00e9\"}|INVALID_REQUEST|reference",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"reference\":7}|INVALID_REQUEST|reference",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"expiresInMs\":5}|INVALID_REQUEST|expiresInMs",
        // metadata: a flat object of string members with plain names, each once, valid Unicode
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"metadata\":\"x\"}|INVALID_REQUEST|metadata",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"metadata\":[]}|INVALID_REQUEST|metadata",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"metadata\":null}|INVALID_REQUEST|metadata",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"metadata\":{\"a\":1}}|INVALID_REQUEST|metadata",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"metadata\":{\"a\":null}}|INVALID_REQUEST|metadata",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"metadata\":{\"a\":{\"b\":\"c\"}}}|INVALID_REQUEST|metadata",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"metadata\":{\"a\":\"1\",\"a\":\"2\"}}|INVALID_REQUEST|metadata",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"metadata\":{\"\":\"1\"}}|INVALID_REQUEST|metadata",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"metadata\":{\"a b\":\"1\"}}|INVALID_REQUEST|metadata",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"metadata\":{\"caf\u00e9\":\"1\"}}|INVALID_REQUEST|metadata",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"metadata\":{\"a\":\"\\ud800\"}}|INVALID_REQUEST|metadata",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"metadata\":{\"a\":\"x\\u0000y\"}}|INVALID_REQUEST|metadata",
        "CREATE_HOLD|k|{\"accountId\":1,\"amount\":\"1\",\"currency\":\"TRY\",\"expiresInMs\":5,\"metadata\":{}}|INVALID_REQUEST|metadata",
        // amounts
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1000.005\",\"currency\":\"TRY\"}|INVALID_AMOUNT|amount",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":1000.005,\"currency\":\"TRY\"}|INVALID_AMOUNT|amount",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"5.0\",\"currency\":\"JPY\"}|INVALID_AMOUNT|amount",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"0\",\"currency\":\"TRY\"}|INVALID_AMOUNT|amount",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":0.00,\"currency\":\"TRY\"}|INVALID_AMOUNT|amount",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"-5.00\",\"currency\":\"TRY\"}|INVALID_AMOUNT|amount",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":-5,\"currency\":\"TRY\"}|INVALID_AMOUNT|amount",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":1e3,\"currency\":\"TRY\"}|INVALID_AMOUNT|amount",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"+5\",\"currency\":\"TRY\"}|INVALID_AMOUNT|amount",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"92233720368547758.08\",\"currency\":\"TRY\"}|INVALID_AMOUNT|amount",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":92233720368547758.08,\"currency\":\"TRY\"}|INVALID_AMOUNT|amount",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"00000000000000000000000000000000000000001\",\"currency\":\"TRY\"}|INVALID_AMOUNT|amount",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":true,\"currency\":\"TRY\"}|INVALID_AMOUNT|amount",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":{},\"currency\":\"TRY\"}|INVALID_AMOUNT|amount",
        // currencies
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"try\"}|UNSUPPORTED_CURRENCY|currency",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"XXX\"}|UNSUPPORTED_CURRENCY|currency",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRYY\"}|UNSUPPORTED_CURRENCY|currency",
        "CREATE_TRANSFER|k|{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":949}|INVALID_REQUEST|currency",
        // accounts
        "CREATE_ACCOUNT|k|{\"currency\":\"TRY\"}|INVALID_REQUEST|id",
        "CREATE_ACCOUNT|k|{\"id\":1,\"currency\":\"TRY\",\"subBalances\":0}|INVALID_REQUEST|subBalances",
        "CREATE_ACCOUNT|k|{\"id\":1,\"currency\":\"TRY\",\"subBalances\":65}|INVALID_REQUEST|subBalances",
        "CREATE_ACCOUNT|k|{\"id\":1,\"currency\":\"TRY\",\"debitsMustNotExceedCredits\":\"true\"}|INVALID_REQUEST|debitsMustNotExceedCredits",
        "CREATE_ACCOUNT|k|{\"id\":1,\"currency\":\"TRY\",\"subBalances\":2,\"overdraftLimit\":\"1.00\"}|INVALID_REQUEST|overdraftLimit",
        "CREATE_ACCOUNT|k|{\"id\":1,\"currency\":\"TRY\",\"debitsMustNotExceedCredits\":false,\"overdraftLimit\":\"1.00\"}|INVALID_REQUEST|overdraftLimit",
        "CREATE_ACCOUNT|k|{\"id\":1,\"currency\":\"TRY\",\"overdraftLimit\":\"-1.00\"}|INVALID_AMOUNT|overdraftLimit",
        "CREATE_ACCOUNT|k|{\"id\":1,\"currency\":\"TRY\",\"overdraftLimit\":\"46116860184273879.05\"}|INVALID_AMOUNT|overdraftLimit",
        "CREATE_ACCOUNT|k|{\"id\":1,\"currency\":\"TRY\",\"amount\":\"1\"}|INVALID_REQUEST|amount",
        // holds
        "CREATE_HOLD|k|{\"accountId\":1,\"amount\":\"1\",\"currency\":\"TRY\"}|INVALID_REQUEST|expiresInMs",
        "CREATE_HOLD|k|{\"accountId\":1,\"amount\":\"1\",\"currency\":\"TRY\",\"expiresInMs\":0}|INVALID_REQUEST|expiresInMs",
        "CREATE_HOLD|k|{\"accountId\":1,\"amount\":\"1\",\"currency\":\"TRY\",\"expiresInMs\":31622400001}|INVALID_REQUEST|expiresInMs",
        // captures and reversals: without a currency an amount may have at most 3 decimals (thousandths)
        "CAPTURE_HOLD|k|{\"creditAccountId\":2,\"amount\":\"20.0001\"}|INVALID_AMOUNT|amount",
        "CAPTURE_HOLD|k|{\"amount\":\"20.00\",\"currency\":\"TRY\"}|INVALID_REQUEST|creditAccountId",
        "CAPTURE_HOLD|k|``|MALFORMED_JSON|NULL",
        "REVERSE_TRANSFER|k|{\"amount\":\"5.0001\"}|INVALID_AMOUNT|amount",
        "REVERSE_TRANSFER|k|{\"amount\":\"0.00\",\"currency\":\"TRY\"}|INVALID_AMOUNT|amount",
        "REVERSE_TRANSFER|k|{\"creditAccountId\":2}|INVALID_REQUEST|creditAccountId",
        "VOID_HOLD|k|{\"amount\":\"1\"}|INVALID_REQUEST|amount",
    })
    void shouldAnswerEachInvalidRequestWithItsProblemTypeAndField(
        final Route route, final String key, final String json, final ProblemType expectedType, final String expectedField)
    {
        final String pathId = route == Route.REVERSE_TRANSFER ? TRANSFER_ID : route.hasPathId() ? HOLD_ID : null;
        final Problem problem = decode(route, key, pathId, json);
        assertEquals(expectedType, problem == null ? null : problem.type(), () -> "problem " + problem);
        assertEquals(400, problem.status());
        assertEquals(expectedField, problem.member("field"), problem::toString);
        if (expectedField != null)
        {
            assertTrue(problem.detail().startsWith(expectedField + " "), problem::detail);
        }
        assertTrue(Requests.isCleared(command), "a rejected request leaves the command cleared");
    }

    @Test
    void shouldAcceptTheLargestHoldTimeoutOfThreeHundredSixtySixDays()
    {
        assertNull(decode(Route.CREATE_HOLD, "k", null, "{\"accountId\":1,\"amount\":\"1\",\"currency\":\"TRY\",\"expiresInMs\":31622400000}"));
        assertEquals(31_622_400_000L, command.holdTimeoutMs);
    }

    @Test
    void shouldAcceptTheLargestOverdraftTheLedgerAllows()
    {
        assertNull(decode(Route.CREATE_ACCOUNT, "k", null, "{\"id\":1,\"currency\":\"TRY\",\"overdraftLimit\":\"46116860184273879.04\"}"));
        assertEquals(1L << 62, command.overdraftLimitMinor);
    }

    @Test
    void shouldCanonicaliseMetadataSoThatOrderSpacingAndEscapesDoNotChangeTheFingerprint()
    {
        final String base = "{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"metadata\":";
        assertNull(decode(Route.CREATE_TRANSFER, "k", null, base + "{ \"orderId\" : \"A-17\", \"channel\":\"\\u0077eb \\u015f\\\"q\\\"\\n\"}}"));
        final String canonical = "{\"channel\":\"web ş\\\"q\\\"\\u000a\",\"orderId\":\"A-17\"}";
        assertEquals(canonical, new String(command.metadata.array(), 0, command.metadataLength, StandardCharsets.UTF_8));
        final long hi = command.fingerprintHi;
        final long lo = command.fingerprintLo;

        assertNull(decode(Route.CREATE_TRANSFER, "k", null, base + "{\"orderId\":\"A-17\",\"channel\":\"web \u015f\\\"q\\\"\\u000A\"}}"));
        assertEquals(hi, command.fingerprintHi, "same members in another order and spelling: same fingerprint");
        assertEquals(lo, command.fingerprintLo);
        final byte[] metadata = canonical.getBytes(StandardCharsets.UTF_8);
        final byte[] payload = java.nio.ByteBuffer.allocate(32 + 4 + metadata.length)
            .putLong(1).putLong(2).putLong(100).putInt(TRY).putInt(0).putInt(metadata.length).put(metadata).array();
        final long[] expected = sha256x128(ascii("transfer"), new byte[] {0}, payload);
        assertEquals(expected[0], command.fingerprintHi, "the documented canonical payload, metadata last");
        assertEquals(expected[1], command.fingerprintLo);

        assertNull(decode(Route.CREATE_TRANSFER, "k", null, base + "{\"orderId\":\"A-18\",\"channel\":\"web \u015f\\\"q\\\"\\n\"}}"));
        assertNotEquals(hi, command.fingerprintHi, "another value: another fingerprint");
    }

    @Test
    void shouldFillAnAccountsMetadataAndKeepTheFingerprintOfAnAccountWithout()
    {
        assertNull(decode(Route.CREATE_ACCOUNT, "k", null, "{\"id\":42,\"currency\":\"TRY\"}"));
        final long[] without = {command.fingerprintHi, command.fingerprintLo};
        final byte[] documented = java.nio.ByteBuffer.allocate(25).putLong(42).putInt(TRY).putInt(1).put((byte)1).putLong(0).array();
        assertArrayEquals(sha256x128(ascii("account"), new byte[] {0}, documented), without, "no metadata: the fingerprint it always had");

        assertNull(decode(Route.CREATE_ACCOUNT, "k", null, "{\"id\":42,\"currency\":\"TRY\",\"metadata\":{\"team\":\"ops\",\"cc\":\"12\"}}"));
        assertEquals("{\"cc\":\"12\",\"team\":\"ops\"}", new String(command.metadata.array(), 0, command.metadataLength, StandardCharsets.UTF_8));
        final byte[] metadata = "{\"cc\":\"12\",\"team\":\"ops\"}".getBytes(StandardCharsets.UTF_8);
        final byte[] payload = java.nio.ByteBuffer.allocate(25 + 4 + metadata.length).put(documented).putInt(metadata.length).put(metadata).array();
        assertArrayEquals(sha256x128(ascii("account"), new byte[] {0}, payload), new long[] {command.fingerprintHi, command.fingerprintLo});
        assertNull(decode(Route.CREATE_ACCOUNT, "k", null, "{\"id\":42,\"currency\":\"TRY\",\"metadata\":{}}"));
        assertArrayEquals(without, new long[] {command.fingerprintHi, command.fingerprintLo}, "{} is no metadata");
    }

    @Test
    void shouldFillAMetadataUpdateWithItsAccountFromThePathAndItsDocumentedFingerprint()
    {
        assertNull(decode(Route.UPDATE_ACCOUNT_METADATA, "k", "7", "{\"metadata\":{ \"team\" : \"ops\" }}"));
        assertEquals(CommandType.UPDATE_ACCOUNT_METADATA, command.type);
        assertEquals(7, command.accountId);
        final byte[] metadata = "{\"team\":\"ops\"}".getBytes(StandardCharsets.UTF_8);
        assertEquals("{\"team\":\"ops\"}", new String(command.metadata.array(), 0, command.metadataLength, StandardCharsets.UTF_8));
        final byte[] payload = java.nio.ByteBuffer.allocate(12 + metadata.length).putLong(7).putInt(metadata.length).put(metadata).array();
        assertArrayEquals(sha256x128(ascii("metadata"), new byte[] {0}, payload), new long[] {command.fingerprintHi, command.fingerprintLo});

        assertNull(decode(Route.UPDATE_ACCOUNT_METADATA, "k", "7", "{\"metadata\":{}}"));
        assertEquals(0, command.metadataLength, "{} removes the metadata");
        final byte[] removal = java.nio.ByteBuffer.allocate(12).putLong(7).putInt(0).array();
        assertArrayEquals(sha256x128(ascii("metadata"), new byte[] {0}, removal), new long[] {command.fingerprintHi, command.fingerprintLo});

        assertEquals("metadata", decode(Route.UPDATE_ACCOUNT_METADATA, "k", "7", "{}").member("field"));
        assertEquals("accountId", decode(Route.UPDATE_ACCOUNT_METADATA, "k", "7", "{\"accountId\":7,\"metadata\":{}}").member("field"));
        assertEquals(ProblemType.INVALID_REQUEST, decode(Route.UPDATE_ACCOUNT_METADATA, "k", "x", "{\"metadata\":{}}").type());
    }

    @Test
    void shouldTreatEmptyMetadataAsNoneAndBoundItsSize()
    {
        final String base = "{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\"";
        assertNull(decode(Route.CREATE_TRANSFER, "k", null, base + "}"));
        final long hi = command.fingerprintHi;
        assertNull(decode(Route.CREATE_TRANSFER, "k", null, base + ",\"metadata\":{}}"));
        assertEquals(0, command.metadataLength);
        assertEquals(hi, command.fingerprintHi, "{} is no metadata");

        final StringBuilder twenty = new StringBuilder("{");
        for (int i = 0; i < Metadata.MEMBERS_MAX; i++)
        {
            twenty.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":\"").append("v".repeat(40)).append('"');
        }
        assertNull(decode(Route.CREATE_TRANSFER, "k", null, base + ",\"metadata\":" + twenty + "}}"));
        assertEquals(20 * (2 + 1 + 2 + 40) + (10 * 2 + 10 * 3) + 19 + 2, command.metadataLength,
            "20 members (quoted name, colon, quoted 40-character value; names k0..k19), 19 commas, 2 braces");
        final Problem tooMany = decode(Route.CREATE_TRANSFER, "k", null, base + ",\"metadata\":" + twenty + ",\"k20\":\"v\"}}");
        assertEquals("metadata must have at most 20 members", tooMany.detail());
        final Problem tooLong = decode(Route.CREATE_TRANSFER, "k", null,
            base + ",\"metadata\":{\"a\":\"" + "v".repeat(500) + "\",\"b\":\"" + "v".repeat(500) + "\",\"c\":\"vvv\"}}");   // 1,025 bytes
        assertTrue(tooLong.detail().startsWith("metadata must be at most 1024 bytes"), tooLong::detail);
        final Problem longValue = decode(Route.CREATE_TRANSFER, "k", null, base + ",\"metadata\":{\"a\":\"" + "v".repeat(501) + "\"}}");
        assertEquals("metadata member \"a\" must be at most 500 characters", longValue.detail());
    }

    @Test
    void shouldAcceptAReferenceOfSixtyFourCharactersAndRejectSixtyFive()
    {
        final String base = "{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1\",\"currency\":\"TRY\",\"reference\":\"";
        assertNull(decode(Route.CREATE_TRANSFER, "k", null, base + "r".repeat(LedgerLimits.REFERENCE_LENGTH_MAX) + "\"}"));
        assertEquals(LedgerLimits.REFERENCE_LENGTH_MAX, command.referenceLength);
        assertEquals(ProblemType.INVALID_REQUEST,
            decode(Route.CREATE_TRANSFER, "k", null, base + "r".repeat(LedgerLimits.REFERENCE_LENGTH_MAX + 1) + "\"}").type());
    }

    @ParameterizedTest(name = "{0} /{1}")
    @CsvSource(nullValues = "NULL", value = {
        "REVERSE_TRANSFER, NULL",
        "REVERSE_TRANSFER, not-a-uuid",
        "REVERSE_TRANSFER, " + HOLD_ID_TEXT,
        "REVERSE_TRANSFER, 0190a5b2-1c3d-7000-8000-000000000000",
        "REVERSE_TRANSFER, 0190a5b2-1c3d-4000-8000-000000004000",
        "CAPTURE_HOLD, " + TRANSFER_ID_TEXT,
        "CAPTURE_HOLD, 0190a5b2-1c3d-7100-8000-00000000400",
        "VOID_HOLD, 42",
    })
    void shouldAnswerNotFoundWhenThePathIdCannotNameTheResource(final Route route, final String pathId)
    {
        final Problem problem = decode(route, "k", pathId, route == Route.CAPTURE_HOLD ? CAPTURE_JSON : "");
        assertEquals(ProblemType.NOT_FOUND, problem.type());
        assertEquals(404, problem.status());
        assertTrue(Requests.isCleared(command));
    }

    private static final String TRANSFER_ID_TEXT = "0190a5b2-1c3d-7000-8000-000000004000";
    private static final String HOLD_ID_TEXT = "0190a5b2-1c3d-7100-8000-000000004000";

    @Test
    void shouldCheckThePathIdBeforeTheKeyAndTheKeyBeforeTheBody()
    {
        assertEquals(ProblemType.NOT_FOUND, decode(Route.CAPTURE_HOLD, null, "nope", "{").type());
        assertEquals(ProblemType.IDEMPOTENCY_KEY_MISSING, decode(Route.CAPTURE_HOLD, null, HOLD_ID, "{").type());
        assertEquals(ProblemType.MALFORMED_JSON, decode(Route.CAPTURE_HOLD, "k", HOLD_ID, "{").type());
    }

    @Test
    void shouldRejectBodiesThatAreNotUtf8()
    {
        final byte[] utf16 = TRANSFER_JSON.getBytes(StandardCharsets.UTF_16BE);
        assertEquals(ProblemType.MALFORMED_JSON,
            decoder.decode(Route.CREATE_TRANSFER, TENANT, "k", null, io.netty.buffer.Unpooled.wrappedBuffer(utf16), command).type());
        final byte[] utf16le = TRANSFER_JSON.getBytes(StandardCharsets.UTF_16LE);
        assertEquals(ProblemType.MALFORMED_JSON,
            decoder.decode(Route.CREATE_TRANSFER, TENANT, "k", null, io.netty.buffer.Unpooled.wrappedBuffer(utf16le), command).type());
        final byte[] bom = ("\ufeff" + TRANSFER_JSON).getBytes(StandardCharsets.UTF_8);
        assertEquals(ProblemType.MALFORMED_JSON,
            decoder.decode(Route.CREATE_TRANSFER, TENANT, "k", null, io.netty.buffer.Unpooled.wrappedBuffer(bom), command).type());
        final byte[] invalid = TRANSFER_JSON.replace("inv-45982", "inv-\u00ff").getBytes(StandardCharsets.ISO_8859_1);
        assertEquals(ProblemType.MALFORMED_JSON,
            decoder.decode(Route.CREATE_TRANSFER, TENANT, "k", null, io.netty.buffer.Unpooled.wrappedBuffer(invalid), command).type());
    }

    @Test
    void shouldAcceptEscapedCharactersThatDecodeToValidValues()
    {
        assertNull(decode(Route.CREATE_TRANSFER, "k", null,
            "{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"\\u0031\",\"currency\":\"T\\u0052Y\",\"reference\":\"a\\\"b\\\\c\\/d\"}"));
        assertEquals(100, command.amountMinor);
        assertEquals(TRY, command.currency);
        assertEquals("a\"b\\c/d", new String(command.reference, 0, command.referenceLength, StandardCharsets.US_ASCII));
    }

    // ---------------------------------------------------------------------------------------------
    // Fingerprints and digests.
    // ---------------------------------------------------------------------------------------------

    @Test
    void shouldGiveTheSameFingerprintWhateverTheFieldOrderWhitespaceAndNumberFormat()
    {
        final long[] reference = fingerprint(Route.CREATE_TRANSFER, null, TRANSFER_JSON);
        assertArrayEquals(reference, fingerprint(Route.CREATE_TRANSFER, null,
            "{\n  \"reference\" : \"inv-45982\",\r\n\t\"currency\":\"TRY\", \"amount\": 1000.00,\"creditAccountId\":2,  \"debitAccountId\" : 1 }"));
        assertArrayEquals(reference, fingerprint(Route.CREATE_TRANSFER, null,
            "{\"amount\":1000,\"debitAccountId\":1,\"creditAccountId\":2,\"currency\":\"TRY\",\"reference\":\"inv-45982\"}"));
        assertArrayEquals(reference, fingerprint(Route.CREATE_TRANSFER, null,
            "{\"amount\":\"1000.0\",\"debitAccountId\":1,\"creditAccountId\":2,\"currency\":\"TRY\",\"reference\":\"inv-45982\"}"));

        final long[] half = fingerprint(Route.CREATE_HOLD, null, "{\"accountId\":1,\"amount\":\"10.5\",\"currency\":\"TRY\",\"expiresInMs\":1}");
        assertArrayEquals(half, fingerprint(Route.CREATE_HOLD, null, "{\"expiresInMs\":1,\"currency\":\"TRY\",\"amount\":10.50,\"accountId\":1}"));
    }

    @Test
    void shouldGiveTheSameFingerprintForAnOmittedDefaultAndTheDefaultWrittenOut()
    {
        assertArrayEquals(fingerprint(Route.CREATE_ACCOUNT, null, "{\"id\":42,\"currency\":\"TRY\"}"),
            fingerprint(Route.CREATE_ACCOUNT, null,
                "{\"id\":42,\"currency\":\"TRY\",\"subBalances\":1,\"debitsMustNotExceedCredits\":true,\"overdraftLimit\":\"0.00\"}"));
        assertArrayEquals(fingerprint(Route.VOID_HOLD, HOLD_ID, ""), fingerprint(Route.VOID_HOLD, HOLD_ID, "{}"));
    }

    @Test
    void shouldChangeTheFingerprintWithAnyPayloadChange()
    {
        final long[] transfer = fingerprint(Route.CREATE_TRANSFER, null, TRANSFER_JSON);
        assertDifferent(transfer, Route.CREATE_TRANSFER, null, TRANSFER_JSON.replace("\"debitAccountId\":1", "\"debitAccountId\":3"));
        assertDifferent(transfer, Route.CREATE_TRANSFER, null, TRANSFER_JSON.replace("\"creditAccountId\":2", "\"creditAccountId\":3"));
        assertDifferent(transfer, Route.CREATE_TRANSFER, null, TRANSFER_JSON.replace("1000.00", "1000.01"));
        assertDifferent(transfer, Route.CREATE_TRANSFER, null, TRANSFER_JSON.replace("TRY", "USD"));
        assertDifferent(transfer, Route.CREATE_TRANSFER, null, TRANSFER_JSON.replace("inv-45982", "inv-45983"));
        assertDifferent(transfer, Route.CREATE_TRANSFER, null, TRANSFER_JSON.replace(",\"reference\":\"inv-45982\"", ""));

        final long[] account = fingerprint(Route.CREATE_ACCOUNT, null, ACCOUNT_JSON);
        assertDifferent(account, Route.CREATE_ACCOUNT, null, ACCOUNT_JSON.replace("42", "43"));
        assertDifferent(account, Route.CREATE_ACCOUNT, null, ACCOUNT_JSON.replace("\"subBalances\":1", "\"subBalances\":2"));
        assertDifferent(account, Route.CREATE_ACCOUNT, null, ACCOUNT_JSON.replace("true", "false"));
        assertDifferent(account, Route.CREATE_ACCOUNT, null, ACCOUNT_JSON.replace("}", ",\"overdraftLimit\":\"0.01\"}"));

        final long[] hold = fingerprint(Route.CREATE_HOLD, null, HOLD_JSON);
        assertDifferent(hold, Route.CREATE_HOLD, null, HOLD_JSON.replace("30000", "30001"));

        final long[] capture = fingerprint(Route.CAPTURE_HOLD, HOLD_ID, CAPTURE_JSON);
        assertDifferent(capture, Route.CAPTURE_HOLD, HOLD_ID, "{\"creditAccountId\":2}");
        assertDifferent(capture, Route.CAPTURE_HOLD, Uuid7.toString(Uuid7.hi(0, Uuid7.KIND_HOLD), Uuid7.lo(42, 0)), CAPTURE_JSON);

        final long[] reversal = fingerprint(Route.REVERSE_TRANSFER, TRANSFER_ID, REVERSAL_JSON);
        assertDifferent(reversal, Route.REVERSE_TRANSFER, TRANSFER_ID, "");
        assertDifferent(reversal, Route.REVERSE_TRANSFER, TRANSFER_ID, "{\"amount\":\"5.01\",\"currency\":\"TRY\"}");
    }

    @Test
    void shouldGiveDifferentOperationsOnTheSameIdDifferentFingerprints()
    {
        assertFalse(Arrays.equals(fingerprint(Route.VOID_HOLD, HOLD_ID, ""), fingerprint(Route.CAPTURE_HOLD, HOLD_ID, "{\"creditAccountId\":2}")));
    }

    @Test
    void shouldScopeTheKeyDigestByTenantButNotTheFingerprint()
    {
        assertNull(decode(Route.CREATE_TRANSFER, "same-key", null, TRANSFER_JSON));
        final Command first = new Command().copyFrom(command);
        assertNull(decoder.decode(Route.CREATE_TRANSFER, TENANT + 1, "same-key", null, body(TRANSFER_JSON), command));
        assertNotEquals(first.keyHi, command.keyHi);
        assertNotEquals(first.referenceHi, command.referenceHi, "references are per tenant too");
        assertEquals(first.fingerprintHi, command.fingerprintHi);
        assertEquals(first.fingerprintLo, command.fingerprintLo);

        assertNull(decode(Route.CREATE_TRANSFER, "other-key", null, TRANSFER_JSON));
        assertNotEquals(first.keyHi, command.keyHi);
        assertEquals(first.fingerprintHi, command.fingerprintHi, "the key is not part of the payload");
    }

    @Test
    void shouldPackCurrenciesExactlyLikeTheLedger()
    {
        for (final String code : new String[] {"TRY", "USD", "EUR", "JPY", "KWD", "CLP"})
        {
            assertNull(decode(Route.CREATE_ACCOUNT, "k", null, "{\"id\":1,\"currency\":\"" + code + "\"}"));
            assertEquals(CurrencyCode.pack(code), command.currency);
        }
    }

    private Problem decode(final Route route, final String key, final String pathId, final String json)
    {
        return decoder.decode(route, TENANT, key, pathId, body(json), command);
    }

    private long[] fingerprint(final Route route, final String pathId, final String json)
    {
        final Problem problem = decode(route, "k", pathId, json);
        assertNull(problem, () -> json + " -> " + problem);
        return new long[] {command.fingerprintHi, command.fingerprintLo};
    }

    private void assertDifferent(final long[] fingerprint, final Route route, final String pathId, final String json)
    {
        assertFalse(Arrays.equals(fingerprint, fingerprint(route, pathId, json)), json);
    }
}
