package dev.tally.pipeline;

import dev.tally.ledger.command.CommandType;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Publishes a TICK command at a fixed interval. Ticks are journaled like any command, so hold expiry
 * and key retention advance with journaled time and replay expires exactly the same things at exactly
 * the same place. When the ring is full the tick is skipped: the next one carries later time anyway.
 */
final class TickPublisher implements AutoCloseable
{
    private final InputRing ring;
    private final PipelineHealth health;
    private final ScheduledExecutorService scheduler;

    /** @param forceCheckIntervalMs how often to publish a {@link EventKind#FORCE_CHECK}; 0 for never. */
    TickPublisher(final InputRing ring, final PipelineHealth health, final long intervalMs, final long forceCheckIntervalMs)
    {
        this.ring = ring;
        this.health = health;
        scheduler = Executors.newSingleThreadScheduledExecutor(runnable ->
        {
            final Thread thread = new Thread(runnable, "tally-ticker");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.scheduleAtFixedRate(this::tick, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
        if (forceCheckIntervalMs > 0)
        {
            scheduler.scheduleAtFixedRate(() -> ControlCommand.tryPublish(ring, health, EventKind.FORCE_CHECK),
                forceCheckIntervalMs, forceCheckIntervalMs, TimeUnit.MILLISECONDS);
        }
    }

    private void tick()
    {
        // A full ring is full of real work; time will advance with the next tick.
        ControlCommand.tryPublish(ring, health, CommandType.TICK);
    }

    @Override
    public void close()
    {
        scheduler.shutdownNow();
        try
        {
            // A tick being published now finishes before the pipeline's drain starts: none lands after it.
            scheduler.awaitTermination(CLOSE_WAIT_MAX_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static final long CLOSE_WAIT_MAX_MS = 2_000;
}
