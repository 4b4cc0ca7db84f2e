package dev.tally.ledger.effect;

import dev.tally.ledger.LedgerLimits;

import java.util.Arrays;

/**
 * What the last unit of work (one command, or a whole batch) changed, for the persistence stage:
 * ledger entries, sub-balance values after the change, and outbox events. Filled by the business
 * thread, drained by the caller after the unit; cleared at the start of the next unit.
 *
 * <p>Complete: a reader needs nothing else from the ledger to write the read model. A balance names its
 * account's tenant (account ids are unique per tenant only), and an event carries what its type's rows
 * need beyond the common fields:
 * <ul>
 *   <li>{@link EventType#ACCOUNT_CREATED}: the account's rules ({@link #eventDebitsMustNotExceedCredits},
 *   {@link #eventOverdraftLimitMinor}), and its metadata when it was created with some.</li>
 *   <li>{@link EventType#ACCOUNT_METADATA_UPDATED}: the account's new metadata (none: removed).</li>
 *   <li>{@link EventType#TRANSFER_POSTED}: the reference text ({@link #eventReferenceLength}) and the metadata
 *   ({@link #eventMetadataLength}), which the ledger does not keep.</li>
 *   <li>{@link EventType#TRANSFER_REVERSED}: the reversed transfer's journaled time
 *   ({@link #eventExtraTimestampNs}; its journal index is {@link #eventExtra}), from which its id derives.</li>
 * </ul>
 *
 * <p>Each list is a set of parallel primitive arrays. They start small and double when a unit needs
 * more (a large batch), so steady state allocates nothing. Ids are not stored: an entry's UUIDv7 is
 * {@code Uuid7.hi(timestampNs, KIND_ENTRY)} / {@code Uuid7.lo(commandIndex, ordinal)}, and likewise for
 * events ({@code KIND_EVENT}).
 */
public final class EffectLog
{
    private static final int INITIAL_CAPACITY = 256;
    private static final int REFERENCE_STRIDE = LedgerLimits.REFERENCE_LENGTH_MAX;

    // where the unit ends: its last command
    private long lastJournalIndex;
    private long lastTimestampNs;

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
    private int[] entryKind = new int[INITIAL_CAPACITY];
    private long[] entryBalanceAfter = new long[INITIAL_CAPACITY];

    // sub-balance values after a command
    private int balanceCount;
    private long[] balanceCommandIndex = new long[INITIAL_CAPACITY];
    private long[] balanceTenant = new long[INITIAL_CAPACITY];
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
    // what one type of event carries more (0 for the others): see the class comment
    private long[] eventExtraTimestampNs = new long[INITIAL_CAPACITY];
    private long[] eventOverdraftLimitMinor = new long[INITIAL_CAPACITY];
    private boolean[] eventDebitsMustNotExceedCredits = new boolean[INITIAL_CAPACITY];
    // an event's reference text (a transfer's): REFERENCE_STRIDE bytes of eventReferences per event
    private int[] eventReferenceLength = new int[INITIAL_CAPACITY];
    private byte[] eventReferences = new byte[INITIAL_CAPACITY * REFERENCE_STRIDE];
    // an event's metadata (a transfer's or an account's, canonical JSON): a run of eventMetadata, in event order
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

    /**
     * Records the command just applied as the unit's last so far: when the unit completes, its journal index and
     * time are the unit's own (what a reader frames it with). Not cleared with the lists.
     */
    public void lastCommand(final long journalIndex, final long timestampNs)
    {
        lastJournalIndex = journalIndex;
        lastTimestampNs = timestampNs;
    }

    /** @return the journal index of the unit's last command (the last applied). */
    public long lastJournalIndex()
    {
        return lastJournalIndex;
    }

    /** @return the journaled time of the unit's last command, epoch nanoseconds. */
    public long lastTimestampNs()
    {
        return lastTimestampNs;
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

    /**
     * Appends one ledger entry (one leg of a transfer).
     *
     * @param kind                   the transfer's {@code TransferKind}: transfer, reversal or capture.
     * @param balanceAfterMinor      the account's posted total (all its sub-balances) right after this entry, in journal
     *                               order: what a statement's running balance and a balance at an instant read.
     */
    public void entry(
        final long commandIndex, final long timestampNs, final int ordinal, final long transferIndex, final long tenant,
        final long accountId, final long signedAmountMinor, final int currency, final int kind, final long balanceAfterMinor)
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
            entryKind = Arrays.copyOf(entryKind, n);
            entryBalanceAfter = Arrays.copyOf(entryBalanceAfter, n);
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
        entryKind[i] = kind;
        entryBalanceAfter[i] = balanceAfterMinor;
    }

