package dev.tally.coldindex;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.tally.ledger.cold.ColdSink;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The business thread's side of the cold index: after each unit of work, {@link #beginUnit}, then the ledger files the
 * unit's items here ({@link dev.tally.ledger.Ledger#fileCold}), then {@link #endUnit}; the records go through a ring to
 * the writer thread. Allocation-free.
 *
 * <p>When the ring is full the business thread waits for the writer (back-pressure: the journal stage keeps the writer
 * at most {@code coldLagMax} commands behind, so a full ring means a ring sized below that, or a writer that stopped).
 * After {@link #RING_FULL_WAIT_MAX_NS} without room, or once the writer failed for good, the recorder stops offering:
 * the watermark then never passes the last unit offered, memory lets nothing newer go, and the journal stage refuses
 * commands once the lag bound is reached (503 {@code cold-index-unavailable}) until a restart files the rest from the
 * journal. No item is ever lost: the watermark only claims units whose every item is in.
 */
public final class ColdRecorder implements ColdSink
{
    /** How long the business thread waits for room before it stops offering. */
    static final long RING_FULL_WAIT_MAX_NS = TimeUnit.SECONDS.toNanos(10);
    private static final Logger LOG = LoggerFactory.getLogger(ColdRecorder.class);

    private final ColdChannel channel;
    private final RingBuffer ring;
    private long unitLastIndex;
    // figures: written by the business thread, read by any
    private volatile long ringFullWaits;
    private volatile long unitsDropped;

    ColdRecorder(final ColdChannel channel)
    {
        this.channel = channel;
        this.ring = channel.ring;
    }

    /** Starts the records of the unit ending at {@code lastIndex} (journaled at {@code timeNs}). */
    public void beginUnit(final long lastIndex, final long timeNs)
    {
        unitLastIndex = lastIndex;
        final int at = claim(ColdChannel.UNIT_BEGIN, ColdChannel.UNIT_BEGIN_LENGTH);
        if (at >= 0)
        {
            ring.buffer().putLong(at, lastIndex);
            ring.buffer().putLong(at + Long.BYTES, timeNs);
            ring.commit(at);
        }
    }

    @Override
    public void key(final long digestHi, final long digestLo, final long[] record)
    {
        final int at = claim(ColdChannel.KEY, ColdChannel.KEY_LENGTH);
        if (at >= 0)
        {
            ring.buffer().putLong(at, digestHi);
            ring.buffer().putLong(at + Long.BYTES, digestLo);
            putLongs(at + 2 * Long.BYTES, record, ColdRecords.KEY_LONGS);
            ring.commit(at);
        }
    }

    @Override
    public void reference(final long digestHi, final long digestLo, final long transferIndex, final long timestampNs)
    {
        final int at = claim(ColdChannel.REFERENCE, ColdChannel.REFERENCE_LENGTH);
        if (at >= 0)
        {
            ring.buffer().putLong(at, digestHi);
            ring.buffer().putLong(at + Long.BYTES, digestLo);
            ring.buffer().putLong(at + 2 * Long.BYTES, transferIndex);
            ring.buffer().putLong(at + 3 * Long.BYTES, timestampNs);
            ring.commit(at);
        }
    }

    @Override
    public void transfer(final long journalIndex, final long[] record)
    {
        final int at = claim(ColdChannel.TRANSFER, ColdChannel.TRANSFER_LENGTH);
        if (at >= 0)
        {
            ring.buffer().putLong(at, journalIndex);
            putLongs(at + Long.BYTES, record, ColdRecords.TRANSFER_LONGS);
            ring.commit(at);
        }
    }

    @Override
    public void transferReference(final long journalIndex, final byte[] text, final int length)
    {
        final int at = claim(ColdChannel.REFERENCE_TEXT, Long.BYTES + length);
        if (at >= 0)
        {
            ring.buffer().putLong(at, journalIndex);
            ring.buffer().putBytes(at + Long.BYTES, text, 0, length);
            ring.commit(at);
        }
    }

    /** Ends the unit begun last: the writer may now file it. */
    public void endUnit()
    {
        final int at = claim(ColdChannel.UNIT_END, ColdChannel.UNIT_END_LENGTH);
        if (at >= 0)
        {
            ring.buffer().putLong(at, unitLastIndex);
            ring.commit(at);
            channel.offeredIndex.lazySet(unitLastIndex);
        }
        else
        {
            unitsDropped++;
        }
    }

    /** @return how many times a record found the ring full and the business thread waited. */
    public long ringFullWaits()
    {
        return ringFullWaits;
    }

    /** @return units not offered because the recorder stopped (the journal files them at the next start). */
    public long unitsDropped()
    {
        return unitsDropped;
    }

    /** @return true once the recorder stopped offering units (see the class comment). */
    public boolean stopped()
    {
        return channel.recorderStopped;
    }

    private void putLongs(final int at, final long[] values, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            ring.buffer().putLong(at + i * Long.BYTES, values[i]);
        }
    }

    /** @return where to write the record, or -1 when the recorder has stopped offering. */
    private int claim(final int type, final int length)
    {
        if (channel.recorderStopped)
        {
            return -1;
        }
        int at = ring.tryClaim(type, length);
        if (at != RingBuffer.INSUFFICIENT_CAPACITY)
        {
            return at;
        }
        ringFullWaits++;
        final long deadlineNs = System.nanoTime() + RING_FULL_WAIT_MAX_NS;
        while ((at = ring.tryClaim(type, length)) == RingBuffer.INSUFFICIENT_CAPACITY)
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                channel.recorderStopped = true;
                LOG.error("cold index ring full for {} s: no more items are filed until a restart files them from the journal; " +
                    "commands are refused once the cold index is too far behind (503 cold-index-unavailable)",
                    TimeUnit.NANOSECONDS.toSeconds(RING_FULL_WAIT_MAX_NS));
                return -1;
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
        }
        return at;
    }
}
