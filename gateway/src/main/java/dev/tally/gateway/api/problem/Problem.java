package dev.tally.gateway.api.problem;

import dev.tally.gateway.api.json.JsonOut;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.util.Arrays;

/**
 * An RFC 9457 problem: {@code type}, {@code title}, {@code status}, {@code detail} and optional extension
 * members (for example {@code "existingTransferId"}, {@code "field"}, {@code "operationIndex"}).
 *
 * <p>Immutable; built only on error paths, so it may allocate. Rendered as compact
 * {@value #CONTENT_TYPE} with members in a fixed order (type, title, status, detail, then extensions in
 * the order they were added), so the same problem always renders to the same bytes.
 */
public final class Problem
{
    /** The media type of a rendered problem. */
    public static final String CONTENT_TYPE = "application/problem+json";
    /** Details and extension values are cut to this many characters: they may echo client input. */
    public static final int TEXT_LENGTH_MAX = 256;

    private static final String[] NO_NAMES = new String[0];
    private static final Object[] NO_VALUES = new Object[0];

    private final ProblemType type;
    private final String detail;
    private final String[] memberNames;
    private final Object[] memberValues;

    /**
     * @param type   the kind of problem (gives type URI, title and status).
     * @param detail a human explanation of this occurrence; cut to {@link #TEXT_LENGTH_MAX} characters.
     */
    public Problem(final ProblemType type, final String detail)
    {
        this(type, cut(detail), NO_NAMES, NO_VALUES);
    }

    private Problem(final ProblemType type, final String detail, final String[] memberNames, final Object[] memberValues)
    {
        this.type = type;
        this.detail = detail;
        this.memberNames = memberNames;
        this.memberValues = memberValues;
    }

    /** @return a copy of this problem with one more string extension member. */
    public Problem with(final String name, final String value)
    {
        return withMember(name, cut(value));
    }

    /** @return a copy of this problem with one more integer extension member. */
    public Problem with(final String name, final long value)
    {
        return withMember(name, value);
    }

    /** @return the kind of problem. */
    public ProblemType type()
    {
        return type;
    }

    /** @return the HTTP status, that of the {@link #type()}. */
    public int status()
    {
        return type.status();
    }

    /** @return the human explanation of this occurrence. */
    public String detail()
    {
        return detail;
    }

    /**
     * @param name an extension member name.
     * @return its value ({@link String} or {@link Long}), or {@code null} when absent.
     */
    public Object member(final String name)
    {
        for (int i = 0; i < memberNames.length; i++)
        {
            if (memberNames[i].equals(name))
            {
                return memberValues[i];
            }
        }
        return null;
    }

    /** Appends this problem as {@value #CONTENT_TYPE} to {@code out}. */
    public void writeTo(final ByteBuf out)
    {
        writeTo(new JsonOut().wrap(out));
    }

    /** @return this problem as {@value #CONTENT_TYPE} bytes. */
    public byte[] toJson()
    {
        final ByteBuf buffer = Unpooled.buffer(256);
        try
        {
            writeTo(buffer);
            return ByteBufUtil.getBytes(buffer);
        }
        finally
        {
            buffer.release();
        }
    }

    /** Writes the problem object with the given writer (which may be inside a larger document). */
    public void writeTo(final JsonOut json)
    {
        json.beginObject()
            .field("type", type.uri())
            .field("title", type.title())
            .field("status", type.status())
            .field("detail", detail);
        for (int i = 0; i < memberNames.length; i++)
        {
            final Object value = memberValues[i];
            if (value instanceof Long)
            {
                json.field(memberNames[i], ((Long)value).longValue());
            }
            else
            {
                json.field(memberNames[i], (String)value);
            }
        }
        json.endObject();
    }

    @Override
    public String toString()
    {
        return "Problem{" + type.slug() + ": " + detail + (memberNames.length == 0 ? "" : " " + Arrays.toString(memberNames)) + '}';
    }

    private Problem withMember(final String name, final Object value)
    {
        final String[] names = Arrays.copyOf(memberNames, memberNames.length + 1);
        final Object[] values = Arrays.copyOf(memberValues, memberValues.length + 1);
        names[names.length - 1] = name;
        values[values.length - 1] = value;
        return new Problem(type, detail, names, values);
    }

    private static String cut(final String text)
    {
        return text.length() <= TEXT_LENGTH_MAX ? text : text.substring(0, TEXT_LENGTH_MAX);
    }
}
