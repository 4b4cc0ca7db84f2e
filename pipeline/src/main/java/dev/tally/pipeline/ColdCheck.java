package dev.tally.pipeline;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import com.lmax.disruptor.RingBuffer;
import dev.tally.ledger.cold.ColdAsks;
import dev.tally.ledger.cold.ColdLookup;
import dev.tally.ledger.cold.ColdSource;
import dev.tally.ledger.command.Command;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The journal stage's side of the cold index (docs/ARCHITECTURE.md, "Bounded memory"): per Disruptor batch it reads the
 * watermark once, and before each command is journaled it stamps the command with it and looks up what the ledger may
 * have let go ({@link ColdLookup}), so that the business thread, which never reads the cold index, finds the answers in
 * the command and a replay decides as the first run did.
 *
 * <p>It also keeps the cold index close enough behind: a request whose last command would be more than {@code lagMax}
 * commands past the watermark is refused whole ({@link Command#coldUnchecked}: the ledger answers 503
 * {@code cold-index-unavailable} and stores nothing), so memory never holds more than that many items it may not let go
 * of yet, and the tables, sized above it, never fill. A lookup that fails refuses its command the same way, and the
 * commands of the following pause (1 s, doubling to 30 s while lookups keep failing) without asking: a failing disk
 * costs one attempt per pause, never a stall.
 *
 * <p>Lookups go to the cold index together: {@link #prefetch} asks for the keys and references of the next commands of
 * the batch (up to {@link ColdAsks#CAPACITY}) in one {@code multiGet}, right after the watermark is read, and each
 * command's lookup then takes its answer. Journal stage thread only; allocation-free here (RocksJava allocates a list
 * per prefetch).
 */
public final class ColdCheck
{
    private static final Logger LOG = LoggerFactory.getLogger(ColdCheck.class);
    private static final long PAUSE_MIN_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long PAUSE_MAX_NS = TimeUnit.SECONDS.toNanos(30);
    private static final long REFUSAL_LOG_INTERVAL_NS = TimeUnit.SECONDS.toNanos(10);

    private final LongSupplier watermark;
    private final ColdSource source;
    private final long lagMax;
    private final ColdLookup lookup = new ColdLookup();
    private final ColdAsks asks = new ColdAsks();
    private long batchWatermark;
    /** True from a refused request's first command to its last. */
    private boolean refusingRequest;
    private long pausedUntilNs = System.nanoTime();
    private long pauseNs = PAUSE_MIN_NS;
    private long lastRefusalLogNs = System.nanoTime() - REFUSAL_LOG_INTERVAL_NS;

    // figures: written by the journal stage, read by any thread
    private volatile long lookups;
    private volatile long lookupNanos;
    private volatile long lookupFailures;
    private volatile long refusedBehind;
    private volatile long refusedUnavailable;

    /**
     * @param watermark the cold index's watermark (a volatile read).
     * @param source    lookups, for this thread alone.
     * @param lagMax    commands the watermark may be behind a journaled command.
     */
    public ColdCheck(final LongSupplier watermark, final ColdSource source, final long lagMax)
    {
        if (lagMax < 1)
        {
            throw new IllegalArgumentException("lagMax must be > 0: " + lagMax);
        }
        this.watermark = watermark;
        this.source = source;
        this.lagMax = lagMax;
    }

    /** Reads the watermark the batch's commands are stamped with: once, so that they all carry the same. */
    void beginBatch()
    {
        batchWatermark = watermark.getAsLong();
    }

    /**
     * Looks up together what the commands of ring sequences {@code from} to {@code to} will ask, as far as
     * {@link ColdAsks#CAPACITY} allows; their {@link #prepare} calls take the answers.
     *
     * @return the last sequence whose asks were prefetched; a command after it needs another prefetch.
     */
    long prefetch(final RingBuffer<LedgerEvent> ring, final long from, final long to)
    {
        asks.clear();
        long last = to;
        // While lookups are paused nothing is asked; the empty prefetch still drops the last batch's answers, which
        // were read before an older watermark and must never answer a command stamped with this one.
        final boolean paused = System.nanoTime() - pausedUntilNs < 0;
        for (long s = from; s <= to && !paused; s++)
        {
            final LedgerEvent event = ring.get(s);
            if (event.kind == EventKind.COMMAND && !ColdLookup.ask(event.command, batchWatermark, asks))
            {
                last = s - 1;
                break;
            }
        }
        final long startNs = System.nanoTime();
        try
        {
            source.prefetch(asks);
        }
        catch (final RuntimeException ex)
        {
            failed(ex);
        }
        lookupNanos += System.nanoTime() - startNs;
        return last;
    }

    /**
     * Stamps {@code c}, about to be journaled at {@code nextIndex}, with the watermark and what the cold index holds
     * for it, or refuses it.
     */
    void prepare(final Command c, final long nextIndex)
    {
        if (c.batchPosition == 0)
        {
            refusingRequest = nextIndex + c.batchSize - 1 - batchWatermark > lagMax && c.type.isKeyed();
            if (refusingRequest)
            {
                logRefusal("is " + (nextIndex - batchWatermark) + " commands behind (at most " + lagMax + ")");
            }
        }
        if (refusingRequest)
        {
            refusedBehind++;
            c.coldWatermark = batchWatermark;
            c.coldUnchecked = true;
            return;
        }
        if (System.nanoTime() - pausedUntilNs < 0)
        {
            c.coldWatermark = batchWatermark;
            c.coldUnchecked = c.type.isKeyed();
            refusedUnavailable += c.coldUnchecked ? 1 : 0;
            return;
        }
        final long startNs = System.nanoTime();
        try
        {
            lookup.prepare(c, batchWatermark, source);
            pauseNs = PAUSE_MIN_NS;
        }
        catch (final RuntimeException ex)
        {
            c.coldKeyFound = false;
            c.coldTransferFound = false;
            c.coldUnchecked = true;
            refusedUnavailable++;
            failed(ex);
        }
        lookups++;
        lookupNanos += System.nanoTime() - startNs;
    }

    /** A lookup failed: keyed commands are refused, without asking, for the pause that starts now. */
    private void failed(final RuntimeException ex)
    {
        lookupFailures++;
        pausedUntilNs = System.nanoTime() + pauseNs;
        LOG.error("cold index lookup failed: keyed commands are refused (503 cold-index-unavailable) for the next {} ms",
            TimeUnit.NANOSECONDS.toMillis(pauseNs), ex);
        pauseNs = Math.min(PAUSE_MAX_NS, 2 * pauseNs);
    }

    private void logRefusal(final String why)
    {
        final long now = System.nanoTime();
        if (now - lastRefusalLogNs >= REFUSAL_LOG_INTERVAL_NS)
        {
            lastRefusalLogNs = now;
            LOG.warn("refusing requests (503 cold-index-unavailable): the cold index {}; {} refused so far", why, refusedBehind);
        }
    }

    /** @return commands looked up (each: its key, its reference, the transfer it reverses). */
    public long lookups()
    {
        return lookups;
    }

    /** @return nanoseconds spent looking up, summed. */
    public long lookupNanos()
    {
        return lookupNanos;
    }

    public long lookupFailures()
    {
        return lookupFailures;
    }

    /** @return commands refused because the cold index was too far behind. */
    public long refusedBehind()
    {
        return refusedBehind;
    }

    /** @return commands refused because the cold index did not answer (a failed lookup, and its pause). */
    public long refusedUnavailable()
    {
        return refusedUnavailable;
    }

    /** @return the most commands the watermark may be behind. */
    public long lagMax()
    {
        return lagMax;
    }
}
