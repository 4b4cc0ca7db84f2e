package dev.tally.ledger.image;

/**
 * One section of a {@link StateImage}: a reusable {@code long[]} and how many of its values are in use.
 *
 * <p>It grows only when a copy needs more than it has, with a quarter of headroom, so that a ledger whose
 * state grows slowly reallocates it rarely; the snapshotter sizes it for the live state at start-up.
 */
public final class LongSection
{
    private long[] values = new long[0];
    private int length;

    /** @return the backing array; values {@code [0, length())} are the section's content. */
    public long[] values()
    {
        return values;
    }

    /** @return values in use. */
    public int length()
    {
        return length;
    }

    /**
     * Grows the array ahead of a copy of about {@code expectedLength} values (content is not kept), so that
     * the copy itself does not allocate: called off the business thread, while no copy is under way.
     */
    public void reserve(final int expectedLength)
    {
        if (values.length < ImageCapacity.withMargin(expectedLength))
        {
            values = new long[ImageCapacity.withHeadroom(expectedLength)];
        }
    }

    /**
     * Sets the length to {@code newLength}, growing the array when it is too small (content is not kept).
     *
     * @return the backing array, at least {@code newLength} long.
     */
    public long[] resize(final int newLength)
    {
        if (newLength < 0)
        {
            throw new IllegalArgumentException("negative section length " + newLength);
        }
        if (newLength > values.length)
        {
            values = new long[ImageCapacity.withHeadroom(newLength)];
        }
        length = newLength;
        return values;
    }
}
