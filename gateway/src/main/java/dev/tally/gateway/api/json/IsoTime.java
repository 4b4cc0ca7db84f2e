package dev.tally.gateway.api.json;

/**
 * Formats epoch milliseconds as an ISO-8601 UTC timestamp with millisecond precision,
 * {@code 2026-05-01T12:34:56.789Z}, into a byte array without allocating.
 *
 * <p>Millisecond precision matches the time carried inside Tally's UUIDv7 ids, so a {@code createdAt}
 * and the id it belongs to never disagree. Fixed width: years outside 0000..9999 are clamped to the ends
 * of that range (journaled time never gets there; clamping keeps rendering total).
 */
public final class IsoTime
{
    /** Bytes written by {@link #format}. */
    static final int LENGTH = 24;

    private static final long MS_PER_DAY = 86_400_000L;
    /** 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z in epoch milliseconds. */
    private static final long EPOCH_MS_MIN = -62_167_219_200_000L;
    private static final long EPOCH_MS_MAX = 253_402_300_799_999L;
    /** Days from 0000-03-01 to 1970-01-01: the calendar below counts years from March. */
    private static final long DAYS_FROM_MARCH_ZERO_TO_EPOCH = 719_468L;
    private static final long DAYS_PER_400_YEARS = 146_097L;

    private IsoTime()
    {
    }

    /**
     * @return {@code instant} as the text a reply from memory gives it: the read model's reads (entries, old
     * transfers), whose timestamps PostgreSQL keeps to the microsecond, render their times this way too.
     */
    public static String text(final java.time.Instant instant)
    {
        final byte[] bytes = new byte[LENGTH];
        format(instant.toEpochMilli(), bytes, 0);
        return new String(bytes, java.nio.charset.StandardCharsets.US_ASCII);
    }

    /**
     * @param epochMs milliseconds since 1970-01-01T00:00:00Z.
     * @param dst     receives {@link #LENGTH} ASCII bytes from {@code offset}.
     */
    static void format(final long epochMs, final byte[] dst, final int offset)
    {
        final long ms = Math.min(EPOCH_MS_MAX, Math.max(EPOCH_MS_MIN, epochMs));
        final long days = Math.floorDiv(ms, MS_PER_DAY);
        final long msOfDay = ms - days * MS_PER_DAY;

        // Civil date from a day count, with years starting in March so that the leap day comes last.
        final long shifted = days + DAYS_FROM_MARCH_ZERO_TO_EPOCH;
        final long era = Math.floorDiv(shifted, DAYS_PER_400_YEARS);
        final long dayOfEra = shifted - era * DAYS_PER_400_YEARS;
        final long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
        final long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        final long monthFromMarch = (5 * dayOfYear + 2) / 153;
        final int day = (int)(dayOfYear - (153 * monthFromMarch + 2) / 5 + 1);
        final int month = (int)(monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9);
        final int year = (int)(yearOfEra + era * 400 + (month <= 2 ? 1 : 0));

        final int hour = (int)(msOfDay / 3_600_000L);
        final int minute = (int)(msOfDay / 60_000L % 60);
        final int second = (int)(msOfDay / 1000 % 60);
        final int milli = (int)(msOfDay % 1000);

        int p = offset;
        p = pair(year / 100, dst, p);
        p = pair(year % 100, dst, p);
        dst[p++] = '-';
        p = pair(month, dst, p);
        dst[p++] = '-';
        p = pair(day, dst, p);
        dst[p++] = 'T';
        p = pair(hour, dst, p);
        dst[p++] = ':';
        p = pair(minute, dst, p);
        dst[p++] = ':';
        p = pair(second, dst, p);
        dst[p++] = '.';
        dst[p++] = (byte)('0' + milli / 100);
        p = pair(milli % 100, dst, p);
        dst[p] = 'Z';
    }

    private static int pair(final int value, final byte[] dst, final int offset)
    {
        DigitPairs.write(value, dst, offset);
        return offset + 2;
    }
}
