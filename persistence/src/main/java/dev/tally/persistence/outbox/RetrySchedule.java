package dev.tally.persistence.outbox;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with a cap: after the n-th failed attempt the next one waits {@code base × 2^(n−1)},
 * at most {@code cap}, plus up to {@value #JITTER_PERCENT} % random jitter so that events failing together
 * (an endpoint down) do not all come back in the same instant.
 */
final class RetrySchedule
{
    /** Random extra delay, percent of the computed delay. */
    static final int JITTER_PERCENT = 10;

    private RetrySchedule()
    {
    }

    /** @return the delay before the next attempt after {@code failedAttempts} (≥ 1) failures, without jitter. */
    static long delayMs(final long baseMs, final long capMs, final int failedAttempts)
    {
        final int doublings = Math.max(failedAttempts, 1) - 1;
        // A shift that would reach the sign bit overflows: such a delay is beyond any cap anyway.
        if (doublings >= Long.numberOfLeadingZeros(baseMs) - 1)
        {
            return capMs;
        }
        return Math.min(baseMs << doublings, capMs);
    }

    /** @return {@link #delayMs} plus jitter. */
    static long jitteredDelayMs(final long baseMs, final long capMs, final int failedAttempts)
    {
        final long delay = delayMs(baseMs, capMs, failedAttempts);
        return delay + ThreadLocalRandom.current().nextLong(delay * JITTER_PERCENT / 100 + 1);
    }
}
