package dev.tally.snapshotter;

import dev.tally.ledger.command.Command;

/**
 * Checks the first replayed record against the snapshot: it must be the record the snapshot was taken
 * at (same journal index, same journaled time). That record is already in the snapshot's state, so it
 * is not applied; every later one is.
 */
final class SnapshotAnchor
{
    private final SnapshotHeader header;
    private boolean found;

    SnapshotAnchor(final SnapshotHeader header)
    {
        this.header = header;
    }

    /** @return true when the command is past the snapshot and must be applied. */
    boolean accept(final Command command)
    {
        if (found)
        {
            return true;
        }
        if (command.journalIndex != header.lastJournalIndex() || command.timestampNs != header.timestampNs())
        {
            throw new MismatchException("journal record " + command.journalIndex + " at time " + command.timestampNs +
                ", snapshot at " + header.lastJournalIndex() + " time " + header.timestampNs());
        }
        found = true;
        return false;
    }

    boolean found()
    {
        return found;
    }

    /** Ends the replay early: the journal is not the one the snapshot was taken from. */
    static final class MismatchException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        MismatchException(final String message)
        {
            super(message, null, false, false);
        }
    }
}
