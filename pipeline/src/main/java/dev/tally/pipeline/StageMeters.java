package dev.tally.pipeline;

/**
 * What the pipeline stages report about their own work, once per Disruptor batch (never per event, so
 * the cost is two {@code nanoTime} calls a batch). Implementations must not allocate or block: they run on
 * the journaler and business threads.
 */
public interface StageMeters
{
    /** Reports nothing. */
    StageMeters NONE = new StageMeters()
    {
        @Override
        public void journalBatch(final int commands, final long appendNs, final long flushNs, final long ringWaitNs)
        {
        }

        @Override
        public void businessBatch(final long busyNs)
        {
        }
    };

    /**
     * Journaler thread, after a batch holding at least one command was appended and flushed.
     *
     * @param commands   commands appended in the batch.
     * @param appendNs   from the batch's start to the last append.
     * @param flushNs    the flush at the batch's end (an fsync in {@code sync} mode: the group commit).
     * @param ringWaitNs from the receipt of the batch's oldest request on an I/O thread to the journaler
     *                   taking it: the time spent queued in the ring; negative when unknown (ticks).
     */
    void journalBatch(int commands, long appendNs, long flushNs, long ringWaitNs);

    /** Business thread, after each batch: how long it was busy with it. */
    void businessBatch(long busyNs);
}
