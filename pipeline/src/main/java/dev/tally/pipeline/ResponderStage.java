package dev.tally.pipeline;

/**
 * Stage 3, the last: renders and writes each slot's reply once the business stage applied it AND the journal stage
 * journaled it as the durability mode promises. The gateway provides it (HTTP today); the pipeline calls it on the
 * responder thread, in ring order, and reuses a request batch's slots only once it has passed the batch's last slot
 * ({@link WholeBatchGate}).
 */
@FunctionalInterface
public interface ResponderStage
{
    /**
     * @param event      the slot, with its command, result or read views, and where its reply goes.
     * @param sequence   the slot's ring sequence: a batch's reply is on its last slot, its operations at the sequences before.
     * @param endOfBatch the last slot the stage sees before it waits again: where replies are flushed.
     * @throws Exception a failure halts the pipeline.
     */
    void onEvent(LedgerEvent event, long sequence, boolean endOfBatch) throws Exception;
}
