package dev.tally.snapshotter;

import dev.tally.journal.ReplayResult;
import dev.tally.ledger.Ledger;
import java.nio.file.Path;

/**
 * A ledger rebuilt at start-up, and how.
 *
 * @param ledger        caught up with the journal ({@code endReplay} done).
 * @param snapshotIndex journal index of the snapshot it started from, 0 for a full replay.
 * @param snapshotPath  that snapshot's file, or null.
 * @param replay        what the replay of the journal after it found.
 * @param loadMs        time to read and restore the snapshot.
 * @param replayMs      time to replay the journal after it.
 * @param endedInsideBatch true when the journal ends inside a batch (settled by {@code endReplay}: a
 *                      crash cut it short, or a running server is still writing it).
 */
public record RecoveredLedger(
    Ledger ledger, long snapshotIndex, Path snapshotPath, ReplayResult replay, long loadMs, long replayMs, boolean endedInsideBatch)
{
}
