package dev.tally.persistence.writer;

import org.agrona.DirectBuffer;

import java.util.Arrays;

import static dev.tally.persistence.writer.EffectRecords.*;

/**
 * The writer's accumulator: whole units of work read from the ring, kept as parallel primitive arrays until
 * they are written in one transaction. Writer thread only. Arrays double when a batch needs more (a large
 * atomic batch), so steady state allocates nothing.
 *
 * <p>Balances keep only the last value per (tenant, account, sub-balance): whatever a batch did to a
 * sub-balance, PostgreSQL gets one UPDATE with its final value and the journal index that produced it.
 */
final class WriteBatch
{
    private static final int INITIAL = 1 << 12;

    // units
    int units;
    long lastUnitIndex;
    long lastUnitTimeNs;
    long openedAtNs;
    long minTimeNs = Long.MAX_VALUE;
    long maxTimeNs = Long.MIN_VALUE;
    private boolean inUnit;
    private long openUnitTimeNs;

    // entries
    int entries;
    long[] entryCommand = new long[INITIAL];
    long[] entryTime = new long[INITIAL];
    long[] entryTransfer = new long[INITIAL];
    long[] entryTenant = new long[INITIAL];
    long[] entryAccount = new long[INITIAL];
    long[] entryAmount = new long[INITIAL];
    int[] entryOrdinal = new int[INITIAL];
    int[] entryCurrency = new int[INITIAL];
    int[] entryKind = new int[INITIAL];
    long[] entryBalanceAfter = new long[INITIAL];

    // events
    int events;
    long[] eventCommand = new long[INITIAL];
    long[] eventTime = new long[INITIAL];
    long[] eventTenant = new long[INITIAL];
    long[] eventSubject = new long[INITIAL];
    long[] eventAccountA = new long[INITIAL];
    long[] eventAccountB = new long[INITIAL];
    long[] eventAmount = new long[INITIAL];
    long[] eventExtra = new long[INITIAL];
    long[] eventAuxLong = new long[INITIAL];
    int[] eventOrdinal = new int[INITIAL];
    int[] eventType = new int[INITIAL];
    int[] eventCurrency = new int[INITIAL];
    int[] eventAuxInt = new int[INITIAL];
    int[] eventReferenceOffset = new int[INITIAL];
    int[] eventReferenceLength = new int[INITIAL];
    byte[] references = new byte[INITIAL * 16];
    private int referenceBytes;
    /** A posted transfer's metadata (canonical JSON object, UTF-8): length 0 for none. */
    int[] eventMetadataOffset = new int[INITIAL];
    int[] eventMetadataLength = new int[INITIAL];
    byte[] metadata = new byte[INITIAL * 16];
    private int metadataBytes;

    // balances: last value per key, open addressing over (tenant, account, sub)
    int balances;
    long[] balanceCommand = new long[INITIAL];
    long[] balanceTenant = new long[INITIAL];
    long[] balanceAccount = new long[INITIAL];
    long[] balancePosted = new long[INITIAL];
    long[] balanceHeld = new long[INITIAL];
    int[] balanceSub = new int[INITIAL];
    private int[] balanceSlots = new int[INITIAL * 2];
    /** The balances' positions in key order ({@link #balancesInKeyOrder}). */
    private int[] balanceOrder = new int[INITIAL];

    WriteBatch()
    {
        Arrays.fill(balanceSlots, -1);
    }

    /** @return rows this batch will write, roughly: entries, events (each an outbox row and often more), balances. */
    int rows()
    {
        return entries + events + balances;
    }

    boolean isEmpty()
    {
        return units == 0;
    }

    /** @return true between a UNIT_BEGIN and its UNIT_END. */
    boolean inUnit()
    {
        return inUnit;
    }

    /**
     * @param lastIndex   the unit's last journal index.
     * @param unitTimeNs  journaled time of the unit's last command.
     * @param nowNs       monotonic clock, read when the batch is empty (its age starts then).
     */
    void beginUnit(final long lastIndex, final long unitTimeNs, final long nowNs)
    {
        if (inUnit)
        {
            throw new IllegalStateException("unit " + lastIndex + " began before unit " + lastUnitIndex + " ended");
        }
        if (units == 0)
        {
            openedAtNs = nowNs;
        }
        inUnit = true;
        lastUnitIndex = lastIndex;
        openUnitTimeNs = unitTimeNs;
    }

