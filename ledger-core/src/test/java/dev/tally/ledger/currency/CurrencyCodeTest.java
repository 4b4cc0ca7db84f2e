package dev.tally.ledger.currency;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class CurrencyCodeTest
{
    @Test
    void shouldUnpackWhatItPacked()
    {
        for (final String code : new String[] {"TRY", "USD", "EUR", "JPY", "KWD", "AAA", "ZZZ"})
        {
            final int packed = CurrencyCode.pack(code);
            assertNotEquals(0, packed, code);
            assertEquals(code, CurrencyCode.unpack(packed));
        }
    }

    @Test
    void shouldPackDistinctCodesDistinctly()
    {
        assertNotEquals(CurrencyCode.pack("USD"), CurrencyCode.pack("UDS"));
        assertEquals(('U' << 16) | ('S' << 8) | 'D', CurrencyCode.pack("USD"), "three ASCII bytes, first letter highest");
    }

    @Test
    void shouldRefuseToPackAnythingButThreeUpperCaseLetters()
    {
        assertEquals(0, CurrencyCode.pack(null));
        assertEquals(0, CurrencyCode.pack(""));
        assertEquals(0, CurrencyCode.pack("US"));
        assertEquals(0, CurrencyCode.pack("USDX"));
        assertEquals(0, CurrencyCode.pack("usd"));
        assertEquals(0, CurrencyCode.pack("U5D"));
        assertEquals(0, CurrencyCode.pack("U D"));
    }

    @Test
    void shouldKnowTheMinorDigitsOfAcceptedCurrenciesOnly()
    {
        assertEquals(2, CurrencyCode.minorDigits(CurrencyCode.pack("TRY")));
        assertEquals(2, CurrencyCode.minorDigits(CurrencyCode.pack("USD")));
        assertEquals(0, CurrencyCode.minorDigits(CurrencyCode.pack("JPY")));
        assertEquals(3, CurrencyCode.minorDigits(CurrencyCode.pack("KWD")));
        assertEquals(-1, CurrencyCode.minorDigits(CurrencyCode.pack("XXX")));
        assertEquals(-1, CurrencyCode.minorDigits(0));
    }
}
