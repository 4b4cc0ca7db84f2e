package dev.tally.snapshotter;

/**
 * What a snapshot file says about itself, read and checked before its sections.
 *
 * @param formatVersion    {@link SnapshotFormat#VERSION} when written by this code.
 * @param lastJournalIndex the journal index of the last command the state includes.
 * @param timestampNs      journaled time of that command: checked against the journal on restart.
 * @param stateHash        {@code Ledger.stateHash()} of the state: checked after restore.
 */
public record SnapshotHeader(int formatVersion, long lastJournalIndex, long timestampNs, long stateHash)
{
}
