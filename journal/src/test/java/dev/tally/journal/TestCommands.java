package dev.tally.journal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;

/** Builds commands with every field set, and compares them field by field. */
final class TestCommands
{
    private TestCommands()
    {
    }

    /** A command of {@code type} whose every field is set from {@code random} (any value the field can hold). */
    static Command random(final CommandType type, final Random random)
    {
        final Command command = new Command();
        command.type = type;
        command.journalIndex = random.nextLong();
        command.timestampNs = random.nextLong();
        command.tenantId = random.nextLong();
        command.keyHi = random.nextLong();
        command.keyLo = random.nextLong();
        command.fingerprintHi = random.nextLong();
        command.fingerprintLo = random.nextLong();
        command.batchSize = random.nextInt();
        command.batchPosition = random.nextInt();
        command.atomic = random.nextBoolean();
        command.accountId = random.nextLong();
        command.debitAccountId = random.nextLong();
        command.creditAccountId = random.nextLong();
        command.amountMinor = random.nextLong();
        command.currency = random.nextInt();
        command.subBalances = random.nextInt();
        command.debitsMustNotExceedCredits = random.nextBoolean();
        command.referenceTaken = random.nextBoolean();
        command.referenceUnchecked = random.nextBoolean();
        command.overdraftLimitMinor = random.nextLong();
        command.targetIdHi = random.nextLong();
        command.targetIdLo = random.nextLong();
        command.holdTimeoutMs = random.nextLong();
        command.referenceHi = random.nextLong();
        command.referenceLo = random.nextLong();
        command.referenceLength = random.nextInt(LedgerLimits.REFERENCE_LENGTH_MAX + 1);
        for (int i = 0; i < command.referenceLength; i++)
        {
            command.reference[i] = (byte)(0x21 + random.nextInt(0x7E - 0x21 + 1));
        }
        final byte[] metadata = new byte[random.nextBoolean() ? 0 : 1 + random.nextInt(LedgerLimits.METADATA_LENGTH_MAX)];
        random.nextBytes(metadata);   // opaque to the journal: any bytes
        command.metadata(metadata, metadata.length);
        command.coldWatermark = random.nextLong();
        command.coldKeyFound = random.nextBoolean();
        for (int i = 0; i < command.coldKey.length; i++)
        {
            command.coldKey[i] = random.nextLong();
        }
        command.coldTransferFound = random.nextBoolean();
        for (int i = 0; i < command.coldTransfer.length; i++)
        {
            command.coldTransfer[i] = random.nextLong();
        }
        command.coldUnchecked = random.nextBoolean();
        command.rejectionNamesAccount = random.nextBoolean();
        return command;
    }

    /**
     * {@code command} without what layout 1 predates: the cold index's watermark and what it found, and the rule that
     * names a rejected transfer's account.
     */
    static Command withoutColdFields(final Command command)
    {
        command.rejectionNamesAccount = false;
        command.coldWatermark = 0;
        command.coldKeyFound = false;
        command.coldTransferFound = false;
        command.coldUnchecked = false;
        return command;
    }

    /** {@code command} with {@code json} as its metadata (the gateway's canonical form, here as given). */
    static Command withMetadata(final Command command, final String json)
    {
        final byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return command.metadata(bytes, bytes.length);
    }

    /** A plausible transfer carrying {@code reference} as its reference text. */
    static Command transfer(final long seed, final String reference)
    {
        final Command command = random(CommandType.TRANSFER, new Random(seed));
        final byte[] bytes = reference.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(bytes, 0, command.reference, 0, bytes.length);
        command.referenceLength = bytes.length;
        command.metadataLength = 0;
        withoutColdFields(command);
        command.batchSize = 1;
        command.batchPosition = 0;
        return command;
    }

    /**
     * A transfer as the gateway builds one: the fields a transfer uses set from {@code seed}, the others zero (no
     * account, overdraft limit, target, hold timeout or reference hash), at batch position 0 of 1.
     */
    static Command plainTransfer(final long seed, final String reference)
    {
        final Command command = transfer(seed, reference);
        command.accountId = 0;
        command.overdraftLimitMinor = 0;
        command.targetIdHi = 0;
        command.targetIdLo = 0;
        command.holdTimeoutMs = 0;
        command.referenceHi = 0;
        command.referenceLo = 0;
        return command;
    }

