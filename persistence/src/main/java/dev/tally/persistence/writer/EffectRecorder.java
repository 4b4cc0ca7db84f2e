package dev.tally.persistence.writer;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.account.Accounts;
import dev.tally.ledger.effect.EffectLog;
import dev.tally.ledger.effect.EventType;
import dev.tally.ledger.transfer.TransferTable;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;

import static dev.tally.persistence.writer.EffectRecords.*;

/**
 * The business thread's side of persistence: after each completed unit of work it copies the unit's
 * effects, plus what the tables need that the effects lack, as binary records into the pre-allocated
 * ring ({@link EffectRecords} draws the layouts). No I/O, no locks, no allocation in steady state.
 *
 * <p>The gateway calls {@link #onUnit} on the business thread whenever {@code ledger.isUnitComplete()},
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
 * <p>Tenant of a balance: the ledger's balance effect names the account but not its tenant (account ids
 * are unique per tenant). Every command that changes a balance also emits an event carrying its tenant;
 * only a tick spans tenants (it expires holds of many), and there the account is matched to the tenant of
 * its expiry event, reading the sub-balance from the ledger when two tenants' accounts share the id.
 *
 * <p>Single producer: one recorder per ring, called from one thread.
 */
public final class EffectRecorder
{
    private static final long NO_TENANT = Long.MIN_VALUE;
    private static final long TWO_TENANTS = Long.MIN_VALUE + 1;

    private final EffectChannel channel;
    private final OneToOneRingBuffer ring;
    private final AtomicBuffer buffer;
    private final long skipUpToIndex;
    private final long ringFullWaitMaxNs;
    private final byte[] reference = new byte[LedgerLimits.REFERENCE_LENGTH_MAX];
    /** Scratch for ticks spanning tenants: account id to its tenant (or {@link #TWO_TENANTS}). */
    private final Long2LongHashMap tenantByAccount;
    private long ringFullWaits;

    EffectRecorder(final EffectChannel channel, final long skipUpToIndex)
    {
        this.channel = channel;
        this.ring = channel.ring;
        this.buffer = ring.buffer();
        this.skipUpToIndex = skipUpToIndex;
        this.ringFullWaitMaxNs = channel.config.ringFullWaitMaxMs() * 1_000_000L;
        tenantByAccount = new Long2LongHashMap(Math.min(1 << 22, 2 * channel.config.expiriesPerTickMax()), 0.5f, NO_TENANT);
    }

