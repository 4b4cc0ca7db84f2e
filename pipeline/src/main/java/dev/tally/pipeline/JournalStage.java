package dev.tally.pipeline;

import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;
import dev.tally.journal.Durability;
import dev.tally.journal.CommandLog;
import dev.tally.journal.Journal;
import org.agrona.concurrent.EpochNanoClock;

/**
 * Stage 1: stamps each command with Tally's journal index and a monotonic journaled time, and stages it for the
 * journal; at the end of each Disruptor batch it appends what it staged as one journal document (a few, for a batch
 * beyond {@link Journal#DOCUMENT_BYTES_MAX}), so a 100-transfer request costs Chronicle one document, not 100. Then
 * it releases the batch to the business thread
 * (appended, stamped: what the ledger needs), then flushes the journal (in {@code sync} mode, forces it to
 * stable storage: one force per batch is the group commit that makes {@code sync} affordable), and only
 * then advances {@code journaled}, the sequence the responder waits for besides the business thread's. So
 * the business thread applies a batch while its force runs, and still no reply leaves before its command
 * is in the journal; what the business thread hands to PostgreSQL waits for the force too (the writer takes
 * only units up to {@link dev.tally.journal.Journal#stableIndex()}). In {@code async} mode {@code journaled}
 * advances before the batch end, whose force (once {@code asyncForceIntervalMs} has passed since the last one;
 * {@link EventKind#FORCE_CHECK} slots end a batch every half interval, so the last appends are forced too)
 * then delays no reply. With a {@link ColdCheck}, each command is stamped with the cold index's watermark and what
 * the cold index holds for it before it is journaled.
 */
final class JournalStage extends ChainedStage
{
    private final CommandLog journal;
    /** The wall clock stamped on each command (epoch ns; the journal keeps time monotonic). */
    private final EpochNanoClock clock;
    private final RingBuffer<LedgerEvent> ring;
    /** Null without a cold index: the watermark stays 0, and memory lets nothing go. */
    private final ColdCheck cold;
    private final PipelineHealth health;
    private final StageMeters meters;
    /** The last ring sequence whose command is journaled as the durability mode asks (forced, in sync mode). */
    private final Sequence journaled;
    /** Sync: replies wait for the batch's force. Async: for its appends only (a timed force runs after they left). */
    private final boolean repliesWaitForForce;
    /** Once a force failed, memory may hold commands the journal does not: every later slot is answered 503. */
    private boolean forceFailed;
    /** The first ring sequence whose command waits in the journal's next document; -1 while none does. */
    private long stagedFromSequence = -1;
    /** The last ring sequence whose cold lookups were prefetched ({@link ColdCheck#prefetch}). */
    private long prefetchedThrough = -1;
    private long batchStartNs;
    private long oldestReceivedNs;
    private int batchCommands;

    JournalStage(
        final CommandLog journal, final EpochNanoClock clock, final RingBuffer<LedgerEvent> ring, final ColdCheck cold, final PipelineHealth health,
        final StageMeters meters, final StageHandoff handoff, final Sequence journaled)
    {
        super(handoff);
        this.journaled = journaled;
        this.repliesWaitForForce = journal.durability() == Durability.SYNC;
        this.journal = journal;
        this.clock = clock;
        this.ring = ring;
        this.cold = cold;
        this.health = health;
        this.meters = meters;
    }

    @Override
    public void onBatchStart(final long batchSize, final long queueDepth)
    {
        batchStartNs = System.nanoTime();
        oldestReceivedNs = 0;
        batchCommands = 0;
        batchStarts(batchSize);
        if (cold != null)
        {
            cold.beginBatch();
        }
    }

    @Override
    public void onEvent(final LedgerEvent event, final long sequence, final boolean endOfBatch)
    {
        handling(sequence);
        if (forceFailed)
        {
            event.notDurable = true;
        }
        if (event.kind == EventKind.COMMAND)
        {
            batchCommands++;
            if (oldestReceivedNs == 0)
            {
                oldestReceivedNs = event.receivedNs;
            }
            if (!health.isHalted() && journal.stagingFull())
            {
                appendStaged(sequence - 1);   // may fail and halt: then this command must not start a document of its own
            }
            if (health.isHalted())
            {
                event.journalFailed = true;
            }
            else
            {
                try
                {
                    if (cold != null)
                    {
                        if (sequence > prefetchedThrough)
                        {
                            prefetchedThrough = cold.prefetch(ring, sequence, batchLastSequence());
                        }
                        cold.prepare(event.command, journal.nextIndex());
                    }
                    journal.stampAndStage(event.command, clock.nanoTime());
                    if (stagedFromSequence < 0)
                    {
                        stagedFromSequence = sequence;
                    }
                }
                catch (final RuntimeException ex)
                {
                    event.journalFailed = true;
                    health.halt("journal append failed", ex);
                }
            }
        }
        if (endOfBatch)
        {
            appendStaged(sequence);      // the batch's commands as one document (or a few, for a large batch)
            handoff.release(sequence);   // appended: the business thread applies the batch while it is forced
            if (!repliesWaitForForce)
            {
                handoff.releaseJournaled(journaled, sequence);   // async: appended is the promise, a timed force delays no reply
            }
            if (!forceFailed)
            {
                // Even when a halt came meanwhile: the business thread may have applied part of the batch before it.
                forceBatch(sequence);
            }
            if (repliesWaitForForce)
            {
                handoff.releaseJournaled(journaled, sequence);   // sync: forced, replies may leave
            }
        }
    }

    /**
     * Appends the commands staged since {@link #stagedFromSequence}, up to {@code lastSequence}, as one journal
     * document. When the queue refuses it none of them is journaled: each is answered 503, and the pipeline halts.
     */
    private void appendStaged(final long lastSequence)
    {
        if (stagedFromSequence < 0)
        {
            return;
        }
        try
        {
            journal.appendStaged();
        }
        catch (final RuntimeException ex)
        {
            for (long s = stagedFromSequence; s <= lastSequence; s++)
            {
                final LedgerEvent staged = ring.get(s);
                if (staged.kind == EventKind.COMMAND)
                {
                    staged.journalFailed = true;
                }
            }
            health.halt("journal append failed", ex);
        }
        stagedFromSequence = -1;
    }

    private void forceBatch(final long sequence)
    {
        final long appendedNs = System.nanoTime();
        try
        {
            journal.endOfBatch(); // sync: the group commit's force; async: a force once its interval has passed
        }
        catch (final RuntimeException ex)
        {
            // The business thread may have applied these already; none of them may be answered as done.
            forceFailed = true;
            if (repliesWaitForForce)
            {
                // Not yet released to the responder. (Under async they were, their promise kept: appended.)
                for (long s = batchFirstSequence(); s <= sequence; s++)
                {
                    ring.get(s).notDurable = true;
                }
            }
            health.halt("journal flush failed", ex);
        }
        if (batchCommands > 0)
        {
            meters.journalBatch(batchCommands, appendedNs - batchStartNs, System.nanoTime() - appendedNs,
                oldestReceivedNs == 0 ? -1 : batchStartNs - oldestReceivedNs);
        }
    }
}
