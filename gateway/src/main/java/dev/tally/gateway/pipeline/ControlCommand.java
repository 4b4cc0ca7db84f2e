package dev.tally.gateway.pipeline;

import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.RingBuffer;
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
    static boolean tryPublish(final RingBuffer<LedgerEvent> ring, final PipelineHealth health, final CommandType type)
    {
        if (health.isHalted())
        {
            return false;
        }
        try
        {
            final long sequence = ring.tryNext();
            try
            {
                ring.get(sequence).reset(EventKind.COMMAND).command.type = type;
            }
            finally
            {
                ring.publish(sequence);
            }
            return true;
        }
        catch (final InsufficientCapacityException ex)
        {
            return false;
        }
    }
}
