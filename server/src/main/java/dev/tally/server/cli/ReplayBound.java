package dev.tally.server.cli;

import dev.tally.ledger.command.Command;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * Where {@code tally replay --to-index N} or {@code --until T} stops applying: after journal index N, or after the last
 * command whose journaled time, truncated to the microsecond, is at or before T truncated to the microsecond. The
 * microsecond is PostgreSQL's precision: the read model stores journaled times to it, and
 * {@code GET /v1/accounts/{id}?at=T} compares the same way, so the two answer for the same commands.
 *
 * @param toIndex      the last journal index applied, or -1 when the bound is an instant.
 * @param untilMicros  the instant in epoch microseconds, or {@code Long.MAX_VALUE} when the bound is an index.
 */
record ReplayBound(long toIndex, long untilMicros)
{
    /**
     * @return the bound the options name, or null for none.
     * @throws IllegalArgumentException when both are given, the index is negative, or the instant is not RFC 3339.
     */
    static ReplayBound of(final Long toIndex, final String until)
    {
        if (toIndex != null && until != null)
        {
            throw new IllegalArgumentException("give --to-index or --until, not both");
        }
        if (toIndex != null)
        {
            if (toIndex < 0)
            {
                throw new IllegalArgumentException("--to-index must be a journal index from 0, was " + toIndex);
            }
            return new ReplayBound(toIndex, Long.MAX_VALUE);
        }
        if (until == null)
        {
            return null;
        }
        final Instant instant;
        try
        {
            instant = OffsetDateTime.parse(until.toUpperCase(Locale.ROOT), DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
        }
        catch (final DateTimeParseException ex)
        {
            throw new IllegalArgumentException("--until must be an RFC 3339 date-time with an offset, e.g. 2026-12-01T00:00:00Z: " + until);
        }
        if (instant.isBefore(Instant.EPOCH))
        {
            throw new IllegalArgumentException("--until must not be before 1970: " + until);
        }
        return new ReplayBound(-1, Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000));
    }

    /** @return true when {@code command} is at or before the bound (journal order: once false, false for the rest). */
    boolean includes(final Command command)
    {
        return toIndex >= 0 ? command.journalIndex <= toIndex : Math.floorDiv(command.timestampNs, 1_000L) <= untilMicros;
    }
}
