package dev.tally.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under ASYNC a reply leaves once its command is appended, and the journaler forces the file at the end of a
 * batch once the force interval has passed, so that a power loss takes back at most that interval. Real queue
 * files; the zero fill, which runs after each force, shows that a force really ran.
 */
class AsyncForceTest
{
    private static final long CLOCK_START_NS = 1_767_225_600_000_000_000L;
    private static final long INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(200);

    @TempDir
    Path dir;

    @Test
    void shouldForceOnceTheIntervalHasPassedAndNotBefore()
    {
        final long start = System.nanoTime();
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.ASYNC).withAsyncForceIntervalMs(200)))
        {
            append(journal, 0, 10);
            assertEquals(10, journal.durableIndex(), "ASYNC: a reply may leave once appended");

            journal.endOfBatch(start + INTERVAL_NS / 2); // opened less than an interval ago
            assertEquals(0, journal.forcedIndex());
            assertEquals(0, journal.stableIndex(), "the read model may not take what a power loss can take back");
            assertEquals(0, journal.zeroFilledTo(), "no force, so no zero fill either");

            journal.endOfBatch(start + INTERVAL_NS + TimeUnit.SECONDS.toNanos(1));
            assertEquals(10, journal.forcedIndex());
            assertEquals(10, journal.stableIndex());
            assertTrue(journal.zeroFilledTo() > journal.appendPosition(), "the zero fill rides on the force in ASYNC too");

            append(journal, 10, 5);
            journal.endOfBatch(start + INTERVAL_NS + TimeUnit.SECONDS.toNanos(1) + INTERVAL_NS / 2);
            assertEquals(10, journal.forcedIndex(), "the next force waits for its interval");
            journal.endOfBatch(start + 2 * INTERVAL_NS + TimeUnit.SECONDS.toNanos(1));
            assertEquals(15, journal.forcedIndex());

            append(journal, 15, 3);
            assertEquals(15, journal.stableIndex());
            journal.forceForStop();   // a clean stop, before the writer's last catch-up
            assertEquals(18, journal.stableIndex());
            assertEquals(18, journal.forcedIndex());
        }
        try (Journal reopened = Journal.open(JournalConfig.of(dir, Durability.ASYNC)))
        {
            assertEquals(18, reopened.lastIndex());
            assertEquals(1, reopened.forcedAtOpen().size(), "open forces what it found (the one cycle file) before calling it stable");
            assertEquals(18, reopened.forcedIndex(), "what open found is forced");
            assertEquals(18, reopened.stableIndex());
        }
    }

    @Test
    void shouldForceOnceAQuarterMebibyteIsAppendedEvenInsideTheInterval()
    {
        final long start = System.nanoTime();
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.ASYNC).withAsyncForceIntervalMs(200)))
        {
            final long startPosition = journal.appendPosition();
            int appended = 0;
            while (journal.forcedIndex() == 0 && appended < 20_000)   // batches of 100, each ending inside the interval
            {
                append(journal, appended, 100);
                appended += 100;
                final long bytes = journal.appendPosition() - startPosition;   // records plus the queue's headers
                journal.endOfBatch(start + INTERVAL_NS / 2);
                if (bytes < Journal.ASYNC_FORCE_BYTES)
                {
                    assertEquals(0, journal.forcedIndex(), "no force before " + Journal.ASYNC_FORCE_BYTES + " bytes: " + bytes);
                }
            }
            assertTrue(journal.appendPosition() - startPosition >= Journal.ASYNC_FORCE_BYTES);
            assertEquals(appended, journal.forcedIndex(), "forced at the end of the batch that passed the size");
        }
    }

    @Test
    void shouldLeaveWriteBackToTheKernelWhenTheIntervalIsZero()
    {
        final long start = System.nanoTime();
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.ASYNC).withAsyncForceIntervalMs(0)))
        {
            append(journal, 0, 10);
            assertEquals(10, journal.stableIndex(), "nothing is ever forced here: appended is as stable as it gets");
            journal.endOfBatch(start + TimeUnit.HOURS.toNanos(1));
            assertEquals(0, journal.forcedIndex());
            assertEquals(10, journal.durableIndex());
            journal.forceForStop();
            assertEquals(0, journal.forcedIndex(), "not even for a stop");
        }
    }

    @Test
    void shouldForceEveryBatchUnderSync()
    {
        try (Journal journal = Journal.open(JournalConfig.of(dir, Durability.SYNC)))
        {
            append(journal, 0, 4);
            assertEquals(0, journal.durableIndex(), "SYNC: nothing may leave before the force");
            assertEquals(0, journal.stableIndex());
            journal.endOfBatch(System.nanoTime());
            assertEquals(4, journal.durableIndex());
            assertEquals(4, journal.forcedIndex());
            assertEquals(4, journal.stableIndex());
        }
    }

    private static void append(final Journal journal, final int from, final int count)
    {
        for (int i = from; i < from + count; i++)
        {
            journal.stampAndAppend(TestCommands.mixed(i), CLOCK_START_NS + i);
        }
    }
}
