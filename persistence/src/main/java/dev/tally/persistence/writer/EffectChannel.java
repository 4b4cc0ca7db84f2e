package dev.tally.persistence.writer;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the business thread (producer) and the writer thread (consumer) share: the pre-allocated
 * single-producer/single-consumer ring of effect records over direct memory, and the two progress
 * marks lag is computed from. Each mark has one writer thread; any thread may read them.
 *
 * <pre>
 *  business thread ── EffectRecorder ──► [ OneToOneRingBuffer, direct memory ] ──► LedgerWriter ── PostgreSQL
 *        offeredIndex / offeredTimeNs ◄─┘                                   └─► committedIndex / committedTimeNs
 * </pre>
 */
final class EffectChannel
{
    final WriterConfig config;
    final OneToOneRingBuffer ring;
    /** Last journal index (and its journaled time) the recorder saw a unit end at. Business thread writes. */
    final AtomicLong offeredIndex = new AtomicLong();
    final AtomicLong offeredTimeNs = new AtomicLong();
    /** Last journal index (and time) whose unit is committed in PostgreSQL: the watermark. Writer writes. */
    final AtomicLong committedIndex = new AtomicLong();
    final AtomicLong committedTimeNs = new AtomicLong();
    /** Set once when the writer stops on an error it must not retry. */
    final AtomicReference<Throwable> writerFailure = new AtomicReference<>();

    EffectChannel(final WriterConfig config, final long watermarkIndex, final long watermarkTimeNs)
    {
        this.config = config;
        ring = new OneToOneRingBuffer(new UnsafeBuffer(ByteBuffer.allocateDirect(config.ringAllocationBytes())));
        offeredIndex.set(watermarkIndex);
        offeredTimeNs.set(watermarkTimeNs);
        committedIndex.set(watermarkIndex);
        committedTimeNs.set(watermarkTimeNs);
    }

    /** @return journal commands offered to the ring but not yet committed in PostgreSQL (never negative). */
    long lagCommands()
    {
        return Math.max(0, offeredIndex.get() - committedIndex.get());
    }

    /** @return journaled time between the last offered unit and the last committed one, nanoseconds. */
    long lagNs()
    {
        return lagCommands() == 0 ? 0 : Math.max(0, offeredTimeNs.get() - committedTimeNs.get());
    }

    /** @return true when the gateway must refuse new writes: lag bound, half-full ring, or a failed writer. */
    boolean overLagBound()
    {
        return lagCommands() > config.lagBoundCommands() || ring.size() > config.ringBytesBound() || writerFailure.get() != null;
    }
}
