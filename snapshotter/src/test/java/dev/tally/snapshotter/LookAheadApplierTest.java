package dev.tally.snapshotter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every command is applied once, in journal order, however the count falls against the window. */
class LookAheadApplierTest
{
    @ParameterizedTest
    @ValueSource(ints = {0, 1, Ledger.LOOK_AHEAD - 1, Ledger.LOOK_AHEAD, Ledger.LOOK_AHEAD + 1, 100})
    void shouldApplyEveryCommandOnceInOrder(final int count)
    {
        final List<Long> applied = new ArrayList<>();
        final LookAheadApplier applier = new LookAheadApplier(new Ledger(Workload.CONFIG), c -> applied.add(c.journalIndex));
        final Command reused = new Command();   // the journal reader hands over one reused holder
        for (long index = 1; index <= count; index++)
        {
            reused.clear();
            reused.type = CommandType.TRANSFER;
            reused.journalIndex = index;
            reused.debitAccountId = index;
            reused.creditAccountId = index + 1;
            applier.accept(reused);
        }
        applier.drain();

        final List<Long> expected = new ArrayList<>();
        for (long index = 1; index <= count; index++)
        {
            expected.add(index);
        }
        assertEquals(expected, applied);
    }
}