    void endUnit(final long lastIndex)
    {
        if (!inUnit || lastIndex != lastUnitIndex)
        {
            throw new IllegalStateException("unit end " + lastIndex + " does not match its beginning " + lastUnitIndex);
        }
        inUnit = false;
        units++;
        lastUnitTimeNs = openUnitTimeNs;
        noteTime(openUnitTimeNs);
    }

    void addEntry(final DirectBuffer b, final int index)
    {
        if (entries == entryCommand.length)
        {
            growEntries();
        }
        final int i = entries++;
        entryCommand[i] = b.getLong(index + ENTRY_COMMAND_INDEX);
        entryTime[i] = b.getLong(index + ENTRY_TIMESTAMP);
        entryTransfer[i] = entryCommand[i];   // EffectRecords: a transfer's legs are its own command's
        entryTenant[i] = b.getLong(index + ENTRY_TENANT);
        entryAccount[i] = b.getLong(index + ENTRY_ACCOUNT);
        entryAmount[i] = b.getLong(index + ENTRY_AMOUNT);
        entryOrdinal[i] = b.getShort(index + ENTRY_ORDINAL);
        entryKind[i] = b.getShort(index + ENTRY_KIND);
        entryCurrency[i] = b.getInt(index + ENTRY_CURRENCY);
        entryBalanceAfter[i] = b.getLong(index + ENTRY_BALANCE_AFTER);
        noteTime(entryTime[i]);
    }

    void addEvent(final DirectBuffer b, final int index)
    {
        if (events == eventCommand.length)
        {
            growEvents();
        }
        final int i = events++;
        eventCommand[i] = b.getLong(index + EVENT_COMMAND_INDEX);
        eventTime[i] = b.getLong(index + EVENT_TIMESTAMP);
        eventTenant[i] = b.getLong(index + EVENT_TENANT);
        eventSubject[i] = b.getLong(index + EVENT_SUBJECT);
        eventAccountA[i] = b.getLong(index + EVENT_ACCOUNT_A);
        eventAccountB[i] = b.getLong(index + EVENT_ACCOUNT_B);
        eventAmount[i] = b.getLong(index + EVENT_AMOUNT);
        eventExtra[i] = b.getLong(index + EVENT_EXTRA);
        eventAuxLong[i] = b.getLong(index + EVENT_AUX_LONG);
        eventOrdinal[i] = b.getInt(index + EVENT_ORDINAL);
        eventType[i] = b.getInt(index + EVENT_TYPE);
        eventCurrency[i] = b.getInt(index + EVENT_CURRENCY);
        eventAuxInt[i] = b.getInt(index + EVENT_AUX_INT);
        final int length = b.getInt(index + EVENT_REFERENCE_LENGTH);
        references = room(references, referenceBytes, length);
        b.getBytes(index + EVENT_REFERENCE, references, referenceBytes, length);
        eventReferenceOffset[i] = referenceBytes;
        eventReferenceLength[i] = length;
        referenceBytes += length;
        final int metadataLength = b.getInt(index + EVENT_METADATA_LENGTH);
        metadata = room(metadata, metadataBytes, metadataLength);
        b.getBytes(index + EVENT_REFERENCE + length, metadata, metadataBytes, metadataLength);
        eventMetadataOffset[i] = metadataBytes;
        eventMetadataLength[i] = metadataLength;
        metadataBytes += metadataLength;
        noteTime(eventTime[i]);
    }

    /** @return {@code bytes}, or a copy twice as large (at least) when {@code more} bytes do not fit after {@code used}. */
    private static byte[] room(final byte[] bytes, final int used, final int more)
    {
        return used + more <= bytes.length ? bytes : Arrays.copyOf(bytes, Math.max(bytes.length * 2, used + more));
    }

