package dev.tally.gateway.api.json;

/**
 * A reusable {@link CharSequence} view over a range of a {@code char[]}, so that token text from the
 * streaming JSON parser can be handed to {@code CharSequence} validators without building a
 * {@code String}. Only {@link #toString()} and {@link #subSequence} allocate.
 */
public final class CharSlice implements CharSequence
{
    private char[] chars;
    private int offset;
    private int length;

    public CharSlice wrap(final char[] chars, final int offset, final int length)
    {
        this.chars = chars;
        this.offset = offset;
        this.length = length;
        return this;
    }

    @Override
    public int length()
    {
        return length;
    }

    @Override
    public char charAt(final int index)
    {
        if (index < 0 || index >= length)
        {
            throw new IndexOutOfBoundsException(index);
        }
        return chars[offset + index];
    }

    @Override
    public CharSequence subSequence(final int start, final int end)
    {
        return toString().subSequence(start, end);
    }

    @Override
    public String toString()
    {
        return new String(chars, offset, length);
    }
}
