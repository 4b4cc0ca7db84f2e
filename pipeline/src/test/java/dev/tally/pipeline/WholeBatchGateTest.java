package dev.tally.pipeline;

import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.Sequencer;
import dev.tally.ledger.command.CommandType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A real Disruptor ring, with the last stage's progress driven by hand the way {@code BatchEventProcessor}
 * publishes it: at the end of each Disruptor batch, which here falls in the middle of a request batch.
 */
class WholeBatchGateTest
{
    private static final int RING_SIZE = 16;
    private static final int REQUEST_BATCH = 8;

    private final RingBuffer<LedgerEvent> ring = RingBuffer.createSingleProducer(LedgerEvent::new, RING_SIZE);
    /** The last stage's own sequence, as its event processor would move it. */
    private final Sequence stage = new Sequence(Sequencer.INITIAL_CURSOR_VALUE);

    @Test
    void shouldKeepProducersOffARequestBatchUntilItsLastSlotHasPassed() throws Exception
    {
        final WholeBatchGate gate = new WholeBatchGate((event, sequence, endOfBatch) -> { });
        ring.addGatingSequences(stage, gate.sequence());
        fillRingWithOneRequestBatchThenTicks();

        passThroughLastStage(gate, 0, REQUEST_BATCH / 2 - 1);

        assertEquals(REQUEST_BATCH / 2, RING_SIZE - (ring.getCursor() - stage.get()),
            "the stage's own progress alone would free the first half of the batch");
        assertEquals(0, ring.remainingCapacity(), "the gate keeps it");
        assertThrows(com.lmax.disruptor.InsufficientCapacityException.class, ring::tryNext);

        passThroughLastStage(gate, REQUEST_BATCH / 2, REQUEST_BATCH - 1);

        assertEquals(REQUEST_BATCH, ring.remainingCapacity(), "the whole batch is reusable once its last slot passed");
    }

    @Test
    void shouldFreeSingleSlotsAsSoonAsTheyPass() throws Exception
    {
        final WholeBatchGate gate = new WholeBatchGate((event, sequence, endOfBatch) -> { });
        ring.addGatingSequences(stage, gate.sequence());
        fillRingWithOneRequestBatchThenTicks();
        passThroughLastStage(gate, 0, REQUEST_BATCH - 1);

        passThroughLastStage(gate, REQUEST_BATCH, REQUEST_BATCH + 2);

        assertEquals(REQUEST_BATCH + 3, ring.remainingCapacity());
    }

    @Test
    void shouldStillMoveWhenTheLastStageFails()
    {
        final ResponderStage failing = (event, sequence, endOfBatch) ->
        {
            throw new IllegalStateException("rendering failed");
        };
        final WholeBatchGate gate = new WholeBatchGate(failing);
        ring.addGatingSequences(gate.sequence());
        fillRingWithOneRequestBatchThenTicks();

        assertThrows(IllegalStateException.class, () -> gate.onEvent(ring.get(REQUEST_BATCH - 1), REQUEST_BATCH - 1, true));

        assertEquals(REQUEST_BATCH - 1, gate.sequence().get(), "a halted pipeline must not also wedge its producers");
    }

    @Test
    void shouldTreatReadsAndImmediateRepliesAsSingleSlots()
    {
        final LedgerEvent read = new LedgerEvent().reset(EventKind.READ_ACCOUNT);
        read.command.batchSize = 5;
        read.command.batchPosition = 0;

        assertEquals(42, WholeBatchGate.reusableUpTo(read, 42));
        assertEquals(42, WholeBatchGate.reusableUpTo(new LedgerEvent().reset(EventKind.IMMEDIATE_REPLY), 42));
    }

    /** Slots 0..7: one request batch of 8 operations; slots 8..15: ticks. The ring is then full. */
    private void fillRingWithOneRequestBatchThenTicks()
    {
        final long last = ring.next(REQUEST_BATCH);
        for (int position = 0; position < REQUEST_BATCH; position++)
        {
            final LedgerEvent slot = ring.get(position).reset(EventKind.COMMAND);
            slot.command.type = CommandType.TRANSFER;
            slot.command.batchSize = REQUEST_BATCH;
            slot.command.batchPosition = position;
        }
        ring.publish(0, last);
        for (int tick = REQUEST_BATCH; tick < RING_SIZE; tick++)
        {
            final long sequence = ring.next();
            ring.get(sequence).reset(EventKind.COMMAND).command.type = CommandType.TICK;
            ring.publish(sequence);
        }
        assertEquals(0, ring.remainingCapacity());
    }

    /** Slots {@code from..to} as one Disruptor batch of the last stage: end of batch at {@code to}. */
    private void passThroughLastStage(final WholeBatchGate gate, final long from, final long to) throws Exception
    {
        for (long sequence = from; sequence <= to; sequence++)
        {
            gate.onEvent(ring.get(sequence), sequence, sequence == to);
        }
        stage.set(to);
    }
}
