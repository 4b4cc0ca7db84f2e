package dev.tally.ledger;

import static dev.tally.ledger.ResultAssertions.assertSameBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tally.ledger.LedgerModelTest.Action;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.effect.EffectLog;
import dev.tally.ledger.image.StateImage;
import dev.tally.ledger.result.Result;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The snapshot property, in memory: run a random journal (the model test's generator: every command
 * type, retries, reused keys, atomic and plain batches, ticks that expire keys and holds), copy the
 * ledger into a {@link StateImage} at a random unit boundary, restore a fresh ledger from it, then apply
 * the rest of the journal to both. Every result body, every unit's effects and the state hash after
 * every command must be the same: restore + replay is indistinguishable from never stopping.
 */
class LedgerSnapshotSymmetryTest
{
    private static final LedgerConfig CONFIG = LedgerModelTest.CONFIG;

    @Property(tries = 300, edgeCases = EdgeCasesMode.NONE)
    void shouldBehaveAfterRestoreExactlyAsWithoutInterruption(
        @ForAll("sequences") final List<Action> actions, @ForAll @IntRange(min = 0, max = 1_000_000) final int cutSeed,
        @ForAll final boolean evicting)
    {
        // Evicting: tables smaller than their windows, so the image holds what memory kept of a cold-backed state, the
        // transfers reversals keep until the cold index holds them included.
        final LedgerConfig config = evicting ? LedgerModelTest.EVICTING : CONFIG;
        final List<Command> journal = journalOf(actions, config);
        final Ledger original = new Ledger(config);
        int next = applyUpToACut(journal, original, cutSeed);
        final StateImage image = new StateImage();
        original.copyTo(image);
        assertEquals(original.stateHash(), image.stateHash(), "image hash at the cut");
        final Ledger restored = Ledger.restore(config, image);
        assertEquals(original.stateHash(), restored.stateHash(), "restored hash at the cut");

        for (; next < journal.size(); next++)
        {
            final Command c = applyToBoth(journal.get(next), original, restored);
            assertEquals(original.stateHash(), restored.stateHash(), "state hash after journal index " + c.journalIndex);
        }
        original.endReplay();
        restored.endReplay();
        assertEquals(original.stateHash(), restored.stateHash(), "state hash at the end");

        // The same image object, reused for a second, bigger state: no stale values from the first copy.
        original.copyTo(image);
        assertEquals(original.stateHash(), Ledger.restore(config, image).stateHash(), "hash after reusing the image");
    }

    /**
     * Capacity is a tuning knob: a snapshot restored into keys, references and transfers tables of another size (larger,
     * or smaller down to what the cold index's lag and a batch need: the test's index trails by at most 15 commands,
     * batches hold at most 6) decides every later command exactly as the ledger that took it. A table too small keeps
     * the newest items; an expired key is expired wherever it is.
     */
    @Property(tries = 200, edgeCases = EdgeCasesMode.NONE)
    void shouldDecideAlikeAfterRestoreIntoTablesOfAnotherSize(
        @ForAll("sequences") final List<Action> actions, @ForAll @IntRange(min = 0, max = 1_000_000) final int cutSeed,
        @ForAll @IntRange(min = 24, max = 256) final int tableSize)
    {
        final LedgerConfig config = LedgerModelTest.EVICTING;
        final List<Command> journal = journalOf(actions, config);
        final Ledger original = new Ledger(config);
        int next = applyUpToACut(journal, original, cutSeed);
        final StateImage image = new StateImage();
        original.copyTo(image);
        final LedgerConfig resized = new LedgerConfig(config.accountsMax(), config.subBalancesMax(), tableSize, tableSize,
            tableSize, config.holdsMax(), config.keyRetentionMs(), config.referenceRetentionMs(), config.reversalWindowMs(),
            config.expiriesPerTickMax());
        final Ledger restored = Ledger.restoreAnySize(resized, image);

        for (; next < journal.size(); next++)
        {
            applyToBoth(journal.get(next), original, restored);
        }
    }

    @Provide
    Arbitrary<List<Action>> sequences()
    {
        return new LedgerModelTest().sequences();
    }

    @Test
    void shouldChangeNothingButThePositionOnSnapshotCommand()
    {
        final Ledger ledger = new Ledger(CONFIG);
        final Command snapshot = new Command();
        snapshot.type = CommandType.SNAPSHOT;
        snapshot.journalIndex = 7;
        snapshot.timestampNs = 1_000;
        final Result result = ledger.apply(snapshot);
        assertEquals(dev.tally.ledger.result.ResultCode.OK, result.code);
        final Ledger expected = new Ledger(CONFIG);
        final StateImage image = new StateImage();
        expected.copyTo(image);
        image.position(7, 1_000, 1, 0);
        assertEquals(image.stateHash(), ledger.stateHash());
    }

