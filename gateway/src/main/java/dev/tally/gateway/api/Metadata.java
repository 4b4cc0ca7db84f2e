package dev.tally.gateway.api;


import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.tally.ledger.LedgerLimits;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A transfer's or an account's {@code metadata}: the client's own labels (an order id, a customer id, a team), as a flat
 * JSON object of string members, brought into one canonical form that everything after the gateway treats as opaque
 * bytes: the journal, the fingerprint, the reply, PostgreSQL ({@code transfers.metadata}, {@code accounts.metadata}) and
 * the outbox event.
 *
 * <p>Rules (what a payments API usually allows, sized so the canonical form fits
 * {@link LedgerLimits#METADATA_LENGTH_MAX} bytes): at most {@value #MEMBERS_MAX} members; names of 1 to
 * {@value #NAME_LENGTH_MAX} letters, digits, {@code _}, {@code -} or {@code .}, each once; values strings of at
 * most {@value #VALUE_LENGTH_MAX} characters of valid Unicode other than U+0000 (which PostgreSQL cannot store).
 * {@code {}} is the same as no metadata.
 *
 * <p>Canonical form: members sorted by name, no whitespace, UTF-8, and in values only {@code "} and {@code \}
 * escaped with a backslash and control characters as {@code \}{@code u00XX}; so member order, whitespace and
 * optional escapes in the request do not change the fingerprint, and a retry's reply is byte-identical.
 *
 * <p>Not thread-safe (scratch arrays reused): one per {@link BodyFields}, or {@link #canonicalOf} for one-off use.
 */
public final class Metadata
{
    /** Members an object holds at most (a listing's filter takes no more either). */
    public static final int MEMBERS_MAX = 20;
    static final int NAME_LENGTH_MAX = 40;
    static final int VALUE_LENGTH_MAX = 500;

    private static final JsonFactory JSON = new JsonFactory();

    private final String[] names = new String[MEMBERS_MAX];
    private final String[] values = new String[MEMBERS_MAX];
    private final StringBuilder text = new StringBuilder(LedgerLimits.METADATA_LENGTH_MAX);

    /** Why a metadata object was refused; the caller names the member it came in. */
    static final class Invalid extends Exception
    {
        private static final long serialVersionUID = 1L;

        Invalid(final String complaint)
        {
            super(complaint, null, false, false);
        }
    }

    /**
     * Reads the object whose {@code START_OBJECT} is the parser's current token, through its {@code END_OBJECT}, and
     * writes its canonical form into {@code out}.
     *
     * @return the canonical form's length in bytes; 0 for an empty object.
     */
    int canonical(final JsonParser parser, final byte[] out) throws IOException, Invalid
    {
        if (parser.currentToken() != JsonToken.START_OBJECT)
        {
            throw new Invalid("must be a JSON object of string members, such as {\"orderId\": \"A-17\"}");
        }
        try
        {
            return canonicalMembers(parser, out);
        }
        finally
        {
            java.util.Arrays.fill(names, null);   // the request's strings are not kept past it, refused or not
            java.util.Arrays.fill(values, null);
        }
    }

    private int canonicalMembers(final JsonParser parser, final byte[] out) throws IOException, Invalid
    {
        int count = 0;
        while (parser.nextToken() == JsonToken.FIELD_NAME)
        {
            final String name = parser.currentName();
            checkName(name);
            if (count == MEMBERS_MAX)
            {
                throw new Invalid("must have at most " + MEMBERS_MAX + " members");
            }
            for (int i = 0; i < count; i++)
            {
                if (names[i].equals(name))
                {
                    throw new Invalid("has the member \"" + name + "\" more than once");
                }
            }
            if (parser.nextToken() != JsonToken.VALUE_STRING)
            {
                throw new Invalid("member \"" + name + "\" must be a string");
            }
            final String value = parser.getText();
            checkValue(name, value);
            names[count] = name;
            values[count] = value;
            count++;
        }
        sortByName(count);
        return count == 0 ? 0 : write(count, out);
    }

    /**
     * @return the canonical form of {@code json}, a metadata object as PostgreSQL returns it (its {@code jsonb}
     * text orders and spaces members its own way), so that a read gives back what the transfer's reply gave.
     */
    public static byte[] canonicalOf(final String json)
    {
        try (JsonParser parser = JSON.createParser(json))
        {
            parser.nextToken();
            final byte[] out = new byte[LedgerLimits.METADATA_LENGTH_MAX];
            final int length = new Metadata().canonical(parser, out);
            return java.util.Arrays.copyOf(out, length);
        }
        catch (final IOException | Invalid ex)
        {
            throw new IllegalStateException("stored metadata is not canonicalisable: " + json, ex);
        }
    }

    /**
     * @return the canonical one-member object {@code {"name":"value"}} that a listing's metadata filter matches by
     *         containment, held to the rules of a member of a body's metadata.
     * @throws IllegalArgumentException naming what is wrong with the member.
     */
    public static String memberOf(final String name, final String value)
    {
        try
        {
            checkName(name);
            checkValue(name, value);
        }
        catch (final Invalid invalid)
        {
            throw new IllegalArgumentException("metadata " + invalid.getMessage(), invalid);
        }
        final StringBuilder member = new StringBuilder(name.length() + value.length() + 8).append("{\"").append(name).append("\":\"");
        escape(value, member);
        return member.append("\"}").toString();
    }

    private static void checkName(final String name) throws Invalid
    {
        boolean valid = !name.isEmpty() && name.length() <= NAME_LENGTH_MAX;
        for (int i = 0; valid && i < name.length(); i++)
        {
            final char c = name.charAt(i);
            valid = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
        }
        if (!valid)
        {
            throw new Invalid("member names must be 1 to " + NAME_LENGTH_MAX + " letters, digits, '_', '-' or '.'");
        }
    }

    private static void checkValue(final String name, final String value) throws Invalid
    {
        if (value.codePointCount(0, value.length()) > VALUE_LENGTH_MAX)   // characters as JSON Schema counts them
        {
            throw new Invalid("member \"" + name + "\" must be at most " + VALUE_LENGTH_MAX + " characters");
        }
        for (int i = 0; i < value.length(); i++)
        {
            final char c = value.charAt(i);
            if (c == 0)
            {
                // PostgreSQL's jsonb (and text) cannot hold U+0000: accepted here, it would stop the writer at this transfer
                throw new Invalid("member \"" + name + "\" must not contain U+0000");
            }
            if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1)))
            {
                i++;
            }
            else if (Character.isSurrogate(c))
            {
                throw new Invalid("member \"" + name + "\" must be valid Unicode (it has an unpaired surrogate)");
            }
        }
    }

    /** Insertion sort: at most {@value #MEMBERS_MAX} names, which are ASCII, so String order is byte order. */
    private void sortByName(final int count)
    {
        for (int i = 1; i < count; i++)
        {
            final String name = names[i];
            final String value = values[i];
            int j = i - 1;
            while (j >= 0 && names[j].compareTo(name) > 0)
            {
                names[j + 1] = names[j];
                values[j + 1] = values[j];
                j--;
            }
            names[j + 1] = name;
            values[j + 1] = value;
        }
    }

    private int write(final int count, final byte[] out) throws Invalid
    {
        final StringBuilder json = text;
        json.setLength(0);
        json.append('{');
        for (int i = 0; i < count; i++)
        {
            json.append(i == 0 ? "\"" : ",\"").append(names[i]).append("\":\"");
            escape(values[i], json);
            json.append('"');
        }
        json.append('}');
        // checkValue saw to it that every surrogate is paired, so UTF-8 encodes each character as it is
        final byte[] utf8 = json.toString().getBytes(StandardCharsets.UTF_8);
        if (utf8.length > out.length)
        {
            throw new Invalid("must be at most " + out.length + " bytes as compact JSON (UTF-8)");
        }
        System.arraycopy(utf8, 0, out, 0, utf8.length);
        return utf8.length;
    }

    /** JSON string content with only what must be escaped escaped: {@code "}, {@code \} and control characters. */
    private static void escape(final String value, final StringBuilder into)
    {
        for (int i = 0; i < value.length(); i++)
        {
            final char c = value.charAt(i);
            if (c == '"' || c == '\\')
            {
                into.append('\\').append(c);
            }
            else if (c < 0x20)
            {
                into.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xF, 16));
            }
            else
            {
                into.append(c);
            }
        }
    }
}
