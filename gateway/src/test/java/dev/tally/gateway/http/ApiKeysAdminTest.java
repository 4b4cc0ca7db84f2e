package dev.tally.gateway.http;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The admin key and the tenants' keys never stand in for each other. */
class ApiKeysAdminTest
{
    private static final String ADMIN = "admin-key-0123456789";
    private static final String TENANT_KEY = "tenant-key-1";

    @TempDir
    Path dir;

    @Test
    void shouldAuthenticateTheAdminKeyOnlyOnTheAdminSide()
    {
        final ApiKeys keys = ApiKeys.load(List.of("acme:" + TENANT_KEY), null, ADMIN);
        assertTrue(keys.hasAdminKey());
        assertTrue(keys.authenticateAdmin("Bearer " + ADMIN));
        assertTrue(keys.authenticateAdmin("bearer " + ADMIN + " "), "same parsing as the tenants' keys");
        assertFalse(keys.authenticateAdmin("Bearer " + TENANT_KEY), "a tenant key is not an admin key");
        assertFalse(keys.authenticateAdmin("Bearer " + ADMIN + "x"));
        assertFalse(keys.authenticateAdmin(ADMIN), "not a bearer token");
        assertFalse(keys.authenticateAdmin(null));
        assertNull(keys.authenticate("Bearer " + ADMIN), "the admin key is no tenant's key");
        assertNotNull(keys.authenticate("Bearer " + TENANT_KEY));
    }

    @Test
    void shouldHaveNoAdminSideWithoutAnAdminKey()
    {
        final ApiKeys keys = ApiKeys.load(List.of("acme:" + TENANT_KEY), null, null);
        assertFalse(keys.hasAdminKey());
        assertFalse(keys.authenticateAdmin("Bearer " + TENANT_KEY));
        assertFalse(keys.authenticateAdmin("Bearer "));
    }

    @Test
    void shouldRefuseAShortAdminKeyOrOneEqualToATenantKeyWithoutEchoingIt()
    {
        final IllegalArgumentException tooShort = assertThrows(IllegalArgumentException.class,
            () -> ApiKeys.load(List.of("acme:" + TENANT_KEY), null, "short-key-15chr"));
        assertFalse(tooShort.getMessage().contains("short-key-15chr"));

        final String shared = "shared-key-0123456789";
        final IllegalArgumentException same = assertThrows(IllegalArgumentException.class,
            () -> ApiKeys.load(List.of("acme:" + shared), null, shared));
        assertFalse(same.getMessage().contains(shared), same.getMessage());
        assertTrue(same.getMessage().contains("--admin-key"), same.getMessage());
    }

    @Test
    void shouldKeepTheCurrentKeysWhenAReloadedFileHoldsTheAdminKey() throws IOException
    {
        final Path file = dir.resolve("keys");
        Files.writeString(file, "acme:k1:" + HexFormat.of().formatHex(ApiKeys.sha256(TENANT_KEY)) + "\n");
        final ApiKeys keys = ApiKeys.load(List.of(), file, ADMIN);
        assertEquals(1, keys.size());

        Files.writeString(file, "acme:k2:" + HexFormat.of().formatHex(ApiKeys.sha256(ADMIN)) + "\n");
        assertThrows(IllegalArgumentException.class, keys::reload);
        assertNotNull(keys.authenticate("Bearer " + TENANT_KEY), "the previous keys stay in force");
        assertNull(keys.authenticate("Bearer " + ADMIN));
        assertTrue(keys.authenticateAdmin("Bearer " + ADMIN));
    }
}
