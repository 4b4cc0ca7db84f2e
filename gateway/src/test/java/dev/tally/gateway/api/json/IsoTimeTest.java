package dev.tally.gateway.api.json;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

import static org.junit.jupiter.api.Assertions.assertEquals;

class IsoTimeTest
{
    private static final DateTimeFormatter EXPECTED = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    @Property
    void shouldMatchJavaTimeForAnyInstantBetweenYearZeroAndNineThousandNineHundredNinetyNine(
        @ForAll @LongRange(min = -62_167_219_200_000L, max = 253_402_300_799_999L) final long epochMs)
    {
        assertEquals(EXPECTED.format(Instant.ofEpochMilli(epochMs)), format(epochMs));
    }

    @Test
    void shouldFormatKnownInstantsIncludingLeapDays()
    {
        assertEquals("1970-01-01T00:00:00.000Z", format(0));
        assertEquals("2024-02-29T23:59:59.999Z", format(Instant.parse("2024-02-29T23:59:59.999Z").toEpochMilli()));
        assertEquals("2000-03-01T00:00:00.000Z", format(Instant.parse("2000-03-01T00:00:00Z").toEpochMilli()));
        assertEquals("1969-12-31T23:59:59.999Z", format(-1));
    }

    @Test
    void shouldClampInstantsOutsideFourDigitYears()
    {
        assertEquals("9999-12-31T23:59:59.999Z", format(Long.MAX_VALUE));
        assertEquals("0000-01-01T00:00:00.000Z", format(Long.MIN_VALUE));
    }

    private static String format(final long epochMs)
    {
        final byte[] out = new byte[IsoTime.LENGTH];
        IsoTime.format(epochMs, out, 0);
        return new String(out, StandardCharsets.US_ASCII);
    }
}