    /**
     * Copies the effects of the unit the ledger just completed into the ring. Business thread only; call
     * it once per completed unit, in journal order.
     *
     * @throws IllegalStateException when the ring stayed full (see the class comment): halt the pipeline.
     */
    public void onUnit(final Ledger ledger)
    {
        final long lastIndex = ledger.lastJournalIndex();
        final long timestampNs = ledger.nowNs();
        if (lastIndex <= skipUpToIndex)
        {
            return;
        }
        final EffectLog effects = ledger.effects();
        int index = claim(UNIT_BEGIN, UNIT_BEGIN_LENGTH);
        buffer.putLong(index + UNIT_LAST_INDEX, lastIndex);
        buffer.putLong(index + UNIT_TIMESTAMP, timestampNs);
        ring.commit(index);
        recordEntries(effects);
        recordEvents(ledger, effects);
        recordBalances(ledger, effects);
        index = claim(UNIT_END, UNIT_END_LENGTH);
        buffer.putLong(index + UNIT_LAST_INDEX, lastIndex);
        ring.commit(index);
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
            final int index = claim(ENTRY, ENTRY_LENGTH);
            buffer.putLong(index + ENTRY_COMMAND_INDEX, e.entryCommandIndex(i));
            buffer.putLong(index + ENTRY_TIMESTAMP, e.entryTimestampNs(i));
            buffer.putLong(index + ENTRY_TRANSFER_INDEX, e.entryTransferIndex(i));
            buffer.putLong(index + ENTRY_TENANT, e.entryTenant(i));
            buffer.putLong(index + ENTRY_ACCOUNT, e.entryAccount(i));
            buffer.putLong(index + ENTRY_AMOUNT, e.entryAmount(i));
            buffer.putInt(index + ENTRY_ORDINAL, e.entryOrdinal(i));
            buffer.putInt(index + ENTRY_CURRENCY, e.entryCurrency(i));
            ring.commit(index);
        }
    }

    private void recordEvents(final Ledger ledger, final EffectLog e)
    {
        for (int i = 0, n = e.eventCount(); i < n; i++)
        {
            final EventType type = e.eventType(i);
            long auxLong = 0;
            int auxInt = 0;
            int referenceLength = 0;
            int metadataLength = 0;
            if (type == EventType.ACCOUNT_CREATED)
            {
                final Accounts accounts = ledger.accounts();
                final int slot = accounts.slotOf(e.eventSubject(i), e.eventTenant(i));
                requireFound(slot, e.eventCommandIndex(i));
                auxInt = accounts.isConstrained(slot) ? 1 : 0;
                auxLong = accounts.overdraftLimit(slot);
            }
            else if (type == EventType.TRANSFER_POSTED)
            {
                final TransferTable transfers = ledger.transfers();
                final int position = transfers.find(e.eventSubject(i));
                requireFound(position, e.eventCommandIndex(i));
                referenceLength = transfers.copyReference(position, reference);
                // Metadata is not in the transfer table (memory keeps a bit): the event holds it until the next unit.
                metadataLength = e.eventMetadataLength(i);
            }
            else if (type == EventType.TRANSFER_REVERSED)
            {
                final TransferTable transfers = ledger.transfers();
                final int position = transfers.find(e.eventSubject(i));
                requireFound(position, e.eventCommandIndex(i));
                auxLong = transfers.reversesTimestampNs(position);
            }
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
            buffer.putBytes(index + EVENT_REFERENCE, reference, 0, referenceLength);
            buffer.putBytes(index + EVENT_REFERENCE + referenceLength, e.eventMetadataBytes(), e.eventMetadataOffset(i), metadataLength);
            ring.commit(index);
        }
    }

    /**
     * Balance effects come grouped by command, in journal order, and so do events: walk both together and
     * take each command's tenant from its events.
     */
    private void recordBalances(final Ledger ledger, final EffectLog e)
    {
        final int balances = e.balanceCount();
        final int events = e.eventCount();
        int event = 0;
        int first = 0;
        while (first < balances)
        {
            final long command = e.balanceCommandIndex(first);
            int end = first + 1;
            while (end < balances && e.balanceCommandIndex(end) == command)
            {
                end++;
            }
            while (event < events && e.eventCommandIndex(event) < command)
            {
                event++;
            }
            int eventEnd = event;
            boolean oneTenant = true;
            while (eventEnd < events && e.eventCommandIndex(eventEnd) == command)
            {
                oneTenant &= e.eventTenant(eventEnd) == e.eventTenant(event);
                eventEnd++;
            }
            if (event == eventEnd)
            {
                throw new IllegalStateException("balances changed without an event at journal index " + command);
            }
            if (oneTenant)
            {
                final long tenant = e.eventTenant(event);
                for (int i = first; i < end; i++)
                {
                    writeBalance(command, tenant, e.balanceAccount(i), e.balanceSub(i), e.balancePosted(i), e.balanceHeld(i));
                }
            }
            else
            {
                recordMixedTenantBalances(ledger, e, command, first, end, event, eventEnd);
            }
            first = end;
            event = eventEnd;
        }
    }

    /** A tick that expired holds of several tenants: match each account to the tenant(s) of its events. */
    private void recordMixedTenantBalances(
        final Ledger ledger, final EffectLog e, final long command, final int first, final int end, final int event,
        final int eventEnd)
    {
        final Long2LongHashMap map = tenantByAccount;
        map.clear();
        for (int k = event; k < eventEnd; k++)
        {
            final long account = e.eventAccountA(k);
            final long known = map.get(account);
            if (known == NO_TENANT)
            {
                map.put(account, e.eventTenant(k));
            }
            else if (known != e.eventTenant(k))
            {
                map.put(account, TWO_TENANTS);
            }
        }
        for (int i = first; i < end; i++)
        {
            final long account = e.balanceAccount(i);
            final long tenant = map.get(account);
            if (tenant == NO_TENANT)
            {
                throw new IllegalStateException("no event names account " + account + " at journal index " + command);
            }
            if (tenant != TWO_TENANTS)
            {
                writeBalance(command, tenant, account, e.balanceSub(i), e.balancePosted(i), e.balanceHeld(i));
                continue;
            }
            // Two tenants' accounts share this id: write the sub-balance of each, as it stands after the unit.
            final Accounts accounts = ledger.accounts();
            for (int k = event; k < eventEnd; k++)
            {
                if (e.eventAccountA(k) == account && firstEventOfTenant(e, event, k, account))
                {
                    final int slot = accounts.slotOf(account, e.eventTenant(k));
                    requireFound(slot, command);
                    if (e.balanceSub(i) >= accounts.subCount(slot))
                    {
                        continue;   // the other tenant's account has fewer sub-balances: not this one's
                    }
                    final int sub = accounts.subSlot(slot, e.balanceSub(i));
                    writeBalance(command, e.eventTenant(k), account, e.balanceSub(i), accounts.posted(sub), accounts.held(sub));
                }
            }
        }
    }

    /** @return true when event {@code k} is the first in [from, k] naming this account for its tenant. */
    private static boolean firstEventOfTenant(final EffectLog e, final int from, final int k, final long account)
    {
        for (int j = from; j < k; j++)
        {
            if (e.eventAccountA(j) == account && e.eventTenant(j) == e.eventTenant(k))
            {
                return false;
            }
        }
        return true;
    }

    private void writeBalance(
        final long command, final long tenant, final long account, final int sub, final long posted, final long held)
    {
        final int index = claim(BALANCE, BALANCE_LENGTH);
        buffer.putLong(index + BALANCE_COMMAND_INDEX, command);
        buffer.putLong(index + BALANCE_TENANT, tenant);
        buffer.putLong(index + BALANCE_ACCOUNT, account);
        buffer.putLong(index + BALANCE_POSTED, posted);
        buffer.putLong(index + BALANCE_HELD, held);
        buffer.putInt(index + BALANCE_SUB, sub);
        buffer.putInt(index + BALANCE_SUB + Integer.BYTES, 0);
        ring.commit(index);
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

    private static void requireFound(final int position, final long command)
    {
        if (position < 0)
        {
            throw new IllegalStateException("effect names state the ledger no longer has at journal index " + command);
        }
    }
}
