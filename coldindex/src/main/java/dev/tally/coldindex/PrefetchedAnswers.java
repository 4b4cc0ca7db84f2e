package dev.tally.coldindex;

import java.util.List;

/**
 * One column family's answers to a {@code multiGet}, for the find calls that follow it in the same order: each find
 * takes the first answer at or after the cursor whose digest matches (a command that was refused before its lookup is
 * passed over), or says it was not prefetched.
 */
final class PrefetchedAnswers
{
    private final long[] digests = new long[2 * dev.tally.ledger.cold.ColdAsks.CAPACITY];
    private List<byte[]> values = List.of();
    private int count;
    private int cursor;

    /** Forgets every answer (before a prefetch, and when it failed). */
    void clear()
    {
        count = 0;
        cursor = 0;
        values = List.of();
    }

    void asked(final int i, final long digestHi, final long digestLo)
    {
        digests[2 * i] = digestHi;
        digests[2 * i + 1] = digestLo;
    }

    /** @param answers {@code multiGet}'s values for the {@code n} digests asked, null where absent. */
    void answered(final List<byte[]> answers, final int n)
    {
        values = answers;
        count = n;
        cursor = 0;
    }

    /** @return the answer's position, or -1 when the digest was not prefetched. */
    int take(final long digestHi, final long digestLo)
    {
        for (int i = cursor; i < count; i++)
        {
            if (digests[2 * i] == digestHi && digests[2 * i + 1] == digestLo)
            {
                cursor = i + 1;
                return i;
            }
        }
        return -1;
    }

    /** @return the value found at {@code position}, null when the index does not hold it. */
    byte[] value(final int position)
    {
        return values.get(position);
    }
}
