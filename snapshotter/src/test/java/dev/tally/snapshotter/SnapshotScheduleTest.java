package dev.tally.snapshotter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.image.StateImage;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the snapshotter asks for a SNAPSHOT command, driven by hand: {@code doWork()} is the agent's loop
 * body, {@code onCommand} what the business thread reports. The trigger only counts what it is asked.
 */
class SnapshotScheduleTest
{
    private static final long INTERVAL_MS = 1;

    @TempDir
    Path dir;

    private final AtomicInteger published = new AtomicInteger();
    private final Ledger ledger = new Ledger(Workload.CONFIG);
    private long journalIndex;

    @Test
    void shouldNotSnapshotAnIdleServerWhoseJournalHoldsOnlyTicks() throws Exception
    {
        final Snapshotter snapshotter = scheduledEveryMillisecond();

        applied(snapshotter, CommandType.TICK, 5);
        Thread.sleep(5 * INTERVAL_MS);
        snapshotter.doWork();

        assertEquals(0, published.get(), "ticks alone change nothing worth a snapshot");
    }

    @Test
    void shouldSnapshotAfterTheIntervalOnceSomethingButTicksWasJournaled() throws Exception
    {
        final Snapshotter snapshotter = scheduledEveryMillisecond();

        applied(snapshotter, CommandType.TICK, 2);
        applied(snapshotter, CommandType.TRANSFER, 1);
        Thread.sleep(5 * INTERVAL_MS);
        snapshotter.doWork();

        assertEquals(1, published.get());
    }

    @Test
    void shouldCoverTheCommandsReplayedAtStartUpEvenWhenOnlyTicksFollow() throws Exception
    {
        // Started from a snapshot at 10; the start-up replay brought the ledger to 1,000 without onCommand.
        final Ledger recovered = new Ledger(Workload.CONFIG);
        final Command tick = new Command();
        for (long index = 1; index <= 1_000; index++)
        {
            tick.clear();
            tick.type = CommandType.TICK;
            tick.journalIndex = index;
            tick.timestampNs = Workload.START_NS + index;
            recovered.apply(tick);
        }
        journalIndex = 1_000;
        final Snapshotter snapshotter = scheduledEveryMillisecond(10);
        snapshotter.prepare(recovered);

        applied(snapshotter, CommandType.TICK, 3);
        Thread.sleep(5 * INTERVAL_MS);
        snapshotter.doWork();

        assertEquals(1, published.get(), "990 commands since the snapshot it started from are in no snapshot yet");
    }

    @Test
    void shouldGrowTheImageBeforeAskingForASnapshotSoThatTheBusinessThreadsCopyDoesNotAllocate() throws Exception
    {
        final Ledger live = new Ledger(Workload.CONFIG);
        final Snapshotter snapshotter = scheduledEveryMillisecond();
        snapshotter.prepare(live);   // the image sized for an empty ledger
        final Workload workload = new Workload(7, 0);
        for (int unit = 0; unit < 400; unit++)
        {
            for (final Command command : workload.nextUnit())
            {
                command.journalIndex = ++journalIndex;
                command.timestampNs = workload.clockNs();
                live.apply(command);
                workload.stamped(command);
            }
        }
        applied(snapshotter, CommandType.TRANSFER, 1);
        Thread.sleep(5 * INTERVAL_MS);

        snapshotter.doWork();   // the snapshotter's thread: due, so it sizes the image, then asks
        assertEquals(1, published.get());
        final StateImage image = snapshotter.image();
        final Object[] reserved = {image.accountRecords().values(), image.keys().values(), image.transfers().values(),
            image.transferReferenceText().values(), image.holds().values()};
        final Command snapshot = new Command();
        snapshot.type = CommandType.SNAPSHOT;
        snapshot.journalIndex = ++journalIndex;
        snapshot.timestampNs = workload.clockNs();
        live.apply(snapshot);
        snapshotter.onCommand(live, snapshot);   // the business thread: the copy

        final Object[] copied = {image.accountRecords().values(), image.keys().values(), image.transfers().values(),
            image.transferReferenceText().values(), image.holds().values()};
        for (int i = 0; i < reserved.length; i++)
        {
            assertTrue(reserved[i] == copied[i], "section " + i + " reallocated on the business thread");
        }
        assertTrue(image.keys().length() > 0 && image.transfers().length() > 0, "the workload left keys and transfers to copy");
        assertEquals(live.stateHash(), image.stateHash());
    }