    @Test
    void shouldCopyIntoAReusedImageWithoutAllocating()
    {
        final Commands commands = new Commands();
        final Ledger ledger = new Ledger(CONFIG);
        ledger.apply(commands.createFundingAccount("funding", 1));
        ledger.apply(commands.createHotAccount("hot", 2, 8));
        for (int i = 0; i < 40; i++)
        {
            ledger.apply(commands.createAccount("account-" + i, 10 + i));
            ledger.apply(commands.transfer("transfer-" + i, 1, 10 + i, 500, "ref-" + i));
            ledger.apply(commands.hold("hold-" + i, 10 + i, 100, 60_000));
        }
        final StateImage image = new StateImage();
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 2_000; i++)
        {
            ledger.copyTo(image);
        }
        final long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 10_000; i++)
        {
            ledger.copyTo(image);
        }
        final long allocatedBytes = threads.getCurrentThreadAllocatedBytes() - before;
        // Sporadic runtime noise is a few hundred bytes; an allocation per copy would be >= 160,000.
        org.junit.jupiter.api.Assertions.assertTrue(allocatedBytes < 10_000,
            "allocated " + allocatedBytes + " bytes for 10,000 copies into the same image");
        assertEquals(ledger.stateHash(), image.stateHash());
    }

    @Test
    void shouldCopyWithoutAllocatingIntoAnImageReservedAheadForTheStateNow()
    {
        final Commands commands = new Commands();
        final Ledger ledger = new Ledger(CONFIG);
        ledger.apply(commands.createFundingAccount("funding", 1));
        final StateImage image = new StateImage();
        ledger.copyTo(image);   // sized for a ledger of one account
        for (int i = 0; i < 40; i++)
        {
            ledger.apply(commands.createAccount("account-" + i, 10 + i));
            ledger.apply(commands.transfer("transfer-" + i, 1, 10 + i, 500, "ref-" + i));
            ledger.apply(commands.hold("hold-" + i, 10 + i, 100, 60_000));
        }

        ledger.reserveImage(image);   // the snapshotter's thread, before it asks for the snapshot
        final Object[] reserved = sectionArrays(image);
        ledger.copyTo(image);         // the business thread

        final Object[] copied = sectionArrays(image);
        for (int i = 0; i < reserved.length; i++)
        {
            org.junit.jupiter.api.Assertions.assertTrue(reserved[i] == copied[i], "section " + i + " was reallocated by the copy");
        }
        assertEquals(ledger.stateHash(), image.stateHash());
        final StateImage fresh = new StateImage();
        ledger.copyTo(fresh);
        assertEquals(fresh.stateHash(), image.stateHash());
        final Ledger restored = Ledger.restore(CONFIG, image);
        assertEquals(ledger.stateHash(), restored.stateHash());
    }

    private static Object[] sectionArrays(final StateImage image)
    {
        return new Object[] {image.accountRecords().values(), image.subBalancePairs().values(), image.keys().values(),
            image.references().values(), image.transfers().values(), image.transferReferenceLos().values(),
            image.transferReferenceText().values(), image.holds().values()};
    }

    @Test
    void shouldRefuseToRestoreIntoAnotherConfiguration()
    {
        final StateImage image = new StateImage();
        new Ledger(CONFIG).copyTo(image);
        final LedgerConfig other = CONFIG.withRetention(1, 1, 1);
        assertThrows(IllegalArgumentException.class, () -> Ledger.restore(other, image));
    }

    /** Applies {@code c} to both ledgers; at a unit's end, every result body, replayed flag and effect must be the same. */
    private static Command applyToBoth(final Command c, final Ledger original, final Ledger restored)
    {
        original.apply(c);
        restored.apply(c);
        if (c.isLastOfBatch())
        {
            for (int position = 0; position < c.batchSize; position++)
            {
                assertSameBody(original.result(position), restored.result(position));
                assertEquals(original.result(position).replayed, restored.result(position).replayed,
                    "replayed, journal index " + c.journalIndex);
            }
            assertSameEffects(original.effects(), restored.effects());
        }
        return c;
    }

    /** Applies the journal up to a unit boundary picked by {@code cutSeed}; @return the index of the next command. */
    private static int applyUpToACut(final List<Command> journal, final Ledger ledger, final int cutSeed)
    {
        final int cutAfter = cutSeed % (journal.size() + 1);
        int next = 0;
        while (next < journal.size() && (next < cutAfter || ledger.isInsideBatch()))
        {
            ledger.apply(journal.get(next++));
        }
        return next;
    }

    /** Runs the actions through the model test's checked run and returns every command it applied. */
    private static List<Command> journalOf(final List<Action> actions, final LedgerConfig config)
    {
        final LedgerModelTest.Run run = new LedgerModelTest.Run(config);
        run.preamble();
        for (final Action action : actions)
        {
            run.execute(action);
        }
        return run.journal;
    }

    private static void assertSameEffects(final EffectLog expected, final EffectLog actual)
    {
        assertEquals(expected.entryCount(), actual.entryCount(), "entries");
        for (int i = 0; i < expected.entryCount(); i++)
        {
            assertEquals(expected.entryCommandIndex(i), actual.entryCommandIndex(i));
            assertEquals(expected.entryAccount(i), actual.entryAccount(i));
            assertEquals(expected.entryAmount(i), actual.entryAmount(i));
            assertEquals(expected.entryTransferIndex(i), actual.entryTransferIndex(i));
            assertEquals(expected.entryKind(i), actual.entryKind(i));
            assertEquals(expected.entryBalanceAfter(i), actual.entryBalanceAfter(i), "running balance after a restore");
        }
        assertEquals(expected.balanceCount(), actual.balanceCount(), "balances");
        for (int i = 0; i < expected.balanceCount(); i++)
        {
            assertEquals(expected.balanceAccount(i), actual.balanceAccount(i));
            assertEquals(expected.balanceSub(i), actual.balanceSub(i));
            assertEquals(expected.balancePosted(i), actual.balancePosted(i));
            assertEquals(expected.balanceHeld(i), actual.balanceHeld(i));
        }
        assertEquals(expected.eventCount(), actual.eventCount(), "events");
        for (int i = 0; i < expected.eventCount(); i++)
        {
            assertEquals(expected.eventType(i), actual.eventType(i));
            assertEquals(expected.eventSubject(i), actual.eventSubject(i));
        }
    }
}
