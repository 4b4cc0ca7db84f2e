package dev.tally.gateway.http;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Per-tenant rate limit, checked on the I/O thread right after authentication: a token bucket of one
 * second's worth of requests ({@code perSecond} tokens), refilled at {@code perSecond} tokens a second.
 *
 * <p>The bucket is kept as a single number, the time at which it would be full again (the "theoretical
 * arrival time" of the generic cell rate algorithm, which is the same bucket written as a time): taking a
 * token moves it one interval ({@code 1 s / perSecond}) later, and a request is refused while it lies more
 * than the bucket's depth in the future. One {@code compareAndSet} per request, no lock, no allocation once
 * a tenant's bucket exists; every I/O thread shares the tenant's bucket, so the limit holds across them. A
 * refused request takes no token. Buckets exist only for tenants that authenticated, so their number is
 * bounded by the configured keys.
 */
public final class RateLimiter
{
    /** No limit: {@link #acquire} always allows. */
    public static final RateLimiter OFF = new RateLimiter(0);

    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);

    private final int perSecond;
    private final long intervalNs;
    /** How far past now the full-again time may lie and still allow one more request: the bucket depth less one token. */
    private final long toleranceNs;
    /** Times are kept relative to this, so that they start at zero and compare without {@code nanoTime} overflow worries. */
    private final long originNs = System.nanoTime();
    private final ConcurrentHashMap<ApiKeys.Tenant, AtomicLong> fullAgainNs = new ConcurrentHashMap<>();
    /** Allocated once: a method reference or lambda built per call would allocate on every miss. */
    private final Function<ApiKeys.Tenant, AtomicLong> newBucket = tenant -> new AtomicLong();

    /** @param perSecond requests per second per tenant; 0 for no limit. */
    public RateLimiter(final int perSecond)
    {
        if (perSecond < 0 || perSecond > HttpLimits.RATE_LIMIT_PER_SECOND_MAX)
        {
            throw new IllegalArgumentException("--rate-limit-per-tenant must be 0 to " + HttpLimits.RATE_LIMIT_PER_SECOND_MAX + ", was " + perSecond);
        }
        this.perSecond = perSecond;
        this.intervalNs = perSecond == 0 ? 0 : SECOND_NS / perSecond;
        this.toleranceNs = perSecond == 0 ? 0 : intervalNs * (perSecond - 1L);
    }

    /** @return the limiter the limits ask for ({@link #OFF} when there is none). */
    public static RateLimiter of(final HttpLimits limits)
    {
        return limits.rateLimitPerTenantPerSecond() == 0 ? OFF : new RateLimiter(limits.rateLimitPerTenantPerSecond());
    }

    /**
     * Takes a token from the tenant's bucket.
     *
     * @param nowNs {@link System#nanoTime()}.
     * @return 0 when the request may go on; otherwise the whole seconds (at least 1) until a token is
     *         back, for {@code Retry-After}.
     */
    public int acquire(final ApiKeys.Tenant tenant, final long nowNs)
    {
        if (perSecond == 0)
        {
            return 0;
        }
        AtomicLong bucket = fullAgainNs.get(tenant);
        if (bucket == null)
        {
            bucket = fullAgainNs.computeIfAbsent(tenant, newBucket);
        }
        final long now = nowNs - originNs;
        while (true)
        {
            final long stored = bucket.get();
            final long fullAgain = Math.max(stored, now);
            final long waitNs = fullAgain - now - toleranceNs;
            if (waitNs > 0)
            {
                return (int)Math.max(1, (waitNs + SECOND_NS - 1) / SECOND_NS);
            }
            if (bucket.compareAndSet(stored, fullAgain + intervalNs))
            {
                return 0;
            }
        }
    }
}
