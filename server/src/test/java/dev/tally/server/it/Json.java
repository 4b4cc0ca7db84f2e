package dev.tally.server.it;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A parsed JSON value for assertions, built with jackson-core's streaming parser (the gateway has no
 * databind). Strict: duplicate member names and trailing content are errors, so every reply the tests
 * read is also checked to be one well-formed JSON document.
 *
 * <p>Objects are {@link Map}s in member order, arrays {@link List}s, numbers {@link BigDecimal}s, plus
 * {@link String}, {@link Boolean} and {@code null}. Reading a member that is absent fails the test.
 */
final class Json
{
    private static final JsonFactory FACTORY = JsonFactory.builder()
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .build();

    private final Object value;
    private final String path;

    private Json(final Object value, final String path)
    {
        this.value = value;
        this.path = path;
    }

    /** @throws AssertionError when {@code text} is not exactly one JSON value. */
    static Json parse(final String text)
    {
        try (JsonParser parser = FACTORY.createParser(text))
        {
            final JsonToken first = parser.nextToken();
            if (first == null)
            {
                throw new AssertionError("empty JSON document");
            }
            final Object value = read(parser, first);
            if (parser.nextToken() != null)
            {
                throw new AssertionError("content after the JSON value: " + text);
            }
            return new Json(value, "$");
        }
        catch (final IOException e)
        {
            throw new AssertionError("not JSON (" + e.getMessage() + "): " + text, e);
        }
    }

    private static Object read(final JsonParser parser, final JsonToken token) throws IOException
    {
        switch (token)
        {
            case START_OBJECT:
                final Map<String, Object> object = new LinkedHashMap<>();
                JsonToken next;
                while ((next = parser.nextToken()) == JsonToken.FIELD_NAME)
                {
                    final String name = parser.currentName();
                    object.put(name, read(parser, parser.nextToken()));
                }
                if (next != JsonToken.END_OBJECT)
                {
                    throw new IOException("unterminated object");
                }
                return object;
            case START_ARRAY:
                final List<Object> array = new ArrayList<>();
                JsonToken element;
                while ((element = parser.nextToken()) != JsonToken.END_ARRAY)
                {
                    if (element == null)
                    {
                        throw new IOException("unterminated array");
                    }
                    array.add(read(parser, element));
                }
                return array;
            case VALUE_STRING:
                return parser.getText();
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return new BigDecimal(parser.getText());
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return null;
            default:
                throw new IOException("unexpected token " + token);
        }
    }

    /** @return true when this is an object with the member {@code name}. */
    boolean has(final String name)
    {
        return value instanceof Map && ((Map<?, ?>)value).containsKey(name);
    }

    /** @return the member {@code name} of this object. */
    Json get(final String name)
    {
        if (!has(name))
        {
            throw new AssertionError(path + " has no member \"" + name + "\": " + value);
        }
        return new Json(((Map<?, ?>)value).get(name), path + "." + name);
    }

    /** @return element {@code index} of this array. */
    Json at(final int index)
    {
        final List<?> list = list();
        if (index < 0 || index >= list.size())
        {
            throw new AssertionError(path + " has no element " + index + " (size " + list.size() + ")");
        }
        return new Json(list.get(index), path + "[" + index + "]");
    }

    /** @return the number of elements of this array. */
    int size()
    {
        return list().size();
    }

    /** @return this string value. */
    String text()
    {
        if (!(value instanceof String))
        {
            throw new AssertionError(path + " is not a string: " + value);
        }
        return (String)value;
    }

    /** @return this integer value. */
    long asLong()
    {
        if (!(value instanceof BigDecimal))
        {
            throw new AssertionError(path + " is not a number: " + value);
        }
        return ((BigDecimal)value).longValueExact();
    }

    /**
     * @return this 64-bit id (an account or tenant id), which Tally writes as a JSON string of its decimal digits, never as
     *         a number (a JavaScript client would round one above 2^53).
     */
    long asId()
    {
        if (!(value instanceof String) || !((String)value).matches("[1-9][0-9]{0,18}"))
        {
            throw new AssertionError(path + " is not an id as a string of decimal digits: " + value);
        }
        return Long.parseLong((String)value);
    }

    /** @return this boolean value. */
    boolean asBoolean()
    {
        if (!(value instanceof Boolean))
        {
            throw new AssertionError(path + " is not a boolean: " + value);
        }
        return (Boolean)value;
    }

    /** @return this decimal string (an amount in major units) as a number. */
    BigDecimal amount()
    {
        return new BigDecimal(text());
    }

    private List<?> list()
    {
        if (!(value instanceof List))
        {
            throw new AssertionError(path + " is not an array: " + value);
        }
        return (List<?>)value;
    }

    @Override
    public String toString()
    {
        return String.valueOf(value);
    }
}
