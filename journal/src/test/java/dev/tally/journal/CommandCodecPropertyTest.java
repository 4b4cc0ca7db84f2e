package dev.tally.journal;

import static dev.tally.journal.TestCommands.assertSameCommand;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.agrona.concurrent.UnsafeBuffer;

class CommandCodecPropertyTest
{
    private final CommandCodec codec = new CommandCodec();

    @Property(tries = 2_000)
    void shouldRoundTripAnyCommand(@ForAll("commands") final Command original, @ForAll @IntRange(max = 64) final int offset)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[offset + CommandCodec.ENCODED_LENGTH_MAX]);

        final int length = codec.encode(original, buffer, offset);
        final Command decoded = TestCommands.random(CommandType.TRANSFER, new java.util.Random(length));   // a used holder

        assertEquals(CommandCodec.encodedLength(original), length);
        assertEquals(DecodeStatus.OK, codec.decode(buffer, offset, length, decoded));
        assertSameCommand(original, decoded);
    }

    @Property(tries = 1_000)
    void shouldStillReadAnyCommandWrittenInLayoutVersion1(@ForAll("commands") final Command original)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[CommandCodec.ENCODED_LENGTH_MAX]);

        final int length = new Layout1Writer().encode(original, buffer, 0);
        final Command decoded = new Command();

        assertEquals(DecodeStatus.OK, codec.decode(buffer, 0, length, decoded));
        assertSameCommand(original, decoded);
    }

    @Property(tries = 2_000)
    void shouldNeverAcceptARecordWithOneCorruptedByte(
        @ForAll("commands") final Command original,
        @ForAll @IntRange(max = CommandCodec.ENCODED_LENGTH_MAX - 1) final int position,
        @ForAll @IntRange(min = 1, max = 255) final int xor)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[CommandCodec.ENCODED_LENGTH_MAX]);
        final int length = codec.encode(original, buffer, 0);
        final int corrupted = position % length;
        buffer.putByte(corrupted, (byte)(buffer.getByte(corrupted) ^ xor));

        assertNotEquals(DecodeStatus.OK, codec.decode(buffer, 0, length, new Command()));
    }

    /** Commands one after another in one document, each sharing some of what a batch shares with the one before. */
    @Property(tries = 500)
    void shouldRoundTripAnyRunOfFollowingRecords(@ForAll("runs") final List<Command> run)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[run.size() * CommandCodec.ENCODED_LENGTH_MAX]);
        final int[] offsets = new int[run.size() + 1];
        for (int i = 0; i < run.size(); i++)
        {
            final int length = i == 0 ? codec.encode(run.get(i), buffer, offsets[i]) : codec.encodeFollowing(run.get(i), buffer, offsets[i]);
            assertTrue(length <= CommandCodec.encodedLength(run.get(i)));
            offsets[i + 1] = offsets[i] + length;
        }
        final CommandCodec reader = new CommandCodec();
        final Command decoded = new Command();
        for (int i = 0; i < run.size(); i++)
        {
            final int available = offsets[run.size()] - offsets[i];
            final DecodeStatus status = i == 0 ?
                reader.decode(buffer, offsets[i], available, decoded) : reader.decodeFollowing(buffer, offsets[i], available, decoded);
            assertEquals(DecodeStatus.OK, status, "record " + i);
            assertSameCommand(run.get(i), decoded);
        }
    }

    @Provide
    Arbitrary<List<Command>> runs()
    {
        return Arbitraries.randomValue(random ->
        {
            final List<Command> run = new ArrayList<>();
            final CommandType[] types = CommandType.values();
            final int length = 1 + random.nextInt(8);
            for (int i = 0; i < length; i++)
            {
                final Command command = TestCommands.sparse(types[random.nextInt(types.length)], random);
                if (i > 0)
                {
                    final Command before = run.get(i - 1);
                    command.journalIndex = random.nextBoolean() ? before.journalIndex + 1 : command.journalIndex;
                    command.timestampNs = random.nextBoolean() ? before.timestampNs : command.timestampNs;
                    command.tenantId = random.nextBoolean() ? before.tenantId : command.tenantId;
                    command.batchSize = random.nextBoolean() ? before.batchSize : command.batchSize;
                    command.currency = random.nextBoolean() ? before.currency : command.currency;
                }
                run.add(command);
            }
            return run;
        });
    }

    @Provide
    Arbitrary<Command> commands()
    {
        return Arbitraries.of(CommandType.class)
            .flatMap(type -> Arbitraries.randomValue(random -> TestCommands.sparse(type, random)));
    }
}
