package dev.tally.ledger.hold;

import dev.tally.ledger.StateDigest;
import dev.tally.ledger.batch.UndoLog;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HoldTableTest
{
    private final UndoLog undo = new UndoLog(1_000);

    private static int add(final HoldTable holds, final long journalIndex, final long deadlineNs)
    {
        return holds.add(journalIndex, journalIndex * 10, 1, 100 + journalIndex, journalIndex * 7, 840, deadlineNs);
    }

    private static long digest(final HoldTable holds)
    {
        final StateDigest digest = new StateDigest();
        holds.digest(digest);
        return digest.value();
    }

    @Test
    void shouldGiveEarliestDeadlineFirstAndBreakTiesByJournalIndex()
    {
        final HoldTable holds = new HoldTable(8, undo);
        add(holds, 1, 50);
        add(holds, 2, 10);
        add(holds, 3, 30);
        add(holds, 4, 10);
        add(holds, 5, 40);

        final List<Long> order = new ArrayList<>();
        while (holds.earliest() >= 0)
        {
            final int slot = holds.earliest();
            order.add(holds.journalIndex(slot));
            holds.remove(slot);
        }

        assertEquals(List.of(2L, 4L, 3L, 5L, 1L), order);
        assertEquals(0, holds.size());
    }

    @Test
    void shouldTakeUnknownHoldOutOfExpiryOrderButKeepItLive()
    {
        final HoldTable holds = new HoldTable(8, undo);
        final int first = add(holds, 1, 10);
        add(holds, 2, 20);

        holds.markUnknown(first);

        assertEquals(2, holds.journalIndex(holds.earliest()));
        assertEquals(2, holds.size());
        assertEquals(1, holds.unknownCount());
        assertEquals(HoldTable.UNKNOWN, holds.status(holds.find(1)));
        holds.remove(first);
        assertEquals(0, holds.unknownCount());
        assertEquals(-1, holds.find(1));
    }

    @Test
    void shouldRunOutOfRoomAtCapacity()
    {
        final HoldTable holds = new HoldTable(2, undo);
        final int first = add(holds, 1, 10);
        add(holds, 2, 20);

        assertFalse(holds.hasRoom());
        holds.remove(first);
        assertTrue(holds.hasRoom());
    }

    @Test
    void shouldPutBackWhatAnOpenBatchChangedEvenWhenItCreatedAHoldAfterRemovingOne()
    {
        final HoldTable holds = new HoldTable(4, undo);
        final int captured = add(holds, 1, 10);
        final int unknown = add(holds, 2, 20);
        final long before = digest(holds);

        undo.begin();
        holds.remove(captured);
        final int created = add(holds, 3, 5);
        holds.markUnknown(unknown);
        assertNotEquals(captured, created, "a slot freed inside the batch keeps its fields for the rollback");
        rollBack(holds);

        assertEquals(before, digest(holds));
        assertEquals(1, holds.journalIndex(holds.find(1)));
        assertEquals(101, holds.accountId(holds.find(1)));
        assertEquals(-1, holds.find(3));
        assertEquals(1, holds.journalIndex(holds.earliest()));
        assertEquals(0, holds.unknownCount());
        assertEquals(2, holds.size());
    }

    @Test
    void shouldReuseSlotsFreedByABatchOnceItEnds()
    {
        final HoldTable holds = new HoldTable(1, undo);
        final int only = add(holds, 1, 10);

        undo.begin();
        holds.remove(only);
        assertFalse(holds.hasRoom(), "not while the batch may still roll back");
        holds.endBatch();
        undo.end();

        assertTrue(holds.hasRoom());
        assertEquals(only, add(holds, 2, 20));
    }

    /** Walks the undo log backwards, as the ledger does for a failed atomic batch. */
    private void rollBack(final HoldTable holds)
    {
        for (int i = undo.size() - 1; i >= 0; i--)
        {
            final int slot = (int)undo.operand(i, 0);
            switch (undo.kind(i))
            {
                case UndoLog.HOLD_ADDED: holds.undoAdd(slot); break;
                case UndoLog.HOLD_REMOVED: holds.undoRemove(slot, (byte)undo.operand(i, 1)); break;
                case UndoLog.HOLD_STATUS: holds.undoStatus(slot, (byte)undo.operand(i, 1)); break;
                default: throw new AssertionError("unexpected undo record " + undo.kind(i));
            }
        }
        holds.endBatch();
        undo.end();
    }

    /** One step: 0 add, 1 remove a live hold, 2 mark a live hold unknown, 3 remove the earliest. */
    record Op(int kind, int pick, long deadline)
    {
    }

    @Provide
    Arbitrary<List<Op>> operations()
    {
        final Arbitrary<Op> op = Combinators.combine(
                Arbitraries.frequency(Tuple.of(4, 0), Tuple.of(2, 1), Tuple.of(1, 2),
                    Tuple.of(2, 3)),
                Arbitraries.integers().between(0, 1_000), Arbitraries.longs().between(0, 20))
            .as(Op::new);
        return op.list().ofMinSize(1).ofMaxSize(200);
    }

    /** A live hold as the model sees it. */
    record Live(long index, long deadline, boolean unknown)
    {
    }

    @Property(tries = 200)
    void shouldAlwaysGiveTheEarliestActiveHoldAndTheOldestUnknownWhateverLeavesTheHeaps(@ForAll("operations") final List<Op> ops)
    {
        final HoldTable holds = new HoldTable(32, undo);
        final List<Live> model = new ArrayList<>();
        long nextIndex = 1;
        for (final Op op : ops)
        {
            if (op.kind() == 0 && holds.hasRoom())
            {
                add(holds, nextIndex, op.deadline());
                model.add(new Live(nextIndex++, op.deadline(), false));
            }
            else if (op.kind() == 1 && !model.isEmpty())
            {
                final Live gone = model.remove(op.pick() % model.size());
                holds.remove(holds.find(gone.index()));
            }
            else if (op.kind() == 2 && !model.isEmpty())
            {
                final int i = op.pick() % model.size();
                final Live marked = model.get(i);
                if (!marked.unknown())
                {
                    holds.markUnknown(holds.find(marked.index()));
                    model.set(i, new Live(marked.index(), marked.deadline(), true));
                }
            }
            else if (op.kind() == 3 && holds.earliest() >= 0)
            {
                final long index = holds.journalIndex(holds.earliest());
                model.removeIf(h -> h.index() == index);
                holds.remove(holds.earliest());
            }
            final Live expected = model.stream().filter(h -> !h.unknown())
                .min(Comparator.comparingLong(Live::deadline).thenComparingLong(Live::index)).orElse(null);
            final int earliest = holds.earliest();
            assertEquals(expected == null ? -1 : expected.index(), earliest < 0 ? -1 : holds.journalIndex(earliest));
            assertEquals(model.size(), holds.size());
            assertEquals(model.stream().filter(Live::unknown).count(), holds.unknownCount());
            assertEquals(model.stream().filter(Live::unknown).mapToLong(h -> h.index() * 10).min().orElse(0),
                holds.oldestUnknownTimestampNs(), "the oldest unknown hold's time (add() stamps index x 10)");
        }
    }
}
