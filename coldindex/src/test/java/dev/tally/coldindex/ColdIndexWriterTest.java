package dev.tally.coldindex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer thread and the business thread's recorder over a real RocksDB: units are filed whole with their watermark,
 * never past the journal's stable index, and a restart skips what is in already.
 */
class ColdIndexWriterTest
{
    private static final long T0 = 1_767_225_600_000_000_000L;
    private static final int RING_BYTES = 1 << 16;
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    @Test
    void shouldFileEachUnitWholeAndMoveTheWatermarkToItsLastIndex()
    {
        try (ColdIndex index = open(); ColdIndexWriter writer = new ColdIndexWriter(index, RING_BYTES).start();
             ColdReader reader = index.reader())
        {
            final ColdRecorder recorder = writer.recorder();
            for (long unit = 1; unit <= 100; unit++)
            {
                recorder.beginUnit(unit, T0 + unit);
                recorder.key(unit, -unit, record(ColdRecords.KEY_LONGS, unit));
                recorder.reference(unit, unit, unit, T0 + unit);
                recorder.transfer(unit, record(ColdRecords.TRANSFER_LONGS, unit));
                recorder.endUnit();
            }
            assertTrue(writer.awaitWatermark(100, WAIT));
            assertEquals(300, writer.itemsFiled());
            final long[] found = new long[ColdRecords.TRANSFER_LONGS];
            assertTrue(reader.findKey(42, -42, found));
            assertEquals(42, found[ColdRecords.KEY_LONGS - 1]);
            assertTrue(reader.findReference(42, 42, found));
            assertEquals(42, found[0]);
            assertTrue(reader.findTransfer(100, found));
            assertEquals(100, found[ColdRecords.TRANSFER_LONGS - 1]);
            assertEquals(0, writer.lagCommands());
        }
    }

    @Test
    void shouldTakeOnlyUnitsTheJournalHoldsOnStableStorage() throws Exception
    {
        final AtomicLong stable = new AtomicLong(2);
        try (ColdIndex index = open(); ColdIndexWriter writer = new ColdIndexWriter(index, RING_BYTES))
        {
            writer.takeUnitsUpTo(stable::get);
            writer.start();
            final ColdRecorder recorder = writer.recorder();
            for (long unit = 1; unit <= 5; unit++)
            {
                recorder.beginUnit(unit, T0 + unit);
                recorder.transfer(unit, record(ColdRecords.TRANSFER_LONGS, unit));
                recorder.endUnit();
            }
            assertTrue(writer.awaitWatermark(2, WAIT));
            TimeUnit.MILLISECONDS.sleep(200);   // the writer's turns in between: none may pass the stable index
            assertEquals(2, writer.watermark(), "units 3 to 5 are not on stable storage yet");
            assertFalse(index.reader().findTransfer(3, new long[ColdRecords.TRANSFER_LONGS]));

            stable.set(5);
            assertTrue(writer.awaitWatermark(5, WAIT));
        }
    }

    @Test
    void shouldSkipAfterARestartTheUnitsItHoldsAlready()
    {
        try (ColdIndex index = open(); ColdIndexWriter writer = new ColdIndexWriter(index, RING_BYTES).start())
        {
            final ColdRecorder recorder = writer.recorder();
            recorder.beginUnit(7, T0);
            recorder.transfer(3, record(ColdRecords.TRANSFER_LONGS, 30));   // a transfer as its reversal at 7 left it
            recorder.endUnit();
            assertTrue(writer.awaitWatermark(7, WAIT));
        }
        try (ColdIndex index = open(); ColdIndexWriter writer = new ColdIndexWriter(index, RING_BYTES).start();
             ColdReader reader = index.reader())
        {
            final ColdRecorder recorder = writer.recorder();
            recorder.beginUnit(3, T0);   // the replay files the transfer's creation again
            recorder.transfer(3, record(ColdRecords.TRANSFER_LONGS, 3));
            recorder.endUnit();
            recorder.beginUnit(8, T0 + 1);
            recorder.key(8, 8, record(ColdRecords.KEY_LONGS, 8));
            recorder.endUnit();
            assertTrue(writer.awaitWatermark(8, WAIT));

            assertEquals(1, writer.unitsSkipped());
            final long[] found = new long[ColdRecords.TRANSFER_LONGS];
            assertTrue(reader.findTransfer(3, found));
            assertEquals(30, found[ColdRecords.TRANSFER_LONGS - 1], "not moved back to its older state");
        }
    }

    private ColdIndex open()
    {
        return ColdIndex.open(ColdIndexConfig.of(dir, TimeUnit.HOURS.toNanos(24)));
    }

    /** A record whose last long is {@code mark}. */
    private static long[] record(final int longs, final long mark)
    {
        final long[] record = new long[longs];
        for (int i = 0; i < longs - 1; i++)
        {
            record[i] = mark * 100 + i;
        }
        record[longs - 1] = mark;
        return record;
    }
}