    /** Records a sub-balance's value after a command; a later value for the same key replaces it. */
    void addBalance(final DirectBuffer b, final int index)
    {
        final long tenant = b.getLong(index + BALANCE_TENANT);
        final long account = b.getLong(index + BALANCE_ACCOUNT);
        final int sub = b.getInt(index + BALANCE_SUB);
        int slot = slotOf(tenant, account, sub);
        int i = balanceSlots[slot];
        if (i < 0)
        {
            if (balances == balanceCommand.length)
            {
                growBalances();
                slot = slotOf(tenant, account, sub);
            }
            i = balances++;
            balanceSlots[slot] = i;
            balanceTenant[i] = tenant;
            balanceAccount[i] = account;
            balanceSub[i] = sub;
        }
        balanceCommand[i] = b.getLong(index + BALANCE_COMMAND_INDEX);
        balancePosted[i] = b.getLong(index + BALANCE_POSTED);
        balanceHeld[i] = b.getLong(index + BALANCE_HELD);
    }

    /**
     * The positions of this batch's balances sorted by (tenant, account, sub-balance), the order of the balances'
     * primary key: PostgreSQL updates the staged rows in the order they were copied, so consecutive updates probe
     * neighbouring index and heap pages (a few thousand balances of a batch share a few hundred leaf pages) instead
     * of a random page each. The array is reused: valid until the next call.
     *
     * @return positions {@code [0, balances)} in key order, in an array at least that long.
     */
    int[] balancesInKeyOrder()
    {
        if (balanceOrder.length < balances)
        {
            balanceOrder = new int[balanceCommand.length];
        }
        for (int i = 0; i < balances; i++)
        {
            balanceOrder[i] = i;
        }
        sortByKey(balanceOrder, 0, balances - 1);
        return balanceOrder;
    }

    /** Quicksort of positions by balance key (median of three, insertion sort below 16): no allocation, no boxing. */
    private void sortByKey(final int[] order, final int fromInclusive, final int toInclusive)
    {
        int lo = fromInclusive;
        int hi = toInclusive;
        while (hi - lo >= 16)
        {
            final int mid = (lo + hi) >>> 1;
            if (compareKeys(order[mid], order[lo]) < 0)
            {
                swap(order, mid, lo);
            }
            if (compareKeys(order[hi], order[lo]) < 0)
            {
                swap(order, hi, lo);
            }
            if (compareKeys(order[hi], order[mid]) < 0)
            {
                swap(order, hi, mid);
            }
            final int pivot = order[mid];
            int i = lo;
            int j = hi;
            while (i <= j)
            {
                while (compareKeys(order[i], pivot) < 0)
                {
                    i++;
                }
                while (compareKeys(order[j], pivot) > 0)
                {
                    j--;
                }
                if (i <= j)
                {
                    swap(order, i++, j--);
                }
            }
            // recurse into the smaller side, loop on the larger: the stack stays O(log n)
            if (j - lo < hi - i)
            {
                sortByKey(order, lo, j);
                lo = i;
            }
            else
            {
                sortByKey(order, i, hi);
                hi = j;
            }
        }
        for (int i = lo + 1; i <= hi; i++)
        {
            final int value = order[i];
            int k = i - 1;
            while (k >= lo && compareKeys(order[k], value) > 0)
            {
                order[k + 1] = order[k];
                k--;
            }
            order[k + 1] = value;
        }
    }

    private int compareKeys(final int a, final int b)
    {
        int c = Long.compare(balanceTenant[a], balanceTenant[b]);
        if (c == 0)
        {
            c = Long.compare(balanceAccount[a], balanceAccount[b]);
        }
        return c != 0 ? c : Integer.compare(balanceSub[a], balanceSub[b]);
    }

    private static void swap(final int[] order, final int a, final int b)
    {
        final int t = order[a];
        order[a] = order[b];
        order[b] = t;
    }

    /** Empties the batch after a commit. */
    void clear()
    {
        if (balances > 0)
        {
            Arrays.fill(balanceSlots, -1);
        }
        units = 0;
        entries = 0;
        events = 0;
        balances = 0;
        referenceBytes = 0;
        metadataBytes = 0;
        minTimeNs = Long.MAX_VALUE;
        maxTimeNs = Long.MIN_VALUE;
        inUnit = false;
    }

