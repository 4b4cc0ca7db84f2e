package dev.tally.gateway.http;

import dev.tally.gateway.api.routing.TenantId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * API keys and the tenants they belong to, from {@code --api-key TENANT:KEY} and from a {@link KeysFile}.
 * Only SHA-256 hashes of the keys are kept; a presented key is hashed and compared with every known hash
 * in constant time (no early exit, no map lookup), so timing reveals neither which key nor how much of it
 * matched. Keys are never logged.
 *
 * <p>The keys file can be re-read while serving ({@link #reload()}, on SIGHUP): the new set replaces the
 * old one in a single volatile write, so an I/O thread sees either set whole, never half of one.
 *
 * <p>The admin key ({@code --admin-key}) is kept apart from the tenants' keys: {@link #authenticate} never
 * looks at it and {@link #authenticateAdmin} never looks at theirs, so neither grants the other's routes.
 * A tenant key equal to it is refused at start-up and on reload: a shared secret would blur that line.
 *
 * <p>The ledger knows a tenant only by its id ({@link TenantId}, a hash of the name); {@link #tenantName} gives back
 * the name of every tenant a key was loaded for since start, even after its keys were removed, so that webhooks can
 * name the tenant.
 */
public final class ApiKeys
{
    private final List<Entry> fromFlags = new ArrayList<>();
    private final Path keysFile;
    private volatile Entry[] entries = new Entry[0];
    /** The name of every tenant id a key was ever loaded for (names are never reused for another id: the id is their hash). */
    private final Map<Long, String> tenantNames = new ConcurrentHashMap<>();
    /** SHA-256 of the admin key, or null: no admin key, the admin routes answer 404. */
    private volatile byte[] adminKeyHash;

    private ApiKeys(final Path keysFile)
    {
        this.keysFile = keysFile;
    }

    /**
     * @param specs {@code TENANT:KEY} pairs, as given to {@code --api-key}.
     * @throws IllegalArgumentException on a malformed pair (the message never contains the key).
     */
    public static ApiKeys parse(final List<String> specs)
    {
        return load(specs, null);
    }

    /**
     * @param specs    {@code TENANT:KEY} pairs, as given to {@code --api-key}.
     * @param keysFile a keys file of hashes, or null.
     * @throws IllegalArgumentException on a malformed pair or file (the message never contains a key).
     */
    public static ApiKeys load(final List<String> specs, final Path keysFile)
    {
        return load(specs, keysFile, null);
    }

    /**
     * @param specs    {@code TENANT:KEY} pairs, as given to {@code --api-key}.
     * @param keysFile a keys file of hashes, or null.
     * @param adminKey the admin key ({@code --admin-key}), or null.
     * @throws IllegalArgumentException on a malformed pair or file, a short admin key, or an admin key equal to
     *                                  a tenant key (the message never contains a key).
     */
    public static ApiKeys load(final List<String> specs, final Path keysFile, final String adminKey)
    {
        final ApiKeys keys = new ApiKeys(keysFile);
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
            keys.fromFlags.add(new Entry(tenant, sha256(key)));
        }
        keys.reload();
        return keys.withAdminKey(adminKey);
    }

    /** Adds a key for a tenant. */
    public synchronized void add(final String tenantName, final String key)
    {
        fromFlags.add(new Entry(tenantName, sha256(key)));
        reload();
    }

    /**
     * Re-reads the keys file (when there is one): keys added to it start working, keys removed from it
     * stop. On any error the current keys stay in force.
     *
     * @return how many keys the file holds now.
     * @throws IllegalArgumentException when the file cannot be read or does not parse.
     */
    public synchronized int reload()
    {
        final List<Entry> next = new ArrayList<>(fromFlags);
        int fromFile = 0;
        if (keysFile != null)
        {
            try
            {
                for (final KeysFile.Line line : KeysFile.read(keysFile))
                {
                    next.add(new Entry(line.tenant(), line.keyHash()));
                    fromFile++;
                }
            }
            catch (final IOException ex)
            {
                throw new IllegalArgumentException("cannot read keys file " + keysFile + ": " + ex, ex);
            }
        }
        requireNoneEqualsAdminKey(next, adminKeyHash);
        for (final Entry entry : next)
        {
            tenantNames.putIfAbsent(entry.tenant.id(), entry.tenant.name());
        }
        entries = next.toArray(new Entry[0]);
        return fromFile;
    }

    /**
     * Sets the admin key, which authenticates only the admin routes ({@code POST /admin/snapshot}).
     *
     * @param key the admin key (at least 16 characters), or null for none.
     * @return this.
     * @throws IllegalArgumentException when the key is too short or equals a tenant's key (the message never
     *                                  contains it).
     */
    public synchronized ApiKeys withAdminKey(final String key)
    {
        if (key == null)
        {
            adminKeyHash = null;
            return this;
        }
        if (key.strip().length() < 16)
        {
            throw new IllegalArgumentException("--admin-key must be at least 16 characters");
        }
        final byte[] hash = sha256(key.strip());
        requireNoneEqualsAdminKey(java.util.Arrays.asList(entries), hash);
        adminKeyHash = hash;
        return this;
    }

    private static void requireNoneEqualsAdminKey(final List<Entry> tenantKeys, final byte[] adminHash)
    {
        if (adminHash == null)
        {
            return;
        }
        for (final Entry entry : tenantKeys)
        {
            if (MessageDigest.isEqual(adminHash, entry.keyHash))
            {
                throw new IllegalArgumentException("--admin-key equals the API key of tenant '" + entry.tenant.name() +
                    "': the admin key must differ from every tenant key");
            }
        }
    }

    /** @return true when an admin key is set (the admin routes exist). */
    public boolean hasAdminKey()
    {
        return adminKeyHash != null;
    }

    /**
     * @param tenantId a tenant's id, as the ledger and the outbox hold it.
     * @return its name (the {@code TENANT} of {@code --api-key TENANT:KEY} or of the keys file), or null when no key of
     *         it was loaded since start.
     */
    public String tenantName(final long tenantId)
    {
        return tenantNames.get(tenantId);
    }

    /**
     * @param authorization the {@code Authorization} header value, may be null.
     * @return true when it carries the admin key as a bearer token; false when absent, another key (a tenant's
     * included), or no admin key is set. Compared as {@link #authenticate} does: hashes, in constant time.
     */
    public boolean authenticateAdmin(final String authorization)
    {
        final byte[] expected = adminKeyHash;
        if (expected == null || authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7))
        {
            return false;
        }
        return MessageDigest.isEqual(sha256(authorization.substring(7).trim()), expected);
    }

    /** @return the keys file, or null. */
    public Path keysFile()
    {
        return keysFile;
    }

    /** @return how many keys are configured. */
    public int size()
    {
        return entries.length;
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

    static byte[] sha256(final String key)
    {
        return SHA256.get().digest(key.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * One digest per thread (the I/O threads, and the thread loading keys): {@code MessageDigest.getInstance}
     * looks up the provider every time, 2 % of the I/O thread's samples when done per request.
     */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() ->
    {
        try
        {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
    });

    /** A tenant: its name (for logs and metrics) and its 63-bit id (in the journal). */
    public record Tenant(String name, long id)
    {
    }

    private static final class Entry
    {
        final Tenant tenant;
        final byte[] keyHash;

        Entry(final String name, final byte[] keyHash)
        {
            this.tenant = new Tenant(name, TenantId.of(name));
            this.keyHash = keyHash;
        }
    }
}
