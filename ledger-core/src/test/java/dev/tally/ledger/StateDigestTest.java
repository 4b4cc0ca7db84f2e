package dev.tally.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class StateDigestTest
{
    @Test
    void shouldPrintEveryStateHashAsSixteenLowerCaseHexDigits()
    {
        assertEquals("0000000000000000", StateDigest.hex(0));
        assertEquals("0000000000000001", StateDigest.hex(1));
        assertEquals("0fedcba987654321", StateDigest.hex(0x0FEDCBA987654321L), "a leading zero nibble is kept");
        assertEquals("8000000000000000", StateDigest.hex(Long.MIN_VALUE), "unsigned: the sign bit is a digit");
        assertEquals("ffffffffffffffff", StateDigest.hex(-1));
    }
}
