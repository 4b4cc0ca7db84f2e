package dev.tally.snapshotter;

/**
 * When snapshots are taken and how many are kept, validated once at start-up.
 *
 * @param enabled          false: no snapshot is taken or loaded (restart replays the whole journal).
 * @param everyCommands    take one after this many journaled commands since the last.
 * @param intervalMs       ... or after this much wall time, when anything but ticks was journaled since the last.
 * @param retainCount      snapshots kept on disk (the newest ones).
 * @param atStop           a graceful stop writes one last snapshot, so the next start replays nothing.
 */
public record SnapshotConfig(boolean enabled, long everyCommands, long intervalMs, int retainCount, boolean atStop)
{
    public static final long EVERY_COMMANDS_DEFAULT = 5_000_000;
    public static final long INTERVAL_MS_DEFAULT = 10 * 60 * 1000;
    public static final int RETAIN_COUNT_DEFAULT = 3;

    public SnapshotConfig
    {
        if (everyCommands < 1)
        {
            throw new IllegalArgumentException("snapshot every N commands must be >= 1, was " + everyCommands);
        }
        if (intervalMs < 1)
        {
            throw new IllegalArgumentException("snapshot interval must be >= 1 ms, was " + intervalMs);
        }
        if (retainCount < 1)
        {
            throw new IllegalArgumentException("snapshots to retain must be >= 1, was " + retainCount);
        }
    }

    /** With a snapshot at a graceful stop. */
    public SnapshotConfig(final boolean enabled, final long everyCommands, final long intervalMs, final int retainCount)
    {
        this(enabled, everyCommands, intervalMs, retainCount, true);
    }

    public static SnapshotConfig defaults()
    {
        return new SnapshotConfig(true, EVERY_COMMANDS_DEFAULT, INTERVAL_MS_DEFAULT, RETAIN_COUNT_DEFAULT);
    }

    public static SnapshotConfig disabled()
    {
        return new SnapshotConfig(false, EVERY_COMMANDS_DEFAULT, INTERVAL_MS_DEFAULT, RETAIN_COUNT_DEFAULT);
    }
}
