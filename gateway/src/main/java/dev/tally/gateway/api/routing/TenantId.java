package dev.tally.gateway.api.routing;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Derives the ledger's 63-bit tenant id from a tenant name (the {@code TENANT} of
 * {@code --api-key TENANT:KEY}): the first 8 bytes, big-endian, of SHA-256 over {@code "tenant:"} followed
 * by the name in UTF-8, with the sign bit cleared.
 *
 * <p>Deterministic, so the same name maps to the same id on every start and on replay, with no registry
 * to keep. Distinct names collide with probability about n²/2⁶⁴ (negligible for any real tenant count);
 * the id is never negative, and is 0 only with probability 2⁻⁶³. The id is part of every key and
 * reference digest: renaming a tenant makes it a new tenant.
 */
public final class TenantId
{
    private static final String PREFIX = "tenant:";

    private TenantId()
    {
    }

    /**
     * @param tenantName the tenant's name, non-empty.
     * @return its id, 0 to {@link Long#MAX_VALUE}.
     */
    public static long of(final String tenantName)
    {
        if (tenantName == null || tenantName.isEmpty())
        {
            throw new IllegalArgumentException("a tenant needs a name");
        }
        final MessageDigest sha256;
        try
        {
            sha256 = MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException e)
        {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
        final byte[] digest = sha256.digest((PREFIX + tenantName).getBytes(StandardCharsets.UTF_8));
        long id = 0;
        for (int i = 0; i < 8; i++)
        {
            id = (id << 8) | (digest[i] & 0xFF);
        }
        return id & Long.MAX_VALUE;
    }
}
