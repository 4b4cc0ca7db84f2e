package dev.tally.gateway.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * The query parameters of the history reads, checked on the I/O thread (so that a 400 keeps its place in the
 * connection's reply order) and parsed again on the read pool. Values are percent-decoded; a {@code +} stays a plus
 * (an RFC 3339 offset), not a space.
 */
final class QueryParams
{
    /** The earliest instant a read names: journaled times are Unix epoch times. */
    static final Instant INSTANT_MIN = Instant.EPOCH;
    /** The latest: the id's 48 bits of milliseconds end in the year 10889; far past any journal. */
    static final Instant INSTANT_MAX = Instant.parse("9999-12-31T23:59:59.999999Z");

    private QueryParams()
    {
    }

    /** @return the value of the first {@code name=} parameter, percent-decoded; null when absent. */
    static String param(final String query, final String name)
    {
        if (query == null || query.isEmpty())
        {
            return null;
        }
        for (final String pair : query.split("&"))
        {
            final int eq = pair.indexOf('=');
            if (eq > 0 && pair.substring(0, eq).equals(name))
            {
                try
                {
                    return URLDecoder.decode(pair.substring(eq + 1).replace("+", "%2B"), StandardCharsets.UTF_8);
                }
                catch (final IllegalArgumentException ex)
                {
                    throw new IllegalArgumentException(name + " is not percent-encoded properly");
                }
            }
        }
        return null;
    }

    /** @return true when {@code query} has a {@code name=} parameter (its value not decoded). */
    static boolean has(final String query, final String name)
    {
        if (query == null || query.isEmpty())
        {
            return false;
        }
        for (final String pair : query.split("&"))
        {
            if (pair.startsWith(name) && pair.length() > name.length() && pair.charAt(name.length()) == '=')
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @return the RFC 3339 date-time (with its offset, {@code Z} or {@code ±hh:mm}; {@code t} and {@code z} in either
     * case) of parameter {@code name}, or null when absent.
     * @throws IllegalArgumentException naming the parameter when it is not one, or outside {@link #INSTANT_MIN} ..
     * {@link #INSTANT_MAX}.
     */
    static Instant instant(final String query, final String name)
    {
        final String text = param(query, name);
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
            throw new IllegalArgumentException(name + " must be an RFC 3339 date-time with an offset, e.g. 2026-12-01T00:00:00Z");
        }
        if (instant.isBefore(INSTANT_MIN) || instant.isAfter(INSTANT_MAX))
        {
            throw new IllegalArgumentException(name + " must be between " + INSTANT_MIN + " and " + INSTANT_MAX);
        }
        return instant;
    }

    /**
     * @return parameter {@code name} as a journal index (0 .. 2^48 - 1, what an id carries), or -1 when absent.
     * @throws IllegalArgumentException naming the parameter when it is not one.
     */
    static long journalIndex(final String query, final String name)
    {
        final String text = param(query, name);
        if (text == null)
        {
            return -1;
        }
        final long index;
        try
        {
            index = Long.parseLong(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(name + " must be a journal index (a whole number from 0)");
        }
        if (index < 0 || index > JOURNAL_INDEX_MAX)
        {
            throw new IllegalArgumentException(name + " must be a journal index from 0 to " + JOURNAL_INDEX_MAX);
        }
        return index;
    }

    /** The largest journal index an id holds (Uuid7: 48 of its low bits after the variant). */
    static final long JOURNAL_INDEX_MAX = (1L << 48) - 1;

    /** The period of a statement: entries journaled after {@code from}, up to and including {@code to}. */
    record Period(Instant from, Instant to)
    {
        /** @return the period {@code query} names; both ends are required, {@code from} at or before {@code to}. */
        static Period parse(final String query)
        {
            final Instant from = instant(query, "from");
            final Instant to = instant(query, "to");
            if (from == null || to == null)
            {
                throw new IllegalArgumentException("a statement needs from and to, RFC 3339 date-times with an offset");
            }
            if (from.isAfter(to))
            {
                throw new IllegalArgumentException("from must not be after to");
            }
            return new Period(from, to);
        }

        /** @return why {@code query} names no valid period, or null. */
        static String invalid(final String query)
        {
            return ReadQuery.invalid(query, Period::parse);
        }
    }

    /** A point of the journal an account read asks for: an instant, or a journal index ({@code at} null). */
    record Point(Instant at, long atIndex)
    {
        /** @return the point {@code query} names ({@code at} or {@code atIndex}), or null for none (the account now). */
        static Point parse(final String query)
        {
            final Instant at = instant(query, "at");
            final long atIndex = journalIndex(query, "atIndex");
            if (at != null && atIndex >= 0)
            {
                throw new IllegalArgumentException("give at or atIndex, not both");
            }
            return at == null && atIndex < 0 ? null : new Point(at, atIndex);
        }

        /** @return why {@code query} names no valid point, or null (valid, or no point at all). */
        static String invalid(final String query)
        {
            return ReadQuery.invalid(query, Point::parse);
        }
    }
}
