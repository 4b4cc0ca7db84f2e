package dev.tally.server.cli;

import dev.tally.snapshotter.SnapshotConfig;
import picocli.CommandLine;

/** How many snapshots stay on disk: one option for {@code tally serve} and {@code tally snapshot}. */
public final class SnapshotRetention
{
    @CommandLine.Option(names = "--snapshots-retained", defaultValue = "" + SnapshotConfig.RETAIN_COUNT_DEFAULT,
        description = "Snapshots kept on disk, newest first (default: ${DEFAULT-VALUE}).")
    int retainCount;
}
