package dev.tally.snapshotter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tally.journal.Durability;
import dev.tally.journal.Journal;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.result.Result;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A server's write path without the network: each unit of a {@link Workload} is stamped and appended to
 * a real journal on disk, applied to the live ledger, and handed to a {@link Snapshotter} whose writer
 * step runs inline (the same code the {@code tally-snapshotter} thread runs, minus the thread).
 */
final class JournaledRun implements AutoCloseable
{
    final Workload workload;
    final Journal journal;
    final SnapshotDirectory snapshots;
    final Snapshotter snapshotter;
    final Ledger ledger;
    /** Whether commands are journaled under the rule that a transfer's rejection names its account (see {@link #asBefore}). */
    private boolean rejectionNamesAccount = true;

    JournaledRun(final Path dataDir, final long seed, final int snapshotPercent) throws IOException
    {
        this(dataDir, seed, snapshotPercent, Journal.open(dataDir.resolve("journal"), Durability.ASYNC));
    }

    /** @param journal a journal opened on {@code dataDir/journal} (with a test clock for its file rolls). */
    JournaledRun(final Path dataDir, final long seed, final int snapshotPercent, final Journal journal) throws IOException
    {
        workload = new Workload(seed, snapshotPercent);
        this.journal = journal;
        snapshots = SnapshotDirectory.open(dataDir.resolve("snapshots"), 3);
        snapshotter = new Snapshotter(snapshots, 0, SnapshotConfig.defaults());
        ledger = new Ledger(Workload.CONFIG);
    }

    /**
     * Journals and applies every command as a binary from before {@link Command#rejectionNamesAccount} did, so that the
     * state is the one such a binary reached (files it wrote are checked in).
     */
    JournaledRun asBefore()
    {
        rejectionNamesAccount = false;
        return this;
    }

    /** Appends and applies {@code count} units. */
    void run(final int count) throws IOException
    {
        for (int i = 0; i < count; i++)
        {
            for (final Command c : workload.nextUnit())
            {
                append(c);
                ledger.apply(c);
                snapshotter.onCommand(ledger, c);
                snapshotter.doWork();
            }
            journal.endOfBatch();
        }
    }

    /** Appends a SNAPSHOT command, applies it, and writes the snapshot it marks. */
    void snapshotAtNextIndex()
    {
        final Command c = new Command();
        c.type = dev.tally.ledger.command.CommandType.SNAPSHOT;
        append(c);
        ledger.apply(c);
        snapshotter.onCommand(ledger, c);
        snapshotter.doWork();
        journal.endOfBatch();
    }

    /**
     * Appends {@code count} more units and applies each to both the live ledger and {@code other}: every
     * result and the state hash after every unit must be the same.
     */
    void runInLockstep(final int count, final Ledger other)
    {
        for (int i = 0; i < count; i++)
        {
            final List<Command> unit = workload.nextUnit();
            for (final Command c : unit)
            {
                append(c);
                ledger.apply(c);
                other.apply(c);
            }
            for (int position = 0; position < unit.size(); position++)
            {
                assertSameResult(ledger.result(position), other.result(position));
            }
            assertEquals(ledger.stateHash(), other.stateHash(), "state hash after journal index " + ledger.lastJournalIndex());
        }
    }

    private void append(final Command c)
    {
        c.rejectionNamesAccount = rejectionNamesAccount;
        journal.stampAndAppend(c, workload.clockNs());
        workload.stamped(c);
    }

    /** Every field a client could see, replayed flag included: equal arrays, equal replies. */
    static void assertSameResult(final Result expected, final Result actual)
    {
        assertArrayEquals(visible(expected), visible(actual), () -> "expected " + expected + " but was " + actual);
    }

    private static long[] visible(final Result r)
    {
        return new long[] {r.code.ordinal(), r.replayed ? 1 : 0, r.type == null ? -1 : r.type.ordinal(), r.originIndex,
            r.originTimestampNs, r.accountA, r.accountB, r.amountMinor, r.extra, r.extraTimestampNs, r.currency};
    }

    @Override
    public void close()
    {
        journal.close();
    }
}
