package dev.tally.persistence.writer;

import dev.tally.ledger.effect.EffectLog;
import dev.tally.ledger.effect.EventType;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;

import static dev.tally.persistence.writer.EffectRecords.*;

/**
 * The business thread's side of persistence: after each completed unit of work it copies the unit's
 * effects ({@link EffectLog}, which carries everything the tables need: it reads nothing of the ledger's
 * state) as binary records into the pre-allocated ring ({@link EffectRecords} draws the layouts). No I/O,
 * no locks, no allocation in steady state.
 *
 * <p>The business stage calls {@link #onUnit} on the business thread whenever {@code ledger.isUnitComplete()},
 * during replay as well as when serving. Units whose last journal index is at or below
 * {@code skipUpToIndex} (the watermark read at startup) are already in PostgreSQL and are skipped.
 *
 * <p>Back-pressure: the gateway checks {@link #overLagBound()} before it admits a write and answers 503
 * while it is true, so the ring (sized with a wide margin over the lag bound) should never fill. If it
 * fills anyway, {@code onUnit} spins and yields while the writer keeps freeing room; once the writer has
 * made no progress for {@link WriterConfig#ringFullWaitMaxMs()} (or has failed) it throws
 * {@link IllegalStateException}, which halts the pipeline rather than drop effects: the journal has them,
 * and a restart replays them.
 *
 * <p>Single producer: one recorder per ring, called from one thread.
 */
public final class EffectRecorder
{
    private final EffectChannel channel;
    private final OneToOneRingBuffer ring;
    private final AtomicBuffer buffer;
    private final long skipUpToIndex;
    private final long ringFullWaitMaxNs;
    private long ringFullWaits;

    EffectRecorder(final EffectChannel channel, final long skipUpToIndex)
    {
        this.channel = channel;
        this.ring = channel.ring;
        this.buffer = ring.buffer();
        this.skipUpToIndex = skipUpToIndex;
        this.ringFullWaitMaxNs = channel.config.ringFullWaitMaxMs() * 1_000_000L;
    }

    /**
     * Copies the effects of the unit the ledger just completed ({@code ledger.effects()}) into the ring. Business
     * thread only; call it once per completed unit, in journal order.
     *
     * @throws IllegalStateException when the ring stayed full (see the class comment): halt the pipeline.
     */
    public void onUnit(final EffectLog effects)
    {
        final long lastIndex = effects.lastJournalIndex();
        final long timestampNs = effects.lastTimestampNs();
        if (lastIndex <= skipUpToIndex)
        {
            return;
        }
        int index = claim(UNIT_BEGIN, UNIT_BEGIN_LENGTH);
        buffer.putLong(index + UNIT_LAST_INDEX, lastIndex);
        buffer.putLong(index + UNIT_TIMESTAMP, timestampNs);
        ring.commit(index);
        recordEntries(effects);
        recordEvents(effects);
        recordBalances(effects);
        index = claim(UNIT_END, UNIT_END_LENGTH);
        buffer.putLong(index + UNIT_LAST_INDEX, lastIndex);
        ring.commit(index);
        if (channel.committedTimeNs.get() == 0)
        {
            channel.committedTimeNs.compareAndSet(0, timestampNs);   // an empty database: the lag runs from the first unit
        }
        channel.offeredTimeNs.lazySet(timestampNs);
        channel.offeredIndex.lazySet(lastIndex);
    }

    /** @return journal commands recorded but not yet committed in PostgreSQL. Any thread. */
    public long lagCommands()
    {
        return channel.lagCommands();
    }

    /** @return journaled time between the newest recorded unit and the watermark, nanoseconds. Any thread. */
    public long lagNs()
    {
        return channel.lagNs();
    }

    /**
     * @return true when the gateway must refuse new writes (503): the writer lags by more than the
     * configured commands, the ring is half full, or the writer failed. Any thread.
     */
    public boolean overLagBound()
    {
        return channel.overLagBound();
    }

    /** @return how many times {@link #onUnit} found the ring full and had to wait. */
    public long ringFullWaits()
    {
        return ringFullWaits;
    }

    /** @return the filter this recorder was built with: units at or below it are skipped. */
    public long skipUpToIndex()
    {
        return skipUpToIndex;
    }

    private void recordEntries(final EffectLog e)
    {
        for (int i = 0, n = e.entryCount(); i < n; i++)
        {
            if (e.entryTransferIndex(i) != e.entryCommandIndex(i))
            {
                // the record has no transfer index (EffectRecords): a leg posted by another command than its transfer's
                throw new IllegalStateException("entry of journal index " + e.entryCommandIndex(i) + " belongs to the transfer of " +
                    e.entryTransferIndex(i));
            }
            final int index = claim(ENTRY, ENTRY_LENGTH);
            buffer.putLong(index + ENTRY_COMMAND_INDEX, e.entryCommandIndex(i));
            buffer.putLong(index + ENTRY_TIMESTAMP, e.entryTimestampNs(i));
            buffer.putLong(index + ENTRY_TENANT, e.entryTenant(i));
            buffer.putLong(index + ENTRY_ACCOUNT, e.entryAccount(i));
            buffer.putLong(index + ENTRY_AMOUNT, e.entryAmount(i));
            buffer.putShort(index + ENTRY_ORDINAL, (short)e.entryOrdinal(i));
            buffer.putShort(index + ENTRY_KIND, (short)e.entryKind(i));
            buffer.putInt(index + ENTRY_CURRENCY, e.entryCurrency(i));
            buffer.putLong(index + ENTRY_BALANCE_AFTER, e.entryBalanceAfter(i));
            ring.commit(index);
        }
    }

