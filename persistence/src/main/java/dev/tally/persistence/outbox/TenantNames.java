package dev.tally.persistence.outbox;

/**
 * The names of tenants, which the outbox keeps only as ids (the ledger's 63-bit hash of the name): the relay names the
 * tenant of every event it delivers ({@code "tenant"}), so that a consumer need not keep a table of hashes.
 */
@FunctionalInterface
public interface TenantNames
{
    /** Knows no name: every event is delivered with {@code "tenant": null}. */
    TenantNames NONE = tenantId -> null;

    /**
     * @param tenantId the tenant's id, as the outbox row holds it.
     * @return its name, or null when not known (a tenant whose keys this process never loaded).
     */
    String nameOf(long tenantId);
}
