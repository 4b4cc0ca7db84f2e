package dev.tally.pipeline;

import com.lmax.disruptor.RingBuffer;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.command.Command;

/**
 * Stage 2, THE business-logic thread: applies journaled commands to the {@link Ledger} and answers
 * reads from memory. Deterministic (it reads nothing but the journaled command) and allocation-free.
 *
 * <p>A batch occupies consecutive slots; results of an atomic batch are final only after its last
 * operation, so they are copied back into every slot of the batch at that point. The responder only
 * replies on a batch's last slot, after this handler's sequence has passed it.
 *
 * <p>At the end of each Disruptor batch it publishes the ledger's figures ({@link Ledger#publishStats()}), which
 * metrics read from their own thread instead of the ledger's tables.
 */
final class BusinessStage extends ChainedStage
{
    private static final int PREFETCH_GROUP = 8;

    private final Ledger ledger;
    private final RingBuffer<LedgerEvent> ring;
    private final PipelineHealth health;
    /** The fan-out of each completed unit, in order. */
    private final UnitListener[] fanOut;
    private final StageMeters meters;
    private long batchStartNs;

    BusinessStage(
        final Ledger ledger, final RingBuffer<LedgerEvent> ring, final PipelineHealth health, final UnitListener[] fanOut,
        final StageMeters meters, final StageHandoff handoff)
    {
        super(handoff);
        this.ledger = ledger;
        this.ring = ring;
        this.health = health;
        this.fanOut = fanOut;
        this.meters = meters;
    }

    @Override
    public void onBatchStart(final long batchSize, final long queueDepth)
    {
        batchStartNs = System.nanoTime();
        batchStarts(batchSize);
        prefetch(batchFirstSequence());
    }

    @Override
    public void onEvent(final LedgerEvent event, final long sequence, final boolean endOfBatch)
    {
        handling(sequence);
        if ((sequence - batchFirstSequence()) % PREFETCH_GROUP == 0)
        {
            prefetch(sequence + PREFETCH_GROUP); // one group ahead of the one starting here
        }
        handle(event, sequence);
        if (endOfBatch)
        {
            ledger.publishStats();   // before the release: a reply never leaves ahead of the figures that count it
            meters.businessBatch(System.nanoTime() - batchStartNs);
            handoff.release(sequence);
        }
    }

    /**
     * Issues the cache misses of the next {@value #PREFETCH_GROUP} commands of the batch (from {@code from}) back
     * to back, so that they overlap one another: Java has no non-blocking prefetch, and a transfer's own loads,
     * issued at its start, wait about two memory latencies (an index bucket, then the record) per command.
     * Reads only; the slots are journaled, so the business thread may read them.
     */
    private void prefetch(final long from)
    {
        final long to = Math.min(from + PREFETCH_GROUP - 1, batchLastSequence());
        for (long s = from; s <= to; s++)
        {
            final LedgerEvent next = ring.get(s);
            if (next.kind == EventKind.COMMAND)
            {
                ledger.prefetch(next.command);
            }
        }
    }

    private void handle(final LedgerEvent event, final long sequence)
    {
        switch (event.kind)
        {
            case COMMAND:
                applyCommand(event, sequence);
                break;
            case READ_ACCOUNT:
                ledger.readAccount(event.readAccountId, event.command.tenantId, event.accountView);
                break;
            case READ_TRANSFER:
                ledger.readTransfer(event.command.targetIdHi, event.command.targetIdLo, event.command.tenantId, event.transferView);
                break;
            case READ_ENTRIES:
                event.readAsOfJournalIndex = ledger.lastJournalIndex();   // the read model answers once it has this much
                break;
            default:
                break;
        }
    }

    private void applyCommand(final LedgerEvent event, final long sequence)
    {
        final Command command = event.command;
        if (event.journalFailed)
        {
            event.result.clear();   // never journaled: never applied, now or at a restart
            return;
        }
        if (health.isHalted())
        {
            // Journaled, but the pipeline halted before this thread reached it: a restart's replay applies it.
            event.result.clear();
            event.journaledNotApplied = true;
            return;
        }
        try
        {
            ledger.apply(command);
        }
        catch (final RuntimeException ex)
        {
            // An invariant violation or a bug: stop rather than build on a state we cannot trust.
            health.halt("business thread failed at journal index " + command.journalIndex, ex);
            event.journalFailed = true;
            return;
        }
        if (command.isLastOfBatch())
        {
            final int size = command.batchSize;
            final long first = sequence - (size - 1);
            for (int position = 0; position < size; position++)
            {
                ring.get(first + position).result.copyFrom(ledger.result(position));
            }
        }
        if (ledger.isUnitComplete())
        {
            try
            {
                for (final UnitListener listener : fanOut)
                {
                    listener.onUnit(ledger, command);
                }
            }
            catch (final RuntimeException ex)
            {
                // The read model could not take the unit (its writer failed, or its ring stayed full): the command is
                // journaled and applied, and its reply (copied above) says so; what follows waits for a restart, whose
                // replay gives PostgreSQL everything from its watermark on.
                health.halt("the PostgreSQL read model could not take journal index " + command.journalIndex, ex);
            }
        }
    }
}
