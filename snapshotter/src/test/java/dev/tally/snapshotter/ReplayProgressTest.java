package dev.tally.snapshotter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tally.ledger.command.Command;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplayProgressTest
{
    @Test
    void shouldReportTheIndexReachedOncePerIntervalAndPassEveryCommandOn()
    {
        final List<long[]> reports = new ArrayList<>();
        final long[] passedOn = new long[1];
        final ReplayProgress progress = ReplayProgress.every(0, (index, commands, elapsedNs) -> reports.add(new long[]{index, commands}),
            (ledger, command) -> passedOn[0]++);
        final Command command = new Command();
        for (long index = 1; index <= 200_000; index++)
        {
            command.journalIndex = index;
            progress.accept(null, command);
        }
        progress.accept(null, null);   // the empty unit of a torn atomic batch: passed on, not counted

        assertEquals(200_001, passedOn[0]);
        assertEquals(3, reports.size(), "one look per 65,536 commands, each past the interval of 0");
        assertEquals(65_536, reports.get(0)[0]);
        assertEquals(196_608, reports.get(2)[1]);
    }

    @Test
    void shouldStaySilentWithinTheInterval()
    {
        final List<long[]> reports = new ArrayList<>();
        final ReplayProgress progress = ReplayProgress.every(Long.MAX_VALUE, (index, commands, elapsedNs) -> reports.add(new long[]{index}),
            (ledger, command) -> { });
        final Command command = new Command();
        for (long index = 1; index <= 200_000; index++)
        {
            command.journalIndex = index;
            progress.accept(null, command);
        }
        assertEquals(0, reports.size());
    }
}