    private void recordEvents(final EffectLog e)
    {
        for (int i = 0, n = e.eventCount(); i < n; i++)
        {
            final EventType type = e.eventType(i);
            long auxLong = 0;
            int auxInt = 0;
            if (type == EventType.ACCOUNT_CREATED)
            {
                auxInt = e.eventDebitsMustNotExceedCredits(i) ? 1 : 0;
                auxLong = e.eventOverdraftLimitMinor(i);
            }
            else if (type == EventType.TRANSFER_REVERSED)
            {
                auxLong = e.eventExtraTimestampNs(i);
            }
            // Only a transfer's event carries a reference, and a transfer's or an account's metadata (created with some, or
            // updated), which the ledger hands on until the next unit.
            final int referenceLength = e.eventReferenceLength(i);
            final int metadataLength = e.eventMetadataLength(i);
            final int index = claim(EVENT, EVENT_REFERENCE + referenceLength + metadataLength);
            buffer.putLong(index + EVENT_COMMAND_INDEX, e.eventCommandIndex(i));
            buffer.putLong(index + EVENT_TIMESTAMP, e.eventTimestampNs(i));
            buffer.putLong(index + EVENT_TENANT, e.eventTenant(i));
            buffer.putLong(index + EVENT_SUBJECT, e.eventSubject(i));
            buffer.putLong(index + EVENT_ACCOUNT_A, e.eventAccountA(i));
            buffer.putLong(index + EVENT_ACCOUNT_B, e.eventAccountB(i));
            buffer.putLong(index + EVENT_AMOUNT, e.eventAmount(i));
            buffer.putLong(index + EVENT_EXTRA, e.eventExtra(i));
            buffer.putLong(index + EVENT_AUX_LONG, auxLong);
            buffer.putInt(index + EVENT_ORDINAL, e.eventOrdinal(i));
            buffer.putInt(index + EVENT_TYPE, type.code());
            buffer.putInt(index + EVENT_CURRENCY, e.eventCurrency(i));
            buffer.putInt(index + EVENT_AUX_INT, auxInt);
            buffer.putInt(index + EVENT_REFERENCE_LENGTH, referenceLength);
            buffer.putInt(index + EVENT_METADATA_LENGTH, metadataLength);
            buffer.putBytes(index + EVENT_REFERENCE, e.eventReferenceBytes(), e.eventReferenceOffset(i), referenceLength);
            buffer.putBytes(index + EVENT_REFERENCE + referenceLength, e.eventMetadataBytes(), e.eventMetadataOffset(i), metadataLength);
            ring.commit(index);
        }
    }

    private void recordBalances(final EffectLog e)
    {
        for (int i = 0, n = e.balanceCount(); i < n; i++)
        {
            final int index = claim(BALANCE, BALANCE_LENGTH);
            buffer.putLong(index + BALANCE_COMMAND_INDEX, e.balanceCommandIndex(i));
            buffer.putLong(index + BALANCE_TENANT, e.balanceTenant(i));
            buffer.putLong(index + BALANCE_ACCOUNT, e.balanceAccount(i));
            buffer.putLong(index + BALANCE_POSTED, e.balancePosted(i));
            buffer.putLong(index + BALANCE_HELD, e.balanceHeld(i));
            buffer.putInt(index + BALANCE_SUB, e.balanceSub(i));
            buffer.putInt(index + BALANCE_SUB + Integer.BYTES, 0);
            ring.commit(index);
        }
    }

    /**
     * Claims room for one record. When the ring is full, spins and yields while the writer frees room;
     * halts (throws) once it has made no progress for the configured wait, or has failed.
     */
    private int claim(final int type, final int length)
    {
        int index = ring.tryClaim(type, length);
        if (index != RingBuffer.INSUFFICIENT_CAPACITY)
        {
            return index;
        }
        ringFullWaits++;
        long consumed = ring.consumerPosition();
        long deadlineNs = System.nanoTime() + ringFullWaitMaxNs;
        while ((index = ring.tryClaim(type, length)) == RingBuffer.INSUFFICIENT_CAPACITY)
        {
            if (channel.writerFailure.get() != null)
            {
                throw new IllegalStateException("persistence ring full and the PostgreSQL writer has failed",
                    channel.writerFailure.get());
            }
            final long now = System.nanoTime();
            final long position = ring.consumerPosition();
            if (position != consumed)
            {
                consumed = position;
                deadlineNs = now + ringFullWaitMaxNs;
            }
            else if (now - deadlineNs > 0)
            {
                throw new IllegalStateException("persistence ring full for " + channel.config.ringFullWaitMaxMs() +
                    " ms with no progress from the PostgreSQL writer (lag " + channel.lagCommands() +
                    " commands): halting; the journal keeps every effect and a restart replays them");
            }
            Thread.yield();
        }
        return index;
    }
}
