package dev.tally.gateway.api;

import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.problem.ProblemType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IdempotencyKeyTest
{
    @Test
    void shouldAcceptOneToTwoHundredFiftyFiveVisibleAsciiCharacters()
    {
        assertValid("k");
        assertValid("x".repeat(255));
        assertValid("!~\"#$%&'()*+,-./0123456789:;<=>?@AZ[\\]^_`az{|}");
        assertValid("550e8400-e29b-41d4-a716-446655440000");
    }

    @Test
    void shouldAnswerMissingWhenThereIsNoKey()
    {
        final Problem problem = IdempotencyKey.validate(null, "Idempotency-Key header");
        assertEquals(ProblemType.IDEMPOTENCY_KEY_MISSING, problem.type());
        assertEquals(400, problem.status());
        assertFalse(IdempotencyKey.isValid(null));
    }

    @Test
    void shouldRejectAnEmptyKeyAndOneOfTwoHundredFiftySixCharacters()
    {
        assertInvalid("");
        assertInvalid("x".repeat(256));
    }

    @ParameterizedTest
    @ValueSource(strings = {"with space", " leading", "trailing ", "tab\there", "new\nline", "nul\u0000", "del\u007f", "bell\u0007",
        "caf\u00e9", "\u00a0nbsp", "emoji\ud83d\ude00", "\u0130stanbul"})
    void shouldRejectControlSpaceAndNonAsciiCharacters(final String key)
    {
        assertInvalid(key);
    }

    private static void assertValid(final String key)
    {
        assertNull(IdempotencyKey.validate(key, "key"));
        assertTrue(IdempotencyKey.isValid(key));
    }

    private static void assertInvalid(final String key)
    {
        final Problem problem = IdempotencyKey.validate(key, "key");
        assertEquals(ProblemType.IDEMPOTENCY_KEY_INVALID, problem.type());
        assertEquals(400, problem.status());
        assertFalse(IdempotencyKey.isValid(key));
    }
}
