package dev.tally.ledger.cold;

/**
 * The keys and references a run of commands will look up, in the order {@link ColdLookup#prepare} will ask for them, so
 * that a source can answer them together ({@link ColdSource#prefetch}): one RocksDB {@code multiGet} costs about half
 * of as many single lookups, most of them of keys never filed. Fixed capacity; reused; allocation-free.
 */
public final class ColdAsks
{
    /** Keys (and as many references) asked together at most: one journal batch's share of a few hundred commands. */
    public static final int CAPACITY = 256;

    private final long[] keys = new long[2 * CAPACITY];
    private final long[] references = new long[2 * CAPACITY];
    private int keyCount;
    private int referenceCount;

    /** Forgets every ask. */
    public void clear()
    {
        keyCount = 0;
        referenceCount = 0;
    }

    /** @return true when another command's key and reference fit. */
    public boolean hasRoom()
    {
        return keyCount < CAPACITY && referenceCount < CAPACITY;
    }

    public void addKey(final long digestHi, final long digestLo)
    {
        keys[2 * keyCount] = digestHi;
        keys[2 * keyCount + 1] = digestLo;
        keyCount++;
    }

    public void addReference(final long digestHi, final long digestLo)
    {
        references[2 * referenceCount] = digestHi;
        references[2 * referenceCount + 1] = digestLo;
        referenceCount++;
    }

    public int keyCount()
    {
        return keyCount;
    }

    public long keyHi(final int i)
    {
        return keys[2 * i];
    }

    public long keyLo(final int i)
    {
        return keys[2 * i + 1];
    }

    public int referenceCount()
    {
        return referenceCount;
    }

    public long referenceHi(final int i)
    {
        return references[2 * i];
    }

    public long referenceLo(final int i)
    {
        return references[2 * i + 1];
    }
}
