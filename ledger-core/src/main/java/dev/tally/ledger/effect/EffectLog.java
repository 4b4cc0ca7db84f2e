package dev.tally.ledger.effect;

import java.util.Arrays;

/**
 * What the last unit of work (one command, or a whole batch) changed, for the persistence stage:
 * ledger entries, sub-balance values after the change, and outbox events. Filled by the business
 * thread, drained by the caller after the unit; cleared at the start of the next unit.
 *
 * <p>Each list is a set of parallel primitive arrays. They start small and double when a unit needs
 * more (a large batch), so steady state allocates nothing. Ids are not stored: an entry's UUIDv7 is
 * {@code Uuid7.hi(timestampNs, KIND_ENTRY)} / {@code Uuid7.lo(commandIndex, ordinal)}, and likewise for
 * events ({@code KIND_EVENT}).
 */
public final class EffectLog
{
    private static final int INITIAL_CAPACITY = 256;

    // ledger entries: amount is signed, negative for a debit
    private int entryCount;
    private long[] entryCommandIndex = new long[INITIAL_CAPACITY];
    private long[] entryTimestampNs = new long[INITIAL_CAPACITY];
    private int[] entryOrdinal = new int[INITIAL_CAPACITY];
    private long[] entryTransferIndex = new long[INITIAL_CAPACITY];
    private long[] entryTenant = new long[INITIAL_CAPACITY];
    private long[] entryAccount = new long[INITIAL_CAPACITY];
    private long[] entryAmount = new long[INITIAL_CAPACITY];
    private int[] entryCurrency = new int[INITIAL_CAPACITY];

    // sub-balance values after a command
    private int balanceCount;
    private long[] balanceCommandIndex = new long[INITIAL_CAPACITY];
    private long[] balanceAccount = new long[INITIAL_CAPACITY];
    private int[] balanceSub = new int[INITIAL_CAPACITY];
    private long[] balancePosted = new long[INITIAL_CAPACITY];
    private long[] balanceHeld = new long[INITIAL_CAPACITY];

    // outbox events
    private int eventCount;
    private EventType[] eventType = new EventType[INITIAL_CAPACITY];
    private long[] eventCommandIndex = new long[INITIAL_CAPACITY];
    private long[] eventTimestampNs = new long[INITIAL_CAPACITY];
    private int[] eventOrdinal = new int[INITIAL_CAPACITY];
    private long[] eventTenant = new long[INITIAL_CAPACITY];
    private long[] eventSubject = new long[INITIAL_CAPACITY];
    private long[] eventAccountA = new long[INITIAL_CAPACITY];
    private long[] eventAccountB = new long[INITIAL_CAPACITY];
    private long[] eventAmount = new long[INITIAL_CAPACITY];
    private long[] eventExtra = new long[INITIAL_CAPACITY];
    private int[] eventCurrency = new int[INITIAL_CAPACITY];
    // an event's metadata (a transfer's, canonical JSON): a run of eventMetadata, in event order
    private int[] eventMetadataOffset = new int[INITIAL_CAPACITY];
    private int[] eventMetadataLength = new int[INITIAL_CAPACITY];
    private byte[] eventMetadata = new byte[INITIAL_CAPACITY * 16];
    private int eventMetadataUsed;

    /** Empties every list (start of a unit). */
    public void clear()
    {
        entryCount = 0;
        balanceCount = 0;
        eventCount = 0;
        eventMetadataUsed = 0;
    }

    /** @return a mark to {@link #truncate} back to (an atomic batch's start). */
    public long mark()
    {
        return ((long)entryCount << 42) | ((long)balanceCount << 21) | eventCount;
    }

    /** Drops everything appended since {@code mark}. */
    public void truncate(final long mark)
    {
        entryCount = (int)(mark >>> 42);
        balanceCount = (int)(mark >>> 21) & 0x1F_FFFF;
        eventCount = (int)mark & 0x1F_FFFF;
        eventMetadataUsed = eventCount == 0 ? 0 : eventMetadataOffset[eventCount - 1] + eventMetadataLength[eventCount - 1];
    }

    /** Appends one ledger entry (one leg of a transfer). */
    public void entry(
        final long commandIndex, final long timestampNs, final int ordinal, final long transferIndex, final long tenant,
        final long accountId, final long signedAmountMinor, final int currency)
    {
        if (entryCount == entryAccount.length)
        {
            final int n = entryCount * 2;
            entryCommandIndex = Arrays.copyOf(entryCommandIndex, n);
            entryTimestampNs = Arrays.copyOf(entryTimestampNs, n);
            entryOrdinal = Arrays.copyOf(entryOrdinal, n);
            entryTransferIndex = Arrays.copyOf(entryTransferIndex, n);
            entryTenant = Arrays.copyOf(entryTenant, n);
            entryAccount = Arrays.copyOf(entryAccount, n);
            entryAmount = Arrays.copyOf(entryAmount, n);
            entryCurrency = Arrays.copyOf(entryCurrency, n);
        }
        final int i = entryCount++;
        entryCommandIndex[i] = commandIndex;
        entryTimestampNs[i] = timestampNs;
        entryOrdinal[i] = ordinal;
        entryTransferIndex[i] = transferIndex;
        entryTenant[i] = tenant;
        entryAccount[i] = accountId;
        entryAmount[i] = signedAmountMinor;
        entryCurrency[i] = currency;
    }

