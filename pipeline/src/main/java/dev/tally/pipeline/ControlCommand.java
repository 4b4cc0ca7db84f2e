package dev.tally.pipeline;

import dev.tally.ledger.command.CommandType;

/**
 * Publishes a command the server makes for itself (a TICK, a SNAPSHOT): no key, no connection, journaled
 * like any other. Never waits: a full ring is full of real work, and the caller tries again later.
 */
final class ControlCommand
{
    private ControlCommand()
    {
    }

    /** @return false when the pipeline is halted or the ring is full: nothing was published. */
    static boolean tryPublish(final InputRing ring, final PipelineHealth health, final CommandType type)
    {
        return tryPublish(ring, health, EventKind.COMMAND, type);
    }

    /** Publishes an event of {@code kind} without a command (a {@link EventKind#FORCE_CHECK}), unless halted or full. */
    static boolean tryPublish(final InputRing ring, final PipelineHealth health, final EventKind kind)
    {
        return tryPublish(ring, health, kind, null);
    }

    private static boolean tryPublish(
        final InputRing ring, final PipelineHealth health, final EventKind kind, final CommandType type)
    {
        if (health.isHalted())
        {
            return false;
        }
        final long sequence = ring.tryClaim();
        if (sequence == InputRing.FULL)
        {
            return false;
        }
        try
        {
            final LedgerEvent event = ring.slot(sequence).reset(kind);
            if (type != null)
            {
                event.command.type = type;
            }
        }
        finally
        {
            ring.publish(sequence);
        }
        return true;
    }
}
