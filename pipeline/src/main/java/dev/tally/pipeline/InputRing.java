package dev.tally.pipeline;

import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.RingBuffer;

/**
 * The input ring as the threads that publish into it see it (the gateway's I/O threads, the ticker, the snapshotter):
 * claim slots, fill them, publish them. It never blocks a publisher: a full ring is {@link #FULL}, which the gateway
 * answers with 503 (backpressure, never an unbounded queue). A batch claims its consecutive slots in one step, so that
 * nothing lands inside it.
 */
public final class InputRing
{
    /** What a claim returns when the ring has no room. */
    public static final long FULL = -1;

    private final RingBuffer<LedgerEvent> ring;

    InputRing(final RingBuffer<LedgerEvent> ring)
    {
        this.ring = ring;
    }

    /** @return the sequence of one claimed slot, or {@link #FULL}. */
    public long tryClaim()
    {
        try
        {
            return ring.tryNext();
        }
        catch (final InsufficientCapacityException ex)   // Disruptor's shared instance: nothing allocated
        {
            return FULL;
        }
    }

    /** @return the last sequence of {@code count} consecutive claimed slots (the first is {@code last - count + 1}), or {@link #FULL}. */
    public long tryClaim(final int count)
    {
        try
        {
            return ring.tryNext(count);
        }
        catch (final InsufficientCapacityException ex)
        {
            return FULL;
        }
    }

    /**
     * Claims {@code count} consecutive slots, waiting for room: for harnesses and tests that must not lose a publication
     * (a server's publishers use {@link #tryClaim} and answer a full ring with 503). @return the last.
     */
    public long claim(final int count)
    {
        return ring.next(count);
    }

    /** @return the slot of a claimed (or, for the responder, a handled) sequence. */
    public LedgerEvent slot(final long sequence)
    {
        return ring.get(sequence);
    }

    /** Makes a claimed slot visible to the stages. */
    public void publish(final long sequence)
    {
        ring.publish(sequence);
    }

    /** Makes claimed slots {@code first..last} visible to the stages. */
    public void publish(final long first, final long last)
    {
        ring.publish(first, last);
    }

    /** @return the ring's slots. */
    public int capacity()
    {
        return ring.getBufferSize();
    }

    /** @return slots claimed and not yet passed by every stage (a gauge: read from any thread). */
    public long occupancy()
    {
        return ring.getBufferSize() - ring.remainingCapacity();
    }
}
