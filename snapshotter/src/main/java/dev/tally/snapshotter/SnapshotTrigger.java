package dev.tally.snapshotter;

/** Puts a SNAPSHOT command into the pipeline's input ring (the gateway's side of the snapshotter). */
@FunctionalInterface
public interface SnapshotTrigger
{
    /** @return false when the command could not be published now (a full ring): the agent retries. */
    boolean publishSnapshotCommand();
}
