package dev.tally.gateway.http;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link LogThrottle}: one line per interval, and the next line learns how many were held back. */
class LogThrottleTest
{
    private static final long INTERVAL_MS = 20;

    @Test
    void shouldLetTheFirstLineThroughAndHoldBackTheRestOfTheInterval()
    {
        final LogThrottle throttle = new LogThrottle(TimeUnit.HOURS.toNanos(1));

        assertEquals(0, throttle.admit(), "the first line passes, nothing held back before it");
        assertEquals(-1, throttle.admit());
        assertEquals(-1, throttle.admit());
    }

    @Test
    void shouldLetTheNextLineThroughAfterTheIntervalSayingHowManyWereHeldBack() throws InterruptedException
    {
        final LogThrottle throttle = new LogThrottle(TimeUnit.MILLISECONDS.toNanos(INTERVAL_MS));
        throttle.admit();
        throttle.admit();
        throttle.admit();

        Thread.sleep(2 * INTERVAL_MS);

        assertEquals(2, throttle.admit());
        assertEquals(-1, throttle.admit(), "and a new interval starts with it");
    }
}
