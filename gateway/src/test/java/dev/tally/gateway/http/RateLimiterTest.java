package dev.tally.gateway.http;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RateLimiterTest
{
    private static final ApiKeys.Tenant ACME = new ApiKeys.Tenant("acme", 1);
    private static final ApiKeys.Tenant GLOBEX = new ApiKeys.Tenant("globex", 2);
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);

    @Test
    void shouldAllowABurstOfOneSecondsWorthThenRefuseWithRetryAfter()
    {
        final RateLimiter limiter = new RateLimiter(10);
        final long now = System.nanoTime();
        for (int i = 0; i < 10; i++)
        {
            assertEquals(0, limiter.acquire(ACME, now), "request " + i + " of the burst");
        }
        assertEquals(1, limiter.acquire(ACME, now), "the 11th waits for a token, at least a second rounded up");
        assertEquals(0, limiter.acquire(GLOBEX, now), "another tenant has its own bucket");
    }

    @Test
    void shouldRefillAtTheRateAndNotChargeRefusedRequests()
    {
        final RateLimiter limiter = new RateLimiter(10);
        final long now = System.nanoTime();
        for (int i = 0; i < 10; i++)
        {
            limiter.acquire(ACME, now);
        }
        for (int i = 0; i < 100; i++)
        {
            assertTrue(limiter.acquire(ACME, now) > 0);
        }
        assertEquals(0, limiter.acquire(ACME, now + SECOND_NS / 10), "one token back after 100 ms, refusals took none");
        assertTrue(limiter.acquire(ACME, now + SECOND_NS / 10) > 0);
        for (int i = 0; i < 10; i++)
        {
            assertEquals(0, limiter.acquire(ACME, now + 5 * SECOND_NS), "a full bucket after a quiet spell, request " + i);
        }
        assertTrue(limiter.acquire(ACME, now + 5 * SECOND_NS) > 0, "and never more than the bucket holds");
    }

    @Test
    void shouldHoldTheLimitAcrossThreads() throws InterruptedException
    {
        final RateLimiter limiter = new RateLimiter(1_000);
        final long now = System.nanoTime();
        final AtomicInteger allowed = new AtomicInteger();
        final Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++)
        {
            threads[t] = new Thread(() ->
            {
                for (int i = 0; i < 1_000; i++)
                {
                    if (limiter.acquire(ACME, now) == 0)
                    {
                        allowed.incrementAndGet();
                    }
                }
            });
            threads[t].start();
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertEquals(1_000, allowed.get(), "exactly the burst at one instant, whatever the interleaving");
    }

    @Test
    void shouldAlwaysAllowWhenOffAndRejectAnOutOfRangeRate()
    {
        for (int i = 0; i < 10_000; i++)
        {
            assertEquals(0, RateLimiter.OFF.acquire(ACME, 0));
        }
        assertThrows(IllegalArgumentException.class, () -> new RateLimiter(-1));
        assertThrows(IllegalArgumentException.class, () -> new RateLimiter(HttpLimits.RATE_LIMIT_PER_SECOND_MAX + 1));
    }
}
