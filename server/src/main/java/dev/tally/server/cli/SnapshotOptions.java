package dev.tally.server.cli;

import dev.tally.snapshotter.SnapshotConfig;
import picocli.CommandLine;

/** When {@code tally serve} takes snapshots and how many it keeps (docs/SNAPSHOTS.md). */
public final class SnapshotOptions
{
    @CommandLine.Option(names = "--snapshot-every-commands", defaultValue = "" + SnapshotConfig.EVERY_COMMANDS_DEFAULT,
        description = "Take a snapshot after this many journaled commands (default: ${DEFAULT-VALUE}).")
    long everyCommands;

    @CommandLine.Option(names = "--snapshot-interval-ms", defaultValue = "" + SnapshotConfig.INTERVAL_MS_DEFAULT,
        description = "... or this long after the last one, when anything but ticks was journaled since (default: ${DEFAULT-VALUE}).")
    long intervalMs;

    @CommandLine.Mixin
    SnapshotRetention retention = new SnapshotRetention();

    @CommandLine.Option(names = "--no-snapshot-at-stop",
        description = "A graceful stop (SIGTERM) writes no last snapshot; the next start replays the journal after the newest one.")
    boolean noSnapshotAtStop;

    @CommandLine.Option(names = "--no-snapshots", description = "Neither take nor load snapshots: restart replays the whole journal.")
    boolean disabled;

    /** @return the validated snapshot configuration. */
    public SnapshotConfig toConfig()
    {
        // the flags' own names, so that `tally serve` reports them like every other setting (exit 2)
        if (everyCommands < 1)
        {
            throw new IllegalArgumentException("--snapshot-every-commands must be >= 1, was " + everyCommands);
        }
        if (intervalMs < 1)
        {
            throw new IllegalArgumentException("--snapshot-interval-ms must be >= 1, was " + intervalMs);
        }
        if (retention.retainCount < 1)
        {
            throw new IllegalArgumentException("--snapshots-retained must be >= 1, was " + retention.retainCount);
        }
        return new SnapshotConfig(!disabled, everyCommands, intervalMs, retention.retainCount, !noSnapshotAtStop);
    }
}
