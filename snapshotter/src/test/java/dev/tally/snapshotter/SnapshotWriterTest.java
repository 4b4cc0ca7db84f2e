package dev.tally.snapshotter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.image.StateImage;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer half of the snapshotter against real files: what the business thread does with a SNAPSHOT command
 * while the previous image is still being written, and what a write that fails leaves behind.
 */
class SnapshotWriterTest
{
    private static final long WAIT_MAX_NS = 20_000_000_000L;

    @TempDir
    Path dir;

    private final Ledger ledger = new Ledger(Workload.CONFIG);
    private final Workload workload = new Workload(11, 0);
    private long journalIndex;

    @Test
    void shouldLetASnapshotCommandThroughWithoutCopyingWhileTheImageBeforeIsBeingWritten() throws Exception
    {
        final SnapshotDirectory snapshots = SnapshotDirectory.open(dir.resolve("snapshots"), 3);
        final Snapshotter snapshotter = new Snapshotter(snapshots, 0, new SnapshotConfig(true, Long.MAX_VALUE, Long.MAX_VALUE, 3));
        snapshotter.prepare(ledger);
        applyUnits(200);
        // The writer thread's temporary file for the first snapshot, locked by another process: the real writer
        // opens (truncates) it, then blocks on the lock, in the middle of its write, until that process lets go.
        final long firstIndex = journalIndex + 1;
        final Path temp = snapshots.path().resolve(".snapshot-" + firstIndex + "-" + ProcessHandle.current().pid() + ".tmp");
        Files.write(temp, new byte[] {1, 2, 3});
        final Process holder = SnapshotDirectoryTest.holdLockInAnotherProcess(temp);
        snapshotter.start(() -> false);   // nothing scheduled: the SNAPSHOT commands come from this test
        try
        {
            applySnapshot(snapshotter);   // the business thread copies the state
            final long firstHash = ledger.stateHash();
            final long deadlineNs = System.nanoTime() + WAIT_MAX_NS;
            while (Files.size(temp) != 0 && System.nanoTime() < deadlineNs)
            {
                Thread.sleep(5);
            }
            assertEquals(0, Files.size(temp), "the writer has opened its temporary file and waits for its lock");

            applyUnits(50);
            final long secondIndex = applySnapshot(snapshotter).journalIndex;   // while the first image is in flight
            final long secondHash = ledger.stateHash();

            assertEquals(1, snapshotter.skippedCount(), "the second SNAPSHOT command is let through without a copy");
            assertEquals(firstIndex, snapshotter.image().lastJournalIndex(), "the image being written is not overwritten");
            holder.destroy();
            holder.waitFor();
            while (snapshotter.writtenIndex() != firstIndex && System.nanoTime() < deadlineNs)
            {
                Thread.sleep(5);
            }
            assertEquals(firstIndex, snapshotter.writtenIndex());
            final List<SnapshotDirectory.SnapshotFile> files = snapshots.list();
            assertEquals(1, files.size(), files::toString);
            assertEquals(firstIndex, files.get(0).journalIndex());
            final StateImage read = new StateImage();
            final SnapshotHeader header;
            try (FileChannel in = FileChannel.open(files.get(0).path(), StandardOpenOption.READ))
            {
                header = new SnapshotFormat().read(in, read);
            }
            assertEquals(firstIndex, header.lastJournalIndex());
            assertEquals(firstHash, header.stateHash(), "the file holds the state at the first SNAPSHOT command");
            assertEquals(firstHash, read.stateHash(), "its contents too, not the state at the second one");
            assertTrue(firstHash != secondHash && firstIndex != secondIndex, "the ledger moved on between the two commands");
        }
        finally
        {
            holder.destroy();
            snapshotter.close();
        }
    }

    @Test
    void shouldCountAFailedWriteBackOffAndWriteTheNextSnapshotOnceTheDiskIsBack() throws Exception
    {
        final Path folder = dir.resolve("snapshots");
        final SnapshotDirectory snapshots = SnapshotDirectory.open(folder, 3);
        final int[] published = {0};
        final Snapshotter snapshotter = new Snapshotter(snapshots, 0, new SnapshotConfig(true, Long.MAX_VALUE, Long.MAX_VALUE, 3));
        snapshotter.triggerWith(() ->
        {
            published[0]++;
            return true;
        });   // no thread: doWork() below is the writer's loop body
        snapshotter.prepare(ledger);
        applyUnits(100);
        Files.delete(folder);
        Files.createFile(folder);   // the snapshot folder is gone: a file in its place, so no file can be created in it

        final long failedIndex = applySnapshot(snapshotter).journalIndex;
        assertEquals(1, snapshotter.doWork(), "the writer took the image");

        assertEquals(1, snapshotter.failedCount(), "the failed write is counted");
        assertEquals(0, snapshotter.writtenCount());
        assertEquals(0, snapshotter.writtenIndex(), "nothing written at " + failedIndex);
        assertTrue(snapshotter.isIdle(), "the image is given back: the next SNAPSHOT command is copied again");
        snapshotter.requestNow();
        assertEquals(0, snapshotter.doWork());
        assertEquals(0, published[0], "no new snapshot asked for right after a failure: the writer backs off");

        Files.delete(folder);
        Files.createDirectory(folder);   // the disk is back
        applyUnits(20);
        final long writtenIndex = applySnapshot(snapshotter).journalIndex;   // an operator's SNAPSHOT command
        final long writtenHash = ledger.stateHash();
        assertEquals(1, snapshotter.doWork());

        assertEquals(writtenIndex, snapshotter.writtenIndex(), "the snapshotter still writes");
        assertEquals(1, snapshotter.writtenCount());
        assertEquals(1, snapshotter.failedCount());
        final List<SnapshotDirectory.SnapshotFile> files = snapshots.list();
        assertEquals(1, files.size(), files::toString);
        try (FileChannel in = FileChannel.open(files.get(0).path(), StandardOpenOption.READ))
        {
            assertEquals(writtenHash, new SnapshotFormat().read(in, new StateImage()).stateHash());
        }
    }

    private void applyUnits(final int count)
    {
        for (int unit = 0; unit < count; unit++)
        {
            for (final Command command : workload.nextUnit())
            {
                command.journalIndex = ++journalIndex;
                command.timestampNs = workload.clockNs();
                ledger.apply(command);
                workload.stamped(command);
            }
        }
    }

    /** The business thread: applies a SNAPSHOT command at the next index and reports it to the snapshotter. */
    private Command applySnapshot(final Snapshotter snapshotter)
    {
        final Command snapshot = new Command();
        snapshot.type = CommandType.SNAPSHOT;
        snapshot.journalIndex = ++journalIndex;
        snapshot.timestampNs = workload.clockNs();
        ledger.apply(snapshot);
        snapshotter.onCommand(ledger, snapshot);
        return snapshot;
    }
}
