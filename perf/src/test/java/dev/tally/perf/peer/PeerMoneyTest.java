package dev.tally.perf.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PeerMoneyTest
{
    @Test
    void shouldParseAmountsWithAtMostTheCurrencysMinorDigits()
    {
        assertEquals(100_050, PeerMoney.parseMinor("1000.5", "TRY"));
        assertEquals(100_050, PeerMoney.parseMinor("1000.50", "TRY"));
        assertEquals(5, PeerMoney.parseMinor("5", "JPY"));
        assertEquals(1_234, PeerMoney.parseMinor("1.234", "KWD"));
        assertEquals(0, PeerMoney.parseMinor("0", "TRY"));
    }

    @Test
    void shouldRejectMalformedAmounts()
    {
        for (final String bad : new String[] {"1.001", "5.0x", "05", ".5", "5.", "+5", "-5", "1e3", "", "99999999999999999999"})
        {
            assertEquals(-1, PeerMoney.parseMinor(bad, "TRY"), bad);
        }
        assertEquals(-1, PeerMoney.parseMinor("5.0", "JPY"));
    }

    @Test
    void shouldRenderExactlyTheCurrencysMinorDigits()
    {
        assertEquals("1.00", PeerMoney.format(100, "TRY"));
        assertEquals("0.05", PeerMoney.format(5, "TRY"));
        assertEquals("-11.00", PeerMoney.format(-1_100, "TRY"));
        assertEquals("5", PeerMoney.format(5, "JPY"));
        assertEquals("0.001", PeerMoney.format(1, "KWD"));
    }
}