    @Test
    void shouldWriteAnImageOnlyOnceTheJournalHasForcedItsCommand() throws Exception
    {
        final Ledger live = new Ledger(Workload.CONFIG);
        final Snapshotter snapshotter = scheduledEveryMillisecond();
        final java.util.concurrent.atomic.AtomicLong stable = new java.util.concurrent.atomic.AtomicLong();
        snapshotter.writeOnlyOnceStable(stable::get);
        snapshotter.prepare(live);
        snapshotTakenAtFirstCommand(live, snapshotter);   // the business thread copies while the journaler forces

        assertEquals(0, snapshotter.doWork(), "not forced yet: nothing written");
        assertEquals(0, snapshotter.writtenIndex());
        assertTrue(!snapshotter.isIdle(), "the image waits, reserved");

        stable.set(1);
        assertEquals(1, snapshotter.doWork());
        assertEquals(1, snapshotter.writtenIndex(), "written once forced");
        assertEquals(1, SnapshotDirectory.open(dir, 3).list().size());
    }

    @Test
    void shouldDropAnImageWhoseCommandTheJournalNeverForces() throws Exception
    {
        final Ledger live = new Ledger(Workload.CONFIG);
        final Snapshotter snapshotter = scheduledEveryMillisecond();
        snapshotter.writeOnlyOnceStable(() -> 0);   // a failed force: the stable index never moves again
        snapshotter.prepare(live);
        snapshotTakenAtFirstCommand(live, snapshotter);

        assertEquals(0, snapshotter.doWork());
        final long deadlineNs = System.nanoTime() + Snapshotter.STABLE_WAIT_MAX_NS + 5_000_000_000L;
        while (!snapshotter.isIdle() && System.nanoTime() < deadlineNs)
        {
            snapshotter.doWork();
            Thread.sleep(100);
        }
        assertTrue(snapshotter.isIdle(), "dropped after the wait, so that a stop does not wait 30 s for it");
        assertEquals(0, snapshotter.writtenIndex());
        assertEquals(1, snapshotter.failedCount());
        assertEquals(0, SnapshotDirectory.open(dir, 3).list().size());
    }

    private static void snapshotTakenAtFirstCommand(final Ledger live, final Snapshotter snapshotter)
    {
        final Command snapshot = new Command();
        snapshot.type = CommandType.SNAPSHOT;
        snapshot.journalIndex = 1;
        snapshot.timestampNs = Workload.START_NS;
        live.apply(snapshot);
        snapshotter.onCommand(live, snapshot);
    }

    private Snapshotter scheduledEveryMillisecond() throws Exception
    {
        return scheduledEveryMillisecond(0);
    }

    private Snapshotter scheduledEveryMillisecond(final long startedFromSnapshotIndex) throws Exception
    {
        final Snapshotter snapshotter = new Snapshotter(SnapshotDirectory.open(dir, 3), startedFromSnapshotIndex,
            new SnapshotConfig(true, Long.MAX_VALUE, INTERVAL_MS, 3));
        snapshotter.triggerWith(() ->
        {
            published.incrementAndGet();
            return true;
        });
        return snapshotter;
    }

    private void applied(final Snapshotter snapshotter, final CommandType type, final int count)
    {
        final Command command = new Command();
        for (int i = 0; i < count; i++)
        {
            command.clear();
            command.type = type;
            command.journalIndex = ++journalIndex;
            snapshotter.onCommand(ledger, command);
        }
    }
}