    /** {@link #random}, then each numeric field zero or not as {@code random} says: every set of fields present. */
    static Command sparse(final CommandType type, final Random random)
    {
        final Command command = random(type, random);
        command.journalIndex = random.nextBoolean() ? 0 : command.journalIndex;
        command.timestampNs = random.nextBoolean() ? 0 : command.timestampNs;
        command.tenantId = random.nextBoolean() ? 0 : command.tenantId;
        command.keyHi = random.nextBoolean() ? 0 : command.keyHi;
        command.keyLo = random.nextBoolean() ? 0 : command.keyLo;
        command.fingerprintHi = random.nextBoolean() ? 0 : command.fingerprintHi;
        command.fingerprintLo = random.nextBoolean() ? 0 : command.fingerprintLo;
        command.batchSize = random.nextBoolean() ? 0 : command.batchSize;
        command.batchPosition = random.nextBoolean() ? 0 : command.batchPosition;
        command.accountId = random.nextBoolean() ? 0 : command.accountId;
        command.debitAccountId = random.nextBoolean() ? 0 : command.debitAccountId;
        command.creditAccountId = random.nextBoolean() ? 0 : command.creditAccountId;
        command.amountMinor = random.nextBoolean() ? 0 : command.amountMinor;
        command.currency = random.nextBoolean() ? 0 : command.currency;
        command.subBalances = random.nextBoolean() ? 0 : command.subBalances;
        command.overdraftLimitMinor = random.nextBoolean() ? 0 : command.overdraftLimitMinor;
        command.targetIdHi = random.nextBoolean() ? 0 : command.targetIdHi;
        command.targetIdLo = random.nextBoolean() ? 0 : command.targetIdLo;
        command.holdTimeoutMs = random.nextBoolean() ? 0 : command.holdTimeoutMs;
        command.referenceHi = random.nextBoolean() ? 0 : command.referenceHi;
        command.referenceLo = random.nextBoolean() ? 0 : command.referenceLo;
        return command;
    }

    /** A command of a type chosen by {@code seed}, for mixed streams. */
    static Command mixed(final long seed)
    {
        final CommandType[] types = CommandType.values();
        return random(types[(int)Math.floorMod(seed, (long)types.length)], new Random(seed));
    }

    static String referenceText(final Command command)
    {
        return new String(command.reference, 0, command.referenceLength, StandardCharsets.US_ASCII);
    }

    static void assertSameCommand(final Command expected, final Command actual)
    {
        assertEquals(expected.type, actual.type, "type");
        assertEquals(expected.journalIndex, actual.journalIndex, "journalIndex");
        assertEquals(expected.timestampNs, actual.timestampNs, "timestampNs");
        assertEquals(expected.tenantId, actual.tenantId, "tenantId");
        assertEquals(expected.keyHi, actual.keyHi, "keyHi");
        assertEquals(expected.keyLo, actual.keyLo, "keyLo");
        assertEquals(expected.fingerprintHi, actual.fingerprintHi, "fingerprintHi");
        assertEquals(expected.fingerprintLo, actual.fingerprintLo, "fingerprintLo");
        assertEquals(expected.batchSize, actual.batchSize, "batchSize");
        assertEquals(expected.batchPosition, actual.batchPosition, "batchPosition");
        assertEquals(expected.atomic, actual.atomic, "atomic");
        assertEquals(expected.accountId, actual.accountId, "accountId");
        assertEquals(expected.debitAccountId, actual.debitAccountId, "debitAccountId");
        assertEquals(expected.creditAccountId, actual.creditAccountId, "creditAccountId");
        assertEquals(expected.amountMinor, actual.amountMinor, "amountMinor");
        assertEquals(expected.currency, actual.currency, "currency");
        assertEquals(expected.subBalances, actual.subBalances, "subBalances");
        assertEquals(expected.debitsMustNotExceedCredits, actual.debitsMustNotExceedCredits, "debitsMustNotExceedCredits");
        assertEquals(expected.referenceTaken, actual.referenceTaken, "referenceTaken");
        assertEquals(expected.referenceUnchecked, actual.referenceUnchecked, "referenceUnchecked");
        assertEquals(expected.coldWatermark, actual.coldWatermark, "coldWatermark");
        assertEquals(expected.coldKeyFound, actual.coldKeyFound, "coldKeyFound");
        if (expected.coldKeyFound)
        {
            assertArrayEquals(expected.coldKey, actual.coldKey, "coldKey");
        }
        assertEquals(expected.coldTransferFound, actual.coldTransferFound, "coldTransferFound");
        if (expected.coldTransferFound)
        {
            assertArrayEquals(expected.coldTransfer, actual.coldTransfer, "coldTransfer");
        }
        assertEquals(expected.coldUnchecked, actual.coldUnchecked, "coldUnchecked");
        assertEquals(expected.rejectionNamesAccount, actual.rejectionNamesAccount, "rejectionNamesAccount");
        assertEquals(expected.overdraftLimitMinor, actual.overdraftLimitMinor, "overdraftLimitMinor");
        assertEquals(expected.targetIdHi, actual.targetIdHi, "targetIdHi");
        assertEquals(expected.targetIdLo, actual.targetIdLo, "targetIdLo");
        assertEquals(expected.holdTimeoutMs, actual.holdTimeoutMs, "holdTimeoutMs");
        assertEquals(expected.referenceHi, actual.referenceHi, "referenceHi");
        assertEquals(expected.referenceLo, actual.referenceLo, "referenceLo");
        assertEquals(expected.referenceLength, actual.referenceLength, "referenceLength");
        assertArrayEquals(
            Arrays.copyOf(expected.reference, expected.referenceLength),
            Arrays.copyOf(actual.reference, actual.referenceLength),
            "reference");
        assertEquals(expected.metadataLength, actual.metadataLength, "metadataLength");
        assertArrayEquals(
            Arrays.copyOf(expected.metadata.array(), expected.metadataLength),
            Arrays.copyOf(actual.metadata.array(), actual.metadataLength),
            "metadata");
    }
}
