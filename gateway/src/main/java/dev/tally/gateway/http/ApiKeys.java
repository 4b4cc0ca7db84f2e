package dev.tally.gateway.http;

import dev.tally.gateway.api.TenantId;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * API keys and the tenants they belong to. Only SHA-256 hashes of the keys are kept; a presented key
 * is hashed and compared with every known hash in constant time (no early exit, no map lookup), so
 * timing reveals neither which key nor how much of it matched. Keys are never logged.
 */
public final class ApiKeys
{
    private final List<Entry> entries = new ArrayList<>();

    /**
     * @param specs {@code TENANT:KEY} pairs, as given to {@code --api-key}.
     * @throws IllegalArgumentException on a malformed pair (the message never contains the key).
     */
    public static ApiKeys parse(final List<String> specs)
    {
        final ApiKeys keys = new ApiKeys();
        for (final String spec : specs)
        {
            final int colon = spec.indexOf(':');
            if (colon <= 0 || colon == spec.length() - 1)
            {
                throw new IllegalArgumentException("--api-key must be TENANT:KEY (tenant and key non-empty)");
            }
            final String tenant = spec.substring(0, colon);
            final String key = spec.substring(colon + 1);
            if (key.length() < 8)
            {
                throw new IllegalArgumentException("--api-key for tenant '" + tenant + "': key must be at least 8 characters");
            }
            keys.add(tenant, key);
        }
        return keys;
    }

    /** Adds a key for a tenant. */
    public void add(final String tenantName, final String key)
    {
        entries.add(new Entry(tenantName, TenantId.of(tenantName), sha256(key)));
    }

    /** @return how many keys are configured. */
    public int size()
    {
        return entries.size();
    }

    /**
     * @param authorization the {@code Authorization} header value, may be null.
     * @return the tenant the bearer key belongs to, or null when absent or unknown.
     */
    public Tenant authenticate(final String authorization)
    {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7))
        {
            return null;
        }
        final byte[] presented = sha256(authorization.substring(7).trim());
        Tenant match = null;
        for (final Entry entry : entries)
        {
            // MessageDigest.isEqual is constant-time for equal lengths; every entry is compared.
            if (MessageDigest.isEqual(presented, entry.keyHash))
            {
                match = entry.tenant;
            }
        }
        return match;
    }

    private static byte[] sha256(final String key)
    {
        try
        {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** A tenant: its name (for logs and metrics) and its 63-bit id (in the journal). */
    public record Tenant(String name, long id)
    {
    }

    private static final class Entry
    {
        final Tenant tenant;
        final byte[] keyHash;

        Entry(final String name, final long id, final byte[] keyHash)
        {
            this.tenant = new Tenant(name, id);
            this.keyHash = keyHash;
        }
    }
}
