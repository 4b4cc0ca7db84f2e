package dev.tally.gateway.api.json;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.math.BigDecimal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class MoneyTest
{
    @ParameterizedTest(name = "\"{0}\" with {1} digits -> {2}")
    @CsvSource(delimiter = '|', value = {
        "1000.00|2|100000",
        "1000|2|100000",
        "1000.5|2|100050",
        "1000.50|2|100050",
        "0.01|2|1",
        "0|2|0",
        "0.00|2|0",
        "5|0|5",
        "1.234|3|1234",
        "1.2|3|1200",
        "9223372036854775807|0|9223372036854775807",
        "92233720368547758.07|2|9223372036854775807",
        "9223372036854775.807|3|9223372036854775807",
    })
    void shouldParseDecimalsWithinTheExponent(final String text, final int digits, final long expectedMinor)
    {
        assertEquals(expectedMinor, Money.parseMinor(text, digits));
    }

    @ParameterizedTest(name = "\"{0}\" with {1} digits -> error {2}")
    @CsvSource(delimiter = '|', value = {
        "1000.005|2|-2",
        "5.0|0|-2",
        "5.00|0|-2",
        "1.2345|3|-2",
        "-5|2|-3",
        "-5.00|2|-3",
        "-0|2|-3",
        "9223372036854775808|0|-4",
        "92233720368547758.08|2|-4",
        "92233720368547758.1|2|-4",
        "100000000000000000000|2|-4",
        "99999999999999999999999999999999999|0|-4",
        "1e3|2|-1",
        "1E3|2|-1",
        "1.5e2|2|-1",
        "+5|2|-1",
        ".5|2|-1",
        "5.|2|-1",
        "05|2|-1",
        "00.5|2|-1",
        "' 5'|2|-1",
        "'5 '|2|-1",
        "1,000.00|2|-1",
        "1_000|2|-1",
        "0x10|2|-1",
        "NaN|2|-1",
        "Infinity|2|-1",
        "''|2|-1",
        "-|2|-1",
        "--5|2|-1",
        "5..0|2|-1",
        "5.0.0|2|-1",
        "١٢|2|-1",
    })
    void shouldRejectWhatIsNotAPlainDecimalWithinTheExponent(final String text, final int digits, final long expectedError)
    {
        assertEquals(expectedError, Money.parseMinor(text, digits));
    }

    @ParameterizedTest(name = "{0} minor with {1} digits -> \"{2}\"")
    @CsvSource(delimiter = '|', value = {
        "100000|2|1000.00",
        "100050|2|1000.50",
        "1|2|0.01",
        "0|2|0.00",
        "-5|2|-0.05",
        "-500|2|-5.00",
        "5|0|5",
        "-5|0|-5",
        "0|0|0",
        "1234|3|1.234",
        "7|3|0.007",
        "9223372036854775807|2|92233720368547758.07",
        "-9223372036854775808|2|-92233720368547758.08",
        "-9223372036854775808|0|-9223372036854775808",
        "1|18|0.000000000000000001",
    })
    void shouldFormatMinorUnitsAsMajorDecimals(final long minor, final int digits, final String expected)
    {
        assertEquals(expected, Money.format(minor, digits));
    }

    @Test
    void shouldWriteIntoTheGivenArrayAtTheOffsetAndReturnTheLength()
    {
        final byte[] out = new byte[4 + Money.FORMATTED_LENGTH_MAX];
        final int length = Money.format(-9223372036854775808L, 2, out, 4);
        assertEquals("-92233720368547758.08", new String(out, 4, length, java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(Money.FORMATTED_LENGTH_MAX, length);
    }

    @Test
    void shouldRefuseAnExponentOutsideTheSupportedRange()
    {
        assertThrows(IllegalArgumentException.class, () -> Money.parseMinor("1", -1));
        assertThrows(IllegalArgumentException.class, () -> Money.format(1, Money.MINOR_DIGITS_MAX + 1));
    }

    @Property
    void shouldParseWhatItFormatsForAnyNonNegativeAmount(
        @ForAll @LongRange(min = 0) final long minor, @ForAll @IntRange(min = 0, max = 4) final int digits)
    {
        assertEquals(minor, Money.parseMinor(Money.format(minor, digits), digits));
    }

    @Property
    void shouldAgreeWithBigDecimalOnAnyPlainDecimal(
        @ForAll @LongRange(min = 0) final long integer, @ForAll @IntRange(min = 0, max = 999) final int fraction,
        @ForAll @IntRange(min = 0, max = 3) final int fractionDigits, @ForAll @IntRange(min = 0, max = 4) final int minorDigits)
    {
        final String fractionText = fractionDigits == 0 ? "" : "." + String.format("%03d", fraction).substring(0, fractionDigits);
        final String text = integer + fractionText;
        final BigDecimal expected = new BigDecimal(text).movePointRight(minorDigits);
        final long parsed = Money.parseMinor(text, minorDigits);
        if (fractionDigits > minorDigits)
        {
            assertEquals(Money.ERROR_TOO_MANY_DECIMALS, parsed);
        }
        else if (expected.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0)
        {
            assertEquals(Money.ERROR_OVERFLOW, parsed);
        }
        else
        {
            assertEquals(expected.longValueExact(), parsed);
        }
    }
}
