package dev.tally.ledger.image;

import dev.tally.ledger.StateDigest;

/**
 * Copies the live part of a ring (from its head position, wrapping at capacity) into a flat array,
 * oldest first, and back: at most two {@code System.arraycopy} calls each way. Used by every table kept
 * as a ring (keys, references, transfers).
 */
public final class RingCopy
{
    private RingCopy()
    {
    }

    /**
     * @param ring         the table's ring.
     * @param stride       array elements per ring entry.
     * @param headPosition ring position of the oldest entry.
     * @param size         live entries.
     * @param capacity     ring positions.
     * @param out          receives {@code size * stride} elements from index 0.
     */
    public static void copyOut(
        final Object ring, final int stride, final int headPosition, final int size, final int capacity, final Object out)
    {
        final int first = Math.min(size, capacity - headPosition);
        System.arraycopy(ring, headPosition * stride, out, 0, first * stride);
        System.arraycopy(ring, 0, out, first * stride, (size - first) * stride);
    }

    /**
     * Copies an image section back into an empty ring, oldest entry at position 0.
     *
     * @return entries copied.
     * @throws IllegalArgumentException when the section is not whole entries or does not fit the ring.
     */
    public static int copyIn(final String table, final LongSection image, final long[] ring, final int stride, final int capacity)
    {
        final int entries = entries(table, image.length(), stride, capacity);
        System.arraycopy(image.values(), 0, ring, 0, image.length());
        return entries;
    }

    /**
     * Fills {@code ring} from its image, oldest entry at position 0, keeping only the newest {@code capacity} entries when
     * the image holds more: for a table that may be restored smaller than it was (its older entries are in the cold index).
     *
     * @return entries kept.
     */
    public static int copyInNewest(final String table, final LongSection image, final long[] ring, final int stride, final int capacity)
    {
        final int entries = entries(table, image.length(), stride, Integer.MAX_VALUE);
        final int kept = Math.min(entries, capacity);
        System.arraycopy(image.values(), (entries - kept) * stride, ring, 0, kept * stride);
        return kept;
    }

    /**
     * Folds a ring's image into {@code digest} exactly as {@code StateDigest.addRing} folds the live ring it
     * was copied from (oldest entry first), so the image's hash equals the ledger's.
     */
    public static void digest(final LongSection image, final int stride, final StateDigest digest)
    {
        final int size = image.length() / stride;
        digest.addRing(image.values(), stride, 0, size, Math.max(1, size));
    }

    /** Checks that an image section of {@code length} elements holds whole entries that fit the ring. @return entries. */
    public static int entries(final String table, final int length, final int stride, final int capacity)
    {
        if (length % stride != 0 || length / stride > capacity)
        {
            throw new IllegalArgumentException(table + " image holds " + length + " values: not whole entries of " + stride +
                ", or more than the capacity " + capacity);
        }
        return length / stride;
    }
}
