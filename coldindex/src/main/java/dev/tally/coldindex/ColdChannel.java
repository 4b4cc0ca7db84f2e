package dev.tally.coldindex;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * What the business thread ({@link ColdRecorder}) and the cold index's writer thread ({@link ColdIndexWriter}) share: a
 * single-producer, single-consumer ring of records over direct memory, framed per unit of work, and the last unit the
 * recorder offered.
 *
 * <pre>
 *  record        payload (longs)
 *  UNIT_BEGIN    the unit's last journal index, its journaled time
 *  KEY           digest (2), the key's cold record ({@link ColdRecords#KEY_LONGS})
 *  REFERENCE     digest (2), the holder's journal index and time
 *  TRANSFER      journal index, the transfer's cold record ({@link ColdRecords#TRANSFER_LONGS})
 *  REFERENCE_TEXT journal index, then the text's bytes (the record's length less 8)
 *  UNIT_END      the unit's last journal index
 * </pre>
 */
final class ColdChannel
{
    static final int UNIT_BEGIN = 1;
    static final int KEY = 2;
    static final int REFERENCE = 3;
    static final int TRANSFER = 4;
    static final int UNIT_END = 5;
    static final int REFERENCE_TEXT = 6;

    static final int UNIT_BEGIN_LENGTH = 2 * Long.BYTES;
    static final int KEY_LENGTH = (2 + ColdRecords.KEY_LONGS) * Long.BYTES;
    static final int REFERENCE_LENGTH = 4 * Long.BYTES;
    static final int TRANSFER_LENGTH = (1 + ColdRecords.TRANSFER_LONGS) * Long.BYTES;
    static final int UNIT_END_LENGTH = Long.BYTES;

    final OneToOneRingBuffer ring;
    /** The last journal index a unit the recorder offered ends at. Business thread writes, any thread reads. */
    final AtomicLong offeredIndex = new AtomicLong();
    /** Set by the recorder once it stopped offering (the ring stayed full): nothing after it is ever filed. */
    volatile boolean recorderStopped;

    /** @param ringBytes the ring's capacity, a power of two. */
    ColdChannel(final int ringBytes, final long watermarkIndex)
    {
        ring = new OneToOneRingBuffer(new UnsafeBuffer(ByteBuffer.allocateDirect(ringBytes + RingBufferDescriptor.TRAILER_LENGTH)));
        offeredIndex.set(watermarkIndex);
    }
}
