package dev.tally.ledger.image;

/** One byte section of a {@link StateImage}: a reusable {@code byte[]} and how many bytes are in use. */
public final class ByteSection
{
    private byte[] values = new byte[0];
    private int length;

    /** @return the backing array; bytes {@code [0, length())} are the section's content. */
    public byte[] values()
    {
        return values;
    }

    /** @return bytes in use. */
    public int length()
    {
        return length;
    }

    /** As {@link LongSection#reserve}: grows the array ahead of a copy of about {@code expectedLength} bytes. */
    public void reserve(final int expectedLength)
    {
        if (values.length < ImageCapacity.withMargin(expectedLength))
        {
            values = new byte[ImageCapacity.withHeadroom(expectedLength)];
        }
    }

    /** Sets the length, growing the array when it is too small (content is not kept). @return the array. */
    public byte[] resize(final int newLength)
    {
        if (newLength < 0)
        {
            throw new IllegalArgumentException("negative section length " + newLength);
        }
        if (newLength > values.length)
        {
            values = new byte[ImageCapacity.withHeadroom(newLength)];
        }
        length = newLength;
        return values;
    }
}
