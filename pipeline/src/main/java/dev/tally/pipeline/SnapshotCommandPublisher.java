package dev.tally.pipeline;

import dev.tally.ledger.command.CommandType;
import dev.tally.snapshotter.SnapshotTrigger;

/**
 * Publishes a SNAPSHOT command into the input ring for the snapshotter: journaled like a tick, so the
 * snapshot is taken at an exact journal index, between two units, and a replay meets it at the same
 * place. Never waits: on a full ring it reports failure and the snapshotter tries again later.
 */
public final class SnapshotCommandPublisher implements SnapshotTrigger
{
    private final InputRing ring;
    private final PipelineHealth health;

    public SnapshotCommandPublisher(final InputRing ring, final PipelineHealth health)
    {
        this.ring = ring;
        this.health = health;
    }

    @Override
    public boolean publishSnapshotCommand()
    {
        return ControlCommand.tryPublish(ring, health, CommandType.SNAPSHOT);
    }
}