    /** Appends a sub-balance's values after a command; {@code tenant} owns the account. */
    public void balance(
        final long commandIndex, final long tenant, final long accountId, final int subIndex, final long posted, final long held)
    {
        if (balanceCount == balanceAccount.length)
        {
            final int n = balanceCount * 2;
            balanceCommandIndex = Arrays.copyOf(balanceCommandIndex, n);
            balanceTenant = Arrays.copyOf(balanceTenant, n);
            balanceAccount = Arrays.copyOf(balanceAccount, n);
            balanceSub = Arrays.copyOf(balanceSub, n);
            balancePosted = Arrays.copyOf(balancePosted, n);
            balanceHeld = Arrays.copyOf(balanceHeld, n);
        }
        final int i = balanceCount++;
        balanceCommandIndex[i] = commandIndex;
        balanceTenant[i] = tenant;
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
            eventExtraTimestampNs = Arrays.copyOf(eventExtraTimestampNs, n);
            eventOverdraftLimitMinor = Arrays.copyOf(eventOverdraftLimitMinor, n);
            eventDebitsMustNotExceedCredits = Arrays.copyOf(eventDebitsMustNotExceedCredits, n);
            eventReferenceLength = Arrays.copyOf(eventReferenceLength, n);
            eventReferences = Arrays.copyOf(eventReferences, n * REFERENCE_STRIDE);
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
        eventExtraTimestampNs[i] = 0;
        eventOverdraftLimitMinor[i] = 0;
        eventDebitsMustNotExceedCredits[i] = false;
        eventReferenceLength[i] = 0;
        eventMetadataOffset[i] = eventMetadataUsed;
        eventMetadataLength[i] = 0;
    }

    /** Gives the event appended last (an account's creation) the account's rules. */
    public void eventAccountRules(final boolean debitsMustNotExceedCredits, final long overdraftLimitMinor)
    {
        eventDebitsMustNotExceedCredits[eventCount - 1] = debitsMustNotExceedCredits;
        eventOverdraftLimitMinor[eventCount - 1] = overdraftLimitMinor;
    }

    /** Gives the event appended last (a reversal) the journaled time of the transfer it names in {@code extra}. */
    public void eventExtraTimestampNs(final long timestampNs)
    {
        eventExtraTimestampNs[eventCount - 1] = timestampNs;
    }

    /** Gives the event appended last (a transfer) {@code length} bytes of reference text (copied). */
    public void eventReference(final byte[] reference, final int length)
    {
        final int i = eventCount - 1;
        System.arraycopy(reference, 0, eventReferences, i * REFERENCE_STRIDE, length);
        eventReferenceLength[i] = length;
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

    /** @return the {@code TransferKind} of the transfer the entry is a leg of. */
    public int entryKind(final int i)
    {
        return entryKind[i];
    }

    /** @return the account's posted total, over all its sub-balances, right after the entry. */
    public long entryBalanceAfter(final int i)
    {
        return entryBalanceAfter[i];
    }

    public int balanceCount()
    {
        return balanceCount;
    }

    public long balanceCommandIndex(final int i)
    {
        return balanceCommandIndex[i];
    }

    /** @return the tenant owning the balance's account. */
    public long balanceTenant(final int i)
    {
        return balanceTenant[i];
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

    /** @return for a {@link EventType#TRANSFER_REVERSED}, the reversed transfer's journaled time; else 0. */
    public long eventExtraTimestampNs(final int i)
    {
        return eventExtraTimestampNs[i];
    }

    /** @return for an {@link EventType#ACCOUNT_CREATED}, the account's overdraft limit; else 0. */
    public long eventOverdraftLimitMinor(final int i)
    {
        return eventOverdraftLimitMinor[i];
    }

    /** @return for an {@link EventType#ACCOUNT_CREATED}, whether the account's debits must not exceed its credits. */
    public boolean eventDebitsMustNotExceedCredits(final int i)
    {
        return eventDebitsMustNotExceedCredits[i];
    }

    /** @return bytes of reference text event {@code i} carries (0: none); they start at {@link #eventReferenceOffset}. */
    public int eventReferenceLength(final int i)
    {
        return eventReferenceLength[i];
    }

    public int eventReferenceOffset(final int i)
    {
        return i * REFERENCE_STRIDE;
    }

    /** @return the array every event's reference text is in; valid until the next unit starts. */
    public byte[] eventReferenceBytes()
    {
        return eventReferences;
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
