package dev.tally.journal;

import static dev.tally.journal.TestCommands.assertSameCommand;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

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

        final int length = CommandCodec.writingVersion1().encode(original, buffer, 0);
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

    @Provide
    Arbitrary<Command> commands()
    {
        return Arbitraries.of(CommandType.class)
            .flatMap(type -> Arbitraries.randomValue(random -> TestCommands.sparse(type, random)));
    }
}
