package dev.tally.gateway.pipeline;

import java.util.concurrent.TimeUnit;

import com.lmax.disruptor.RingBuffer;
import dev.tally.journal.Journal;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage 1: stamps each command with Tally's journal index and a monotonic journaled time, and appends
 * it to the journal. At the end of each Disruptor batch the journal is flushed (in {@code sync} mode,
 * forced to stable storage): one force per batch is the group commit that makes {@code sync} affordable.
 * In {@code async} mode the batch end forces once {@code asyncForceIntervalMs} has passed since the last
 * force (the ticks end a batch at least every tick interval, so an idle journal is forced too).
 * The business thread only sees a command after this handler's sequence has passed it, so nothing is
 * applied, and no reply leaves, before its command is in the journal.
 */
final class JournalHandler extends HandingOffStage
{
    private static final Logger LOG = LoggerFactory.getLogger(JournalHandler.class);
    /** How long the reference check is retried before the batch is journaled without it. */
    private static final long REFERENCE_CHECK_PATIENCE_NS = TimeUnit.SECONDS.toNanos(5);

    private final Journal journal;
    private final RingBuffer<LedgerEvent> ring;
    /** Null when there is no store to ask (no read model). */
    private final ReferenceCheck referenceCheck;
    private final Command[] referenced;
    /** Ring sequences: the last event handled, the last of the batch under way, the last one checked. */
    private long lastSequence = -1;
    private long batchLastSequence = -1;
    private long checkedThrough = -1;
    private final PipelineHealth health;
    private final StageMeters meters;
    private long batchStartNs;
    private long oldestReceivedNs;
    private int batchCommands;

    JournalHandler(
        final Journal journal, final RingBuffer<LedgerEvent> ring, final ReferenceCheck referenceCheck, final PipelineHealth health,
        final StageMeters meters, final StageHandoff handoff)
    {
        super(handoff);
        this.journal = journal;
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
        batchLastSequence = lastSequence + batchSize;
    }

    @Override
    public void onEvent(final LedgerEvent event, final long sequence, final boolean endOfBatch)
    {
        lastSequence = sequence;
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
            if (health.isHalted())
            {
                event.journalFailed = true;
            }
            else
            {
                try
                {
                    journal.stampAndAppend(event.command, System.currentTimeMillis() * 1_000_000L);
                }
                catch (final RuntimeException ex)
                {
                    event.journalFailed = true;
                    health.halt("journal append failed", ex);
                }
            }
        }
        if (endOfBatch && !health.isHalted())
        {
            final long appendedNs = System.nanoTime();
            try
            {
                journal.endOfBatch(); // sync: the group commit's force; async: a force once its interval has passed
            }
            catch (final RuntimeException ex)
            {
                health.halt("journal flush failed", ex);
            }
            if (batchCommands > 0)
            {
                meters.journalBatch(batchCommands, appendedNs - batchStartNs, System.nanoTime() - appendedNs,
                    oldestReceivedNs == 0 ? -1 : batchStartNs - oldestReceivedNs);
            }
        }
        if (endOfBatch)
        {
            handoff.release(sequence);   // journaled (forced, in sync mode): the business thread may go on
        }
    }

    private static boolean hasReference(final LedgerEvent event)
    {
        return event.kind == EventKind.COMMAND && event.command.type == CommandType.TRANSFER && event.command.hasReference();
    }

    /**
     * Asks the store about every referenced transfer from {@code from} to the end of the batch, in one round trip,
     * before any of them is journaled. Retried for {@link #REFERENCE_CHECK_PATIENCE_NS}; past that (PostgreSQL down:
     * the gateway sheds writes once the writer lags anyway) the batch is journaled unmarked and only the writer's
     * UNIQUE constraint stands behind an old reference, as before the check existed.
     */
    private void checkReferences(final long from)
    {
        int count = 0;
        for (long s = from; s <= batchLastSequence; s++)
        {
            final LedgerEvent next = ring.get(s);
            if (hasReference(next))
            {
                referenced[count++] = next.command;
            }
        }
        checkedThrough = batchLastSequence;
        final long giveUpNs = System.nanoTime() + REFERENCE_CHECK_PATIENCE_NS;
        long backoffMs = 10;
        while (true)
        {
            try
            {
                referenceCheck.markTaken(referenced, count);
                break;
            }
            catch (final Exception ex)
            {
                if (System.nanoTime() - giveUpNs >= 0 || health.isHalted())
                {
                    LOG.error("reference check failed for {} transfers; journaling them without it", count, ex);
                    break;
                }
                LOG.warn("reference check failed, retrying in {} ms: {}", backoffMs, ex.toString());
                sleepMs(backoffMs);
                backoffMs = Math.min(500, backoffMs * 2);
            }
        }
        java.util.Arrays.fill(referenced, 0, count, null);
    }

    private static void sleepMs(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
