package dev.tally.gateway.api;

import dev.tally.gateway.api.routing.ResourceId;

import dev.tally.journal.CommandCodec;
import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.id.Uuid7;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** Shared fixtures of the API tests: bodies, ids, independent digest computations and command checks. */
final class Requests
{
    static final long TENANT = 7;
    static final int TRY = CurrencyCode.pack("TRY");
    static final int JPY = CurrencyCode.pack("JPY");
    static final int KWD = CurrencyCode.pack("KWD");
    static final long TIMESTAMP_NS = 1_767_225_600_123_456_789L;
    static final String TRANSFER_ID = Uuid7.toString(Uuid7.hi(TIMESTAMP_NS, Uuid7.KIND_TRANSFER), Uuid7.lo(41, 0));
    static final String HOLD_ID = Uuid7.toString(Uuid7.hi(TIMESTAMP_NS, Uuid7.KIND_HOLD), Uuid7.lo(42, 0));
    static final String TRANSFER_JSON =
        "{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1000.00\",\"currency\":\"TRY\",\"reference\":\"inv-45982\"}";
    static final String ACCOUNT_JSON = "{\"id\":42,\"currency\":\"TRY\",\"subBalances\":1,\"debitsMustNotExceedCredits\":true}";
    static final String HOLD_JSON = "{\"accountId\":1,\"amount\":\"50.00\",\"currency\":\"TRY\",\"expiresInMs\":30000}";
    static final String CAPTURE_JSON = "{\"creditAccountId\":2,\"amount\":\"20.00\",\"currency\":\"TRY\"}";
    static final String REVERSAL_JSON = "{\"amount\":\"5.00\",\"currency\":\"TRY\"}";

    private Requests()
    {
    }

    static ByteBuf body(final String json)
    {
        return Unpooled.wrappedBuffer(json.getBytes(StandardCharsets.UTF_8));
    }

    /** A direct (not array-backed) copy, to exercise the decoder's copy path. */
    static ByteBuf directBody(final String json)
    {
        final byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return Unpooled.directBuffer(bytes.length).writeBytes(bytes);
    }

    static Command[] commands()
    {
        final Command[] commands = new Command[LedgerLimits.BATCH_OPERATIONS_MAX];
        for (int i = 0; i < commands.length; i++)
        {
            commands[i] = new Command();
        }
        return commands;
    }

    /** The first 128 bits of SHA-256 over the parts, computed independently of the decoder. */
    static long[] sha256x128(final byte[]... parts)
    {
        try
        {
            final MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            for (final byte[] part : parts)
            {
                sha256.update(part);
            }
            final ByteBuffer digest = ByteBuffer.wrap(sha256.digest());
            return new long[] {digest.getLong(), digest.getLong()};
        }
        catch (final NoSuchAlgorithmException e)
        {
            throw new AssertionError(e);
        }
    }

    static byte[] longBytes(final long value)
    {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    static byte[] ascii(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** @return every field of {@code c} as the journal encodes it (lossless: every type uses the same layout). */
    static byte[] encoded(final Command c)
    {
        final byte[] bytes = new byte[CommandCodec.encodedLength(c)];
        new CommandCodec().encode(c, new UnsafeBuffer(bytes), 0);
        return bytes;
    }

    /** @return true when every field of {@code c} has the value of a fresh {@link Command}. */
    static boolean isCleared(final Command c)
    {
        final Command fresh = new Command();
        return c.type == null && c.tenantId == 0 && c.keyHi == 0 && c.keyLo == 0 && c.fingerprintHi == 0 && c.fingerprintLo == 0 &&
            c.batchSize == fresh.batchSize && c.batchPosition == 0 && !c.atomic && c.accountId == 0 && c.debitAccountId == 0 &&
            c.creditAccountId == 0 && c.amountMinor == 0 && c.currency == 0 && c.subBalances == fresh.subBalances &&
            c.debitsMustNotExceedCredits == fresh.debitsMustNotExceedCredits && c.overdraftLimitMinor == 0 && c.targetIdHi == 0 &&
            c.targetIdLo == 0 && c.holdTimeoutMs == 0 && c.referenceHi == 0 && c.referenceLo == 0 && c.referenceLength == 0 &&
            c.metadataLength == 0;
    }

    /**
     * The ledger-facing invariants of a command the decoder accepted: what the business thread may assume
     * without re-validating.
     *
     * @return null when valid, otherwise what is wrong.
     */
    static String violation(final Command c, final long tenantId)
    {
        if (c.type == null || c.tenantId != tenantId)
        {
            return "envelope";
        }
        if ((c.keyHi | c.keyLo) == 0 || (c.fingerprintHi | c.fingerprintLo) == 0)
        {
            return "digests";
        }
        if (c.batchSize < 1 || c.batchSize > LedgerLimits.BATCH_OPERATIONS_MAX || c.batchPosition < 0 || c.batchPosition >= c.batchSize)
        {
            return "batch position";
        }
        final ResourceId id = new ResourceId();
        switch (c.type)
        {
            case CREATE_ACCOUNT:
                return c.accountId > 0 && knownCurrency(c.currency) && c.subBalances >= 1 && c.subBalances <= LedgerLimits.SUB_BALANCES_MAX &&
                    c.overdraftLimitMinor >= 0 && c.overdraftLimitMinor <= BodyFields.OVERDRAFT_LIMIT_MAX_MINOR &&
                    (c.overdraftLimitMinor == 0 || (c.subBalances == 1 && c.debitsMustNotExceedCredits)) ? null : "account payload";
            case TRANSFER:
                return c.debitAccountId > 0 && c.creditAccountId > 0 && c.debitAccountId != c.creditAccountId && c.amountMinor > 0 &&
                    knownCurrency(c.currency) && c.referenceLength >= 0 && c.referenceLength <= LedgerLimits.REFERENCE_LENGTH_MAX &&
                    c.hasReference() == (c.referenceLength > 0) ? null : "transfer payload";
            case REVERSE_TRANSFER:
                return id.parse(Uuid7.toString(c.targetIdHi, c.targetIdLo), Uuid7.KIND_TRANSFER) && c.amountMinor >= 0 &&
                    (c.amountMinor == 0 || c.currency == 0 || knownCurrency(c.currency)) ? null : "reversal payload";
            case CREATE_HOLD:
                return c.accountId > 0 && c.amountMinor > 0 && knownCurrency(c.currency) && c.holdTimeoutMs >= 1 &&
                    c.holdTimeoutMs <= BodyFields.HOLD_TIMEOUT_MAX_MS ? null : "hold payload";
            case CAPTURE_HOLD:
                return id.parse(Uuid7.toString(c.targetIdHi, c.targetIdLo), Uuid7.KIND_HOLD) && c.creditAccountId > 0 && c.amountMinor >= 0 &&
                    (c.amountMinor == 0 || c.currency == 0 || knownCurrency(c.currency)) ? null : "capture payload";
            case VOID_HOLD:
                return id.parse(Uuid7.toString(c.targetIdHi, c.targetIdLo), Uuid7.KIND_HOLD) ? null : "void payload";
            default:
                return "unexpected type " + c.type;
        }
    }

    private static boolean knownCurrency(final int packed)
    {
        return CurrencyCode.minorDigits(packed) >= 0;
    }
}