    private void noteTime(final long timeNs)
    {
        minTimeNs = Math.min(minTimeNs, timeNs);
        maxTimeNs = Math.max(maxTimeNs, timeNs);
    }

    /** @return the slot of the table holding the key, or the free slot where it belongs (linear probing). */
    private int slotOf(final long tenant, final long account, final int sub)
    {
        final int mask = balanceSlots.length - 1;
        int slot = hash(tenant, account, sub) & mask;
        while (true)
        {
            final int i = balanceSlots[slot];
            if (i < 0 || (balanceTenant[i] == tenant && balanceAccount[i] == account && balanceSub[i] == sub))
            {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
    }

    private static int hash(final long tenant, final long account, final int sub)
    {
        long h = tenant * 0x9E3779B97F4A7C15L + account;
        h = (h ^ (h >>> 29)) * 0xBF58476D1CE4E5B9L + sub;
        h ^= h >>> 32;
        return (int)h;
    }

    private void growEntries()
    {
        final int n = entryCommand.length * 2;
        entryCommand = Arrays.copyOf(entryCommand, n);
        entryTime = Arrays.copyOf(entryTime, n);
        entryTransfer = Arrays.copyOf(entryTransfer, n);
        entryTenant = Arrays.copyOf(entryTenant, n);
        entryAccount = Arrays.copyOf(entryAccount, n);
        entryAmount = Arrays.copyOf(entryAmount, n);
        entryOrdinal = Arrays.copyOf(entryOrdinal, n);
        entryCurrency = Arrays.copyOf(entryCurrency, n);
        entryKind = Arrays.copyOf(entryKind, n);
        entryBalanceAfter = Arrays.copyOf(entryBalanceAfter, n);
    }

    private void growEvents()
    {
        final int n = eventCommand.length * 2;
        eventCommand = Arrays.copyOf(eventCommand, n);
        eventTime = Arrays.copyOf(eventTime, n);
        eventTenant = Arrays.copyOf(eventTenant, n);
        eventSubject = Arrays.copyOf(eventSubject, n);
        eventAccountA = Arrays.copyOf(eventAccountA, n);
        eventAccountB = Arrays.copyOf(eventAccountB, n);
        eventAmount = Arrays.copyOf(eventAmount, n);
        eventExtra = Arrays.copyOf(eventExtra, n);
        eventAuxLong = Arrays.copyOf(eventAuxLong, n);
        eventOrdinal = Arrays.copyOf(eventOrdinal, n);
        eventType = Arrays.copyOf(eventType, n);
        eventCurrency = Arrays.copyOf(eventCurrency, n);
        eventAuxInt = Arrays.copyOf(eventAuxInt, n);
        eventReferenceOffset = Arrays.copyOf(eventReferenceOffset, n);
        eventReferenceLength = Arrays.copyOf(eventReferenceLength, n);
        eventMetadataOffset = Arrays.copyOf(eventMetadataOffset, n);
        eventMetadataLength = Arrays.copyOf(eventMetadataLength, n);
    }

    /** Doubles the value arrays and rebuilds the slot table at twice their size (load factor ≤ 0.5). */
    private void growBalances()
    {
        final int n = balanceCommand.length * 2;
        balanceCommand = Arrays.copyOf(balanceCommand, n);
        balanceTenant = Arrays.copyOf(balanceTenant, n);
        balanceAccount = Arrays.copyOf(balanceAccount, n);
        balancePosted = Arrays.copyOf(balancePosted, n);
        balanceHeld = Arrays.copyOf(balanceHeld, n);
        balanceSub = Arrays.copyOf(balanceSub, n);
        balanceSlots = new int[n * 2];
        Arrays.fill(balanceSlots, -1);
        for (int i = 0; i < balances; i++)
        {
            balanceSlots[slotOf(balanceTenant[i], balanceAccount[i], balanceSub[i])] = i;
        }
    }
}
