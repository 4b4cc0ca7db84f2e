package dev.tally.snapshotter;

/**
 * Pauses that crash tests inject to kill a server at a chosen moment: while a snapshot is being written
 * (its temporary file complete, not yet renamed) or while one is being loaded. Read once from system
 * properties; both are 0, and cost nothing, unless a test sets them.
 */
final class SnapshotFaults
{
    /** {@code -Dtally.test.snapshotWritePauseMs}: pause before the rename that publishes a snapshot. */
    static final long WRITE_PAUSE_MS = Long.getLong("tally.test.snapshotWritePauseMs", 0);
    /** {@code -Dtally.test.snapshotLoadPauseMs}: pause after reading a snapshot, before restoring it. */
    static final long LOAD_PAUSE_MS = Long.getLong("tally.test.snapshotLoadPauseMs", 0);

    private SnapshotFaults()
    {
    }

    static void pause(final long ms)
    {
        if (ms <= 0)
        {
            return;
        }
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
