package dev.tally.gateway.api;

import dev.tally.gateway.api.routing.TenantId;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TenantIdTest
{
    @Test
    void shouldDeriveTheSameIdFromTheSameNameEveryTime()
    {
        assertEquals(TenantId.of("acme"), TenantId.of("acme"));
        assertNotEquals(TenantId.of("acme"), TenantId.of("acme2"));
        assertNotEquals(TenantId.of("acme"), TenantId.of("Acme"));
    }

    @Test
    void shouldBeTheFirstEightBytesOfTheDocumentedDigestWithTheSignBitCleared()
    {
        for (final String name : new String[] {"acme", "merchant-42", "\u00e7ay", "x".repeat(500)})
        {
            final long[] digest = Requests.sha256x128(("tenant:" + name).getBytes(StandardCharsets.UTF_8));
            assertEquals(digest[0] & Long.MAX_VALUE, TenantId.of(name));
            assertTrue(TenantId.of(name) >= 0);
        }
    }

    @Test
    void shouldRefuseAnEmptyName()
    {
        assertThrows(IllegalArgumentException.class, () -> TenantId.of(""));
        assertThrows(IllegalArgumentException.class, () -> TenantId.of(null));
    }
}
