package dev.tally.ledger;

import dev.tally.ledger.result.Result;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Field-by-field comparisons of results (Result is a mutable holder without equals). */
final class ResultAssertions
{
    private ResultAssertions()
    {
    }

    /** Asserts that {@code replay} is {@code first} read back: every field equal, and marked replayed. */
    static void assertReplayOf(final Result first, final Result replay)
    {
        assertTrue(replay.replayed, () -> "not marked replayed: " + replay);
        assertSameBody(first, replay);
    }

    /** Asserts every field but {@code replayed} is equal: what the client would see in the body. */
    static void assertSameBody(final Result expected, final Result actual)
    {
        final String message = "expected " + expected + " but was " + actual;
        assertEquals(expected.code, actual.code, message);
        assertEquals(expected.type, actual.type, message);
        assertEquals(expected.originIndex, actual.originIndex, message);
        assertEquals(expected.originTimestampNs, actual.originTimestampNs, message);
        assertEquals(expected.accountA, actual.accountA, message);
        assertEquals(expected.accountB, actual.accountB, message);
        assertEquals(expected.amountMinor, actual.amountMinor, message);
        assertEquals(expected.extra, actual.extra, message);
        assertEquals(expected.extraTimestampNs, actual.extraTimestampNs, message);
        assertEquals(expected.currency, actual.currency, message);
    }
}