    /** Appends a sub-balance's values after a command. */
    public void balance(final long commandIndex, final long accountId, final int subIndex, final long posted, final long held)
    {
        if (balanceCount == balanceAccount.length)
        {
            final int n = balanceCount * 2;
            balanceCommandIndex = Arrays.copyOf(balanceCommandIndex, n);
            balanceAccount = Arrays.copyOf(balanceAccount, n);
            balanceSub = Arrays.copyOf(balanceSub, n);
            balancePosted = Arrays.copyOf(balancePosted, n);
            balanceHeld = Arrays.copyOf(balanceHeld, n);
        }
        final int i = balanceCount++;
        balanceCommandIndex[i] = commandIndex;
        balanceAccount[i] = accountId;
        balanceSub[i] = subIndex;
        balancePosted[i] = posted;
        balanceHeld[i] = held;
    }

    /** Appends an outbox event. */
    public void event(
        final EventType type, final long commandIndex, final long timestampNs, final int ordinal, final long tenant,
        final long subject, final long accountA, final long accountB, final long amountMinor, final int currency, final long extra)
    {
        if (eventCount == eventAccountA.length)
        {
            final int n = eventCount * 2;
            eventType = Arrays.copyOf(eventType, n);
            eventCommandIndex = Arrays.copyOf(eventCommandIndex, n);
            eventTimestampNs = Arrays.copyOf(eventTimestampNs, n);
            eventOrdinal = Arrays.copyOf(eventOrdinal, n);
            eventTenant = Arrays.copyOf(eventTenant, n);
            eventSubject = Arrays.copyOf(eventSubject, n);
            eventAccountA = Arrays.copyOf(eventAccountA, n);
            eventAccountB = Arrays.copyOf(eventAccountB, n);
            eventAmount = Arrays.copyOf(eventAmount, n);
            eventExtra = Arrays.copyOf(eventExtra, n);
            eventCurrency = Arrays.copyOf(eventCurrency, n);
            eventMetadataOffset = Arrays.copyOf(eventMetadataOffset, n);
            eventMetadataLength = Arrays.copyOf(eventMetadataLength, n);
        }
        final int i = eventCount++;
        eventType[i] = type;
        eventCommandIndex[i] = commandIndex;
        eventTimestampNs[i] = timestampNs;
        eventOrdinal[i] = ordinal;
        eventTenant[i] = tenant;
        eventSubject[i] = subject;
        eventAccountA[i] = accountA;
        eventAccountB[i] = accountB;
        eventAmount[i] = amountMinor;
        eventCurrency[i] = currency;
        eventExtra[i] = extra;
        eventMetadataOffset[i] = eventMetadataUsed;
        eventMetadataLength[i] = 0;
    }

    /** Gives the event appended last {@code length} bytes of metadata (copied). */
    public void eventMetadata(final byte[] metadata, final int length)
    {
        if (eventMetadataUsed + length > eventMetadata.length)
        {
            eventMetadata = Arrays.copyOf(eventMetadata, Math.max(eventMetadata.length * 2, eventMetadataUsed + length));
        }
        final int i = eventCount - 1;
        System.arraycopy(metadata, 0, eventMetadata, eventMetadataUsed, length);   // at eventMetadataOffset[i], set by event()
        eventMetadataLength[i] = length;
        eventMetadataUsed += length;
    }

    public int entryCount()
    {
        return entryCount;
    }

    public long entryCommandIndex(final int i)
    {
        return entryCommandIndex[i];
    }

    public long entryTimestampNs(final int i)
    {
        return entryTimestampNs[i];
    }

    public int entryOrdinal(final int i)
    {
        return entryOrdinal[i];
    }

    /** @return the journal index of the transfer this entry belongs to (its id's index). */
    public long entryTransferIndex(final int i)
    {
        return entryTransferIndex[i];
    }

    public long entryTenant(final int i)
    {
        return entryTenant[i];
    }

    public long entryAccount(final int i)
    {
        return entryAccount[i];
    }

    public long entryAmount(final int i)
    {
        return entryAmount[i];
    }

    public int entryCurrency(final int i)
    {
        return entryCurrency[i];
    }

    public int balanceCount()
    {
        return balanceCount;
    }

    public long balanceCommandIndex(final int i)
    {
        return balanceCommandIndex[i];
    }

    public long balanceAccount(final int i)
    {
        return balanceAccount[i];
    }

    public int balanceSub(final int i)
    {
        return balanceSub[i];
    }

    public long balancePosted(final int i)
    {
        return balancePosted[i];
    }

    public long balanceHeld(final int i)
    {
        return balanceHeld[i];
    }

    public int eventCount()
    {
        return eventCount;
    }

    public EventType eventType(final int i)
    {
        return eventType[i];
    }

    public long eventCommandIndex(final int i)
    {
        return eventCommandIndex[i];
    }

    public long eventTimestampNs(final int i)
    {
        return eventTimestampNs[i];
    }

    public int eventOrdinal(final int i)
    {
        return eventOrdinal[i];
    }

    public long eventTenant(final int i)
    {
        return eventTenant[i];
    }

    /** @return the journal index of the transfer or hold the event is about, or the account id. */
    public long eventSubject(final int i)
    {
        return eventSubject[i];
    }

    public long eventAccountA(final int i)
    {
        return eventAccountA[i];
    }

    public long eventAccountB(final int i)
    {
        return eventAccountB[i];
    }

    public long eventAmount(final int i)
    {
        return eventAmount[i];
    }

    public int eventCurrency(final int i)
    {
        return eventCurrency[i];
    }

    public long eventExtra(final int i)
    {
        return eventExtra[i];
    }

    /** @return bytes of metadata event {@code i} carries (0: none); they start at {@link #eventMetadataOffset}. */
    public int eventMetadataLength(final int i)
    {
        return eventMetadataLength[i];
    }

    public int eventMetadataOffset(final int i)
    {
        return eventMetadataOffset[i];
    }

    /** @return the array every event's metadata is in; valid until the next unit starts. */
    public byte[] eventMetadataBytes()
    {
        return eventMetadata;
    }
}
