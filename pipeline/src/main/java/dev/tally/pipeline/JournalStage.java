package dev.tally.pipeline;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;
import dev.tally.journal.Durability;
import dev.tally.journal.CommandLog;
import dev.tally.journal.Journal;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import org.agrona.concurrent.EpochNanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * then delays no reply. With a {@link ReferenceCheck}, referenced transfers are checked against older
 * references first.
 */
final class JournalStage extends ChainedStage
{
    private static final Logger LOG = LoggerFactory.getLogger(JournalStage.class);
    /** After a failed reference check, how long referenced transfers are refused without asking: doubling from ... */
    static final long REFERENCE_CHECK_PAUSE_MIN_NS = TimeUnit.SECONDS.toNanos(1);
    /** ... to this, so that a store that hangs costs the whole pipeline one timeout per pause at most. */
    static final long REFERENCE_CHECK_PAUSE_MAX_NS = TimeUnit.SECONDS.toNanos(30);

    private final CommandLog journal;
    /** The wall clock stamped on each command (epoch ns; the journal keeps time monotonic). */
    private final EpochNanoClock clock;
    private final RingBuffer<LedgerEvent> ring;
    /** Null when there is no store to ask (no read model). */
    private final ReferenceCheck referenceCheck;
    private final Command[] referenced;
    /** The last ring sequence whose reference, if any, has been checked. */
    private long checkedThrough = -1;
    private long checkPausedUntilNs = System.nanoTime();
    private long checkPauseNs = REFERENCE_CHECK_PAUSE_MIN_NS;
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
    private long batchStartNs;
    private long oldestReceivedNs;
    private int batchCommands;

    JournalStage(
        final CommandLog journal, final EpochNanoClock clock, final RingBuffer<LedgerEvent> ring, final ReferenceCheck referenceCheck, final PipelineHealth health,
        final StageMeters meters, final StageHandoff handoff, final Sequence journaled)
    {
        super(handoff);
        this.journaled = journaled;
        this.repliesWaitForForce = journal.durability() == Durability.SYNC;
        this.journal = journal;
        this.clock = clock;
        this.ring = ring;
        this.referenceCheck = referenceCheck;
        this.referenced = referenceCheck == null ? null : new Command[ring.getBufferSize()];
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
    }

    @Override
    public void onEvent(final LedgerEvent event, final long sequence, final boolean endOfBatch)
    {
        handling(sequence);
        if (forceFailed)
        {
            event.notDurable = true;
        }
        if (referenceCheck != null && sequence > checkedThrough && hasReference(event))
        {
            checkReferences(sequence);
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

    private static boolean hasReference(final LedgerEvent event)
    {
        return event.kind == EventKind.COMMAND && event.command.type == CommandType.TRANSFER && event.command.hasReference();
    }

    /**
     * Asks the store about every referenced transfer from {@code from} to the end of the batch, in one round trip,
     * before any of them is journaled. When it cannot answer, those transfers are journaled as unchecked (the
     * ledger refuses them with 503 {@code reference-check-unavailable}, not stored: a retry is decided afresh),
     * and so are the referenced transfers of the following pause (1 s, doubling to 30 s while it keeps failing),
     * without asking: a store that is down or hangs never stalls the pipeline for more than one attempt per pause,
     * and never lets an old reference through to the writer's UNIQUE constraint.
     */
    private void checkReferences(final long from)
    {
        int count = 0;
        for (long s = from; s <= batchLastSequence(); s++)
        {
            final LedgerEvent next = ring.get(s);
            if (hasReference(next))
            {
                referenced[count++] = next.command;
            }
        }
        checkedThrough = batchLastSequence();
        if (System.nanoTime() - checkPausedUntilNs < 0)
        {
            markUnchecked(count);
        }
        else
        {
            try
            {
                referenceCheck.markTaken(referenced, count);
                checkPauseNs = REFERENCE_CHECK_PAUSE_MIN_NS;
            }
            catch (final Exception ex)
            {
                markUnchecked(count);
                checkPausedUntilNs = System.nanoTime() + checkPauseNs;
                LOG.error("reference check failed: transfers with a reference are refused (503 reference-check-unavailable) " +
                    "for the next {} ms", TimeUnit.NANOSECONDS.toMillis(checkPauseNs), ex);
                checkPauseNs = Math.min(REFERENCE_CHECK_PAUSE_MAX_NS, 2 * checkPauseNs);
            }
        }
        Arrays.fill(referenced, 0, count, null);
    }

    private void markUnchecked(final int count)
    {
        for (int i = 0; i < count; i++)
        {
            referenced[i].referenceUnchecked = true;
        }
    }
}
