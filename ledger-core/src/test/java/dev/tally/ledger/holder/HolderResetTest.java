package dev.tally.ledger.holder;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.result.Result;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The reusable holders store a reference field only when its value changes (so that G1 marks no card for it);
 * these tests pin down that the holders still carry nothing over: reset, clear and copyFrom leave exactly the
 * fields a fresh holder or the source has, whether the type changes or not.
 */
class HolderResetTest
{
    private static final List<String> NONE = List.of();

    @ParameterizedTest
    @EnumSource(CommandType.class)
    void commandResetLeavesAFreshCommandOfTheType(final CommandType type) throws Exception
    {
        assertResetLeavesAFreshHolderOfTheType(Command::new, Command::reset, (c, t) -> c.type = t, type);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void commandClearLeavesAFreshCommand(final int seed) throws Exception
    {
        assertEquals(NONE, HolderFields.differences(HolderFields.fill(new Command(), Command::new, seed).clear(), new Command()));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void commandCopyFromCopiesEveryFieldAndTheReferenceText(final int seed) throws Exception
    {
        final Command source = HolderFields.fill(new Command(), Command::new, seed);
        source.referenceLength = 5;
        System.arraycopy("ab-12".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, source.reference, 0, 5);
        source.metadata("{\"a\":\"\"}".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 7);
        for (final int previous : new int[] {seed, seed + 1}) // the same type before, then another one
        {
            final Command target = HolderFields.fill(new Command(), Command::new, previous).copyFrom(source);
            assertEquals(NONE, HolderFields.differences(target, source), "previous " + previous);
            assertArrayEquals(Arrays.copyOf(source.reference, 5), Arrays.copyOf(target.reference, 5));
            assertArrayEquals(Arrays.copyOf(source.metadata.array(), 7), Arrays.copyOf(target.metadata.array(), 7));
        }
        source.metadata(null, 0);
        final Command neverCarried = new Command().copyFrom(source);
        assertEquals(0, neverCarried.metadataLength);
        assertEquals(0, neverCarried.metadata.array().length,
            "a holder that never carried metadata has no array for it: pre-allocated commands stay close together");
    }

    @ParameterizedTest
    @EnumSource(CommandType.class)
    void resultResetLeavesAFreshResultOfTheType(final CommandType type) throws Exception
    {
        assertResetLeavesAFreshHolderOfTheType(Result::new, Result::reset, (r, t) -> r.type = t, type);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void resultClearAndCopyFrom(final int seed) throws Exception
    {
        assertEquals(NONE, HolderFields.differences(HolderFields.fill(new Result(), Result::new, seed).clear(), new Result()));
        final Result source = HolderFields.fill(new Result(), Result::new, seed);
        for (final int previous : new int[] {seed, seed + 1})
        {
            final Result target = HolderFields.fill(new Result(), Result::new, previous);
            assertSame(target, target.copyFrom(source));
            assertEquals(NONE, HolderFields.differences(target, source), "previous " + previous);
        }
    }

    /** Whatever the holder held before (the same type or another), reset leaves a fresh holder of {@code type}. */
    private static <T> void assertResetLeavesAFreshHolderOfTheType(
        final Supplier<T> fresh, final BiFunction<T, CommandType, T> reset, final BiConsumer<T, CommandType> setType,
        final CommandType type) throws Exception
    {
        for (int seed = 0; seed < CommandType.values().length; seed++)
        {
            final T reused = reset.apply(HolderFields.fill(fresh.get(), fresh, seed), type);
            final T expected = fresh.get();
            setType.accept(expected, type);
            assertEquals(NONE, HolderFields.differences(reused, expected), "seed " + seed);
        }
    }
}
