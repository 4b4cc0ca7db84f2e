package dev.tally.gateway.http;

import dev.tally.gateway.api.IdempotencyKey;
import dev.tally.gateway.api.Metadata;
import dev.tally.gateway.api.routing.ResourceId;
import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.id.Uuid7;
import dev.tally.persistence.read.AccountTransfersFilter;
import dev.tally.persistence.read.AccountsFilter;
import dev.tally.persistence.read.LedgerReads;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The query strings of every read that takes one, decoded and checked: the lookup by reference, the listings, the
 * entries, an account at a past point and statements. The I/O thread checks each one before it publishes the read (a
 * 400 then queues in the ring behind earlier pipelined requests, in order); the read pool parses the same text again
 * when it runs the query.
 *
 * <p>Strict, as request bodies are: an unknown parameter, one given twice, an empty value, a malformed percent escape
 * or a value out of its range is an {@link IllegalArgumentException} whose message is the 400's detail. Values are
 * percent-decoded; {@code +} is a plus sign, not a space (references may hold one, and no value here holds a space).
 * Instants are RFC 3339 date-times with an offset ({@code 2026-05-01T12:00:00Z}, {@code 2026-05-01T15:00:00.250+03:00};
 * {@code t} and {@code z} in either case, as RFC 3339 allows), from 1970 to the last microsecond of 9999: PostgreSQL
 * keeps microseconds, so a later nanosecond of that year would round past it.
 */
final class ReadQuery
{
    /** Rows of one page when {@code limit} is absent. */
    static final int PAGE_DEFAULT = ReadModelQueries.PAGE_DEFAULT;
    /** The largest journal index an id holds (Uuid7: 48 of its low bits after the variant). */
    static final long JOURNAL_INDEX_MAX = (1L << 48) - 1;
    /** The earliest instant a read names: journaled times are Unix epoch times. */
    private static final Instant INSTANT_MIN = Instant.EPOCH;
    /** The latest: the last microsecond of 9999 (the id's 48 bits of milliseconds end in the year 10889, far past any journal). */
    private static final Instant INSTANT_MAX = Instant.parse("9999-12-31T23:59:59.999999Z");
    /** The one parameter a query may repeat: {@code GET /v1/accounts?metadata=team:ops&metadata=region:eu}, all must match. */
    private static final String METADATA = "metadata";
    private static final Set<String> ACCOUNTS_PARAMETERS = Set.of("limit", "after", "currency", "createdFrom", "createdTo", METADATA);
    private static final Set<String> ACCOUNT_TRANSFERS_PARAMETERS = Set.of("limit", "after", "from", "to", "direction");
    private static final Set<String> REFERENCE_PARAMETERS = Set.of("reference");
    private static final Set<String> ENTRIES_PARAMETERS = Set.of("limit", "after");
    private static final Set<String> POINT_PARAMETERS = Set.of("at", "atIndex");
    private static final Set<String> PERIOD_PARAMETERS = Set.of("from", "to");

    private ReadQuery()
    {
    }

    /** @return the reference {@code GET /v1/transfers?reference=} asks for: 1 to 64 visible ASCII characters. */
    static String reference(final String query)
    {
        final String reference = parse(query, REFERENCE_PARAMETERS).get("reference");
        if (reference == null)
        {
            throw new IllegalArgumentException("reference is required: GET /v1/transfers?reference=<the transfer's reference>");
        }
        if (!IdempotencyKey.isVisibleAsciiToken(reference, LedgerLimits.REFERENCE_LENGTH_MAX))
        {
            throw new IllegalArgumentException("reference must be 1 to " + LedgerLimits.REFERENCE_LENGTH_MAX +
                " visible ASCII characters (percent-encoded in the query)");
        }
        return reference;
    }

    /** @return the page {@code GET /v1/accounts} asks for. */
    static AccountsFilter accounts(final String query)
    {
        final List<String> members = new ArrayList<>();
        final Map<String, String> parameters = parse(query, ACCOUNTS_PARAMETERS, members);
        final String currency = parameters.get("currency");
        if (currency != null && CurrencyCode.minorDigits(CurrencyCode.pack(currency)) < 0)
        {
            throw new IllegalArgumentException("currency must be an ISO 4217 code the ledger accepts, upper case (e.g. TRY), was " + currency);
        }
        final Instant from = instant(parameters, "createdFrom");
        final Instant to = instant(parameters, "createdTo");
        checkRange(from, to, "createdFrom", "createdTo");
        final String after = parameters.get("after");
        long afterId = 0;
        if (after != null)
        {
            afterId = ResourceId.parseAccountId(after);
            if (afterId == ResourceId.INVALID_ACCOUNT_ID)
            {
                throw new IllegalArgumentException("after must be the next cursor of the previous page (an account id), was " + after);
            }
        }
        return new AccountsFilter(currency, from, to, afterId, limit(parameters), metadataMembers(members));
    }

