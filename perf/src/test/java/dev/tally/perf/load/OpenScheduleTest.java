package dev.tally.perf.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class OpenScheduleTest
{
    private static final long START_NS = 1_000_000_000L;

    @Test
    void shouldSpaceRequestsEvenlyAtTheRate()
    {
        final OpenSchedule schedule = new OpenSchedule(START_NS, 20_000, 1_000_000, new LoopDriver[1]);

        assertEquals(START_NS, schedule.intendedNs(0));
        assertEquals(START_NS + 50_000, schedule.intendedNs(1));
        assertEquals(START_NS + 1_000_000_000L, schedule.intendedNs(20_000));
    }

    @Test
    void shouldNotOverflowOnALongRunAtTheHighestRate()
    {
        final long rate = LoadSpec.RATE_MAX_RPS;
        final long last = rate * LoadSpec.SECONDS_MAX * 2;
        final OpenSchedule schedule = new OpenSchedule(START_NS, rate, last, new LoopDriver[1]);

        assertEquals(START_NS + LoadSpec.SECONDS_MAX * 2L * 1_000_000_000L, schedule.intendedNs(last));
    }

    @Test
    void shouldFindTheFirstRequestOfEachLoopDueAtOrAfterATime()
    {
        final OpenSchedule schedule = new OpenSchedule(START_NS, 3, 1_000, new LoopDriver[2]);
        final long windowNs = START_NS + 1_000_000_000L;

        // Global request 3 is the first at or after one second; loop 0 owns 0, 2, 4..., loop 1 owns 1, 3, 5...
        assertEquals(2, schedule.firstLocalIndexAtOrAfter(0, windowNs));
        assertEquals(1, schedule.firstLocalIndexAtOrAfter(1, windowNs));
        assertTrue(schedule.intendedNs(0 + 2 * 2) >= windowNs && schedule.intendedNs(0 + 2 * 1) < windowNs);
        assertTrue(schedule.intendedNs(1 + 2 * 1) >= windowNs && schedule.intendedNs(1) < windowNs);
    }
}