    /**
     * @return each {@code metadata=name:value} as the one-member object the account's metadata must contain: the name up to
     *         the first colon (names hold none), the value after it as percent-encoded UTF-8, both held to the rules of a
     *         member of a body's metadata.
     */
    private static List<String> metadataMembers(final List<String> parameters)
    {
        if (parameters.size() > Metadata.MEMBERS_MAX)   // an account's metadata holds no more: more could never all match
        {
            throw new IllegalArgumentException("metadata is given " + parameters.size() + " times; at most " + Metadata.MEMBERS_MAX +
                " members can all match");
        }
        final List<String> members = new ArrayList<>(parameters.size());
        for (final String parameter : parameters)
        {
            final int colon = parameter.indexOf(':');
            if (colon < 1)
            {
                throw new IllegalArgumentException("metadata must be name:value, such as metadata=team:ops (the value " +
                    "percent-encoded UTF-8), was " + parameter);
            }
            members.add(Metadata.memberOf(parameter.substring(0, colon), utf8(parameter.substring(colon + 1))));
        }
        return members;
    }

    /** @return {@code bytes} (a decoded value, one char per byte) read as UTF-8; malformed UTF-8 is refused. */
    private static String utf8(final String bytes)
    {
        try
        {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes.getBytes(StandardCharsets.ISO_8859_1))).toString();
        }
        catch (final CharacterCodingException ex)
        {
            throw new IllegalArgumentException("metadata values must be percent-encoded UTF-8", ex);
        }
    }

    /** @return the page {@code GET /v1/accounts/{id}/transfers} asks for. */
    static AccountTransfersFilter accountTransfers(final String query)
    {
        final Map<String, String> parameters = parse(query, ACCOUNT_TRANSFERS_PARAMETERS);
        final Instant from = instant(parameters, "from");
        final Instant to = instant(parameters, "to");
        checkRange(from, to, "from", "to");
        final String after = parameters.get("after");
        final UUID afterId = after == null ? null : entryId(after);
        return new AccountTransfersFilter(from, to, direction(parameters.get("direction")), afterId, limit(parameters));
    }

    /** A page of {@code GET /v1/accounts/{id}/entries}: its size and the entry it starts after (null: the first). */
    record EntriesPage(int limit, UUID after)
    {
    }

    /** @return the page {@code GET /v1/accounts/{id}/entries} asks for. */
    static EntriesPage entries(final String query)
    {
        final Map<String, String> parameters = parse(query, ENTRIES_PARAMETERS);
        final String after = parameters.get("after");
        return new EntriesPage(limit(parameters), after == null ? null : entryId(after));
    }

    /** A point of the journal an account read asks for: an instant, or a journal index ({@code at} null). */
    record Point(Instant at, long atIndex)
    {
    }

    /**
     * @return the point {@code GET /v1/accounts/{id}?at=|atIndex=} asks for, or null when the query names none (the
     * account now, from memory).
     */
    static Point point(final String query)
    {
        final Map<String, String> parameters = parse(query, POINT_PARAMETERS);
        final Instant at = instant(parameters, "at");
        final long atIndex = journalIndex(parameters, "atIndex");
        if (at != null && atIndex >= 0)
        {
            throw new IllegalArgumentException("give at or atIndex, not both");
        }
        return at == null && atIndex < 0 ? null : new Point(at, atIndex);
    }

    /** The period of a statement: entries journaled after {@code from}, up to and including {@code to}. */
    record Period(Instant from, Instant to)
    {
    }

    /** @return the period {@code GET /v1/accounts/{id}/statement} asks for: both ends required, from at or before to. */
    static Period period(final String query)
    {
        final Map<String, String> parameters = parse(query, PERIOD_PARAMETERS);
        final Instant from = instant(parameters, "from");
        final Instant to = instant(parameters, "to");
        if (from == null || to == null)
        {
            throw new IllegalArgumentException("a statement needs from and to, RFC 3339 date-times with an offset");
        }
        checkRange(from, to, "from", "to");
        return new Period(from, to);
    }

    /** @return the entry id a cursor of the entries and account transfers listings is (lower-case, as {@code next} gives it). */
    private static UUID entryId(final String cursor)
    {
        UUID id = null;
        if (cursor.length() == ResourceId.UUID_LENGTH)
        {
            try
            {
                id = UUID.fromString(cursor);
            }
            catch (final IllegalArgumentException ex)
            {
                id = null;
            }
        }
        if (id == null || !id.toString().equals(cursor) || Uuid7.kind(id.getMostSignificantBits()) != Uuid7.KIND_ENTRY ||
            Uuid7.journalIndex(id.getMostSignificantBits(), id.getLeastSignificantBits()) < 1)
        {
            throw new IllegalArgumentException("after must be the next cursor of the previous page, was " + cursor);
        }
        return id;
    }

    /** @return why {@code query} is not a valid query of {@code parse}, or null. */
    static String invalid(final String query, final java.util.function.Function<String, ?> parse)
    {
        try
        {
            parse.apply(query);
            return null;
        }
        catch (final IllegalArgumentException ex)
        {
            return ex.getMessage();
        }
    }

    private static int direction(final String text)
    {
        if (text == null || "any".equals(text))
        {
            return AccountTransfersFilter.ANY;
        }
        if ("debit".equals(text))
        {
            return AccountTransfersFilter.DEBIT;
        }
        if ("credit".equals(text))
        {
            return AccountTransfersFilter.CREDIT;
        }
        throw new IllegalArgumentException("direction must be debit, credit or any, was " + text);
    }

    private static int limit(final Map<String, String> parameters)
    {
        final String text = parameters.get("limit");
        if (text == null)
        {
            return PAGE_DEFAULT;
        }
        final String range = "limit must be an integer from 1 to " + LedgerReads.ENTRIES_PAGE_MAX + ", was " + text;
        if (text.length() > 4 || !text.chars().allMatch(c -> c >= '0' && c <= '9'))
        {
            throw new IllegalArgumentException(range);
        }
        final int limit = Integer.parseInt(text);
        if (limit < 1 || limit > LedgerReads.ENTRIES_PAGE_MAX)
        {
            throw new IllegalArgumentException(range);
        }
        return limit;
    }

    /** @return parameter {@code name} as a journal index (0 to {@link #JOURNAL_INDEX_MAX}, decimal digits), or -1 when absent. */
    private static long journalIndex(final Map<String, String> parameters, final String name)
    {
        final String text = parameters.get(name);
        if (text == null)
        {
            return -1;
        }
        if (text.length() > 18 || !text.chars().allMatch(c -> c >= '0' && c <= '9'))
        {
            throw new IllegalArgumentException(name + " must be a journal index (a whole number from 0), was " + text);
        }
        final long index = Long.parseLong(text);
        if (index > JOURNAL_INDEX_MAX)
        {
            throw new IllegalArgumentException(name + " must be a journal index from 0 to " + JOURNAL_INDEX_MAX + ", was " + text);
        }
        return index;
    }

    private static Instant instant(final Map<String, String> parameters, final String name)
    {
        final String text = parameters.get(name);
        if (text == null)
        {
            return null;
        }
        final Instant instant;
        try
        {
            instant = OffsetDateTime.parse(text.toUpperCase(Locale.ROOT), DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
        }
        catch (final DateTimeParseException ex)
        {
            throw new IllegalArgumentException(name + " must be an RFC 3339 date-time with an offset, e.g. 2026-05-01T12:00:00Z " +
                "(a + in the offset percent-encoded as %2B), was " + text, ex);
        }
        if (instant.isBefore(INSTANT_MIN) || instant.isAfter(INSTANT_MAX))
        {
            throw new IllegalArgumentException(name + " must be between " + INSTANT_MIN + " and " + INSTANT_MAX + ", was " + text);
        }
        return instant;
    }

    private static void checkRange(final Instant from, final Instant to, final String fromName, final String toName)
    {
        if (from != null && to != null && from.isAfter(to))
        {
            throw new IllegalArgumentException(fromName + " (" + from + ") is after " + toName + " (" + to + ")");
        }
    }

    /** @return the decoded parameters, in order; rejects unknown, repeated and empty ones. */
    private static Map<String, String> parse(final String query, final Set<String> known)
    {
        return parse(query, known, null);
    }

    /**
     * @param metadata receives every {@code metadata} value, which may repeat (null: the route takes none); the others are
     *                 returned as {@link #parse(String, Set)} returns them.
     */
    private static Map<String, String> parse(final String query, final Set<String> known, final List<String> metadata)
    {
        final Map<String, String> parameters = new LinkedHashMap<>();
        if (query == null || query.isEmpty())
        {
            return parameters;
        }
        for (final String pair : query.split("&", -1))
        {
            final int eq = pair.indexOf('=');
            final String name = decode(eq < 0 ? pair : pair.substring(0, eq), "a parameter name");
            if (!known.contains(name))
            {
                throw new IllegalArgumentException("unknown query parameter '" + name + "'; this route takes " + String.join(", ",
                    new java.util.TreeSet<>(known)));
            }
            final String value = eq < 0 ? "" : decode(pair.substring(eq + 1), name);
            if (value.isEmpty())
            {
                throw new IllegalArgumentException(name + " has no value");
            }
            if (metadata != null && METADATA.equals(name))
            {
                metadata.add(value);
            }
            else if (parameters.put(name, value) != null)
            {
                throw new IllegalArgumentException(name + " is given more than once");
            }
        }
        return parameters;
    }

    /** Percent-decodes {@code text} as bytes; a byte outside ASCII is kept as is and refused by the value's own check. */
    private static String decode(final String text, final String what)
    {
        if (text.indexOf('%') < 0)
        {
            return text;
        }
        final byte[] out = new byte[text.length()];
        int length = 0;
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c != '%')
            {
                out[length++] = (byte)c;
                continue;
            }
            final int high = i + 2 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
            final int low = high < 0 ? -1 : Character.digit(text.charAt(i + 2), 16);
            if (low < 0)
            {
                throw new IllegalArgumentException(what + " holds a malformed percent escape (% must be followed by two hex digits)");
            }
            out[length++] = (byte)((high << 4) | low);
            i += 2;
        }
        return new String(out, 0, length, StandardCharsets.ISO_8859_1);
    }
}
