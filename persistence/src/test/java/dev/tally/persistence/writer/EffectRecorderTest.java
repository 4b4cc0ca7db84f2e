package dev.tally.persistence.writer;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.effect.EventType;
import dev.tally.ledger.result.Result;
import dev.tally.persistence.LedgerScenario;
import dev.tally.persistence.MixedWorkload;
import org.agrona.concurrent.MessageHandler;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The business thread's hand-off, without a database: no allocation, the skip filter, lag, and a full ring. */
class EffectRecorderTest
{
    private static final MessageHandler DISCARD = (type, buffer, index, length) -> { };
    /** Canonical JSON as the gateway journals it: an escaped quote, and non-ASCII text in a key and a value. */
    static final String METADATA = "{\"a\":\"x\\\"y\",\"ş\":\"ü\"}";

    @Test
    void shouldNotAllocateOnTheBusinessThreadInSteadyState()
    {
        final EffectChannel channel = new EffectChannel(WriterConfig.defaults().withRing(1 << 24, 1_000_000), 0, 0);
        final EffectRecorder recorder = new EffectRecorder(channel, 0);
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long[] allocated = new long[1];
        final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), effects ->
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            recorder.onUnit(effects);
            allocated[0] += threads.getCurrentThreadAllocatedBytes() - before;
            if (channel.ring.size() > (1 << 22))
            {
                channel.ring.read(DISCARD, Integer.MAX_VALUE);
            }
        });
        MixedWorkload.run(s, 20_000);   // warm-up: every path, JIT compiled
        allocated[0] = 0;
        for (int round = 0; round < 5; round++)
        {
            final Result hold = s.tenant(1).hold(2, 10, 60_000);
            s.capture(hold, MixedWorkload.HOT, 5);
            s.voidHold(s.hold(MixedWorkload.HOT, 10, 60_000));
            s.tenant(2).hold(2, 1, 1);
            s.tenant(1).hold(2, 1, 1);
            s.tick(10);                   // expires holds of two tenants on account id 2
            for (int i = 0; i < 10_000; i++)
            {
                s.transfer(1, i % 2 == 0 ? 2 : MixedWorkload.HOT, 1 + i % 100, i % 3 == 0 ? "ref-" + round + "-" + i : null,
                    i % 4 == 0 ? METADATA : null);
            }
        }
        // Any per-unit allocation would show as >= 16 B x 50,000 units = 800 KB. A few hundred bytes can appear
        // once, from the JIT recompiling the caller while we measure; that is not the recorder allocating.
        assertTrue(allocated[0] < 1_024, "bytes allocated by onUnit over 50,000 units: " + allocated[0]);
    }

    @Test
    void shouldCarryATransfersMetadataInItsEventRecordRightAfterItsReference()
    {
        final EffectChannel channel = new EffectChannel(WriterConfig.defaults().withRing(1 << 20, 1_000), 0, 0);
        final EffectRecorder recorder = new EffectRecorder(channel, 0);
        final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
        s.createAccount(1, 1, false, 0);
        s.createAccount(2, 1, true, 0);
        final Result withMetadata = s.transfer(1, 2, 100, "inv-7", METADATA);
        s.transfer(1, 2, 5, null);
        s.reverse(withMetadata, 10);
        final List<String> events = new ArrayList<>();
        channel.ring.read((type, buffer, index, length) ->
        {
            if (type != EffectRecords.EVENT || buffer.getInt(index + EffectRecords.EVENT_TYPE) == EventType.ACCOUNT_CREATED.code())
            {
                return;
            }
            final int referenceLength = buffer.getInt(index + EffectRecords.EVENT_REFERENCE_LENGTH);
            final int metadataLength = buffer.getInt(index + EffectRecords.EVENT_METADATA_LENGTH);
            assertEquals(EffectRecords.EVENT_REFERENCE + referenceLength + metadataLength, length, "the record ends with the metadata");
            final byte[] reference = new byte[referenceLength];
            final byte[] metadata = new byte[metadataLength];
            buffer.getBytes(index + EffectRecords.EVENT_REFERENCE, reference);
            buffer.getBytes(index + EffectRecords.EVENT_REFERENCE + referenceLength, metadata);
            events.add(EventType.fromCode(buffer.getInt(index + EffectRecords.EVENT_TYPE)) + " " +
                new String(reference, StandardCharsets.US_ASCII) + " " + new String(metadata, StandardCharsets.UTF_8));
        }, Integer.MAX_VALUE);
        assertEquals(List.of("TRANSFER_POSTED inv-7 " + METADATA, "TRANSFER_POSTED  ", "TRANSFER_REVERSED  "), events);
    }

    @Test
    void shouldSkipUnitsAtOrBelowTheFilter()
    {
        final EffectChannel channel = new EffectChannel(WriterConfig.defaults().withRing(1 << 20, 1_000), 5, 0);
        final EffectRecorder recorder = new EffectRecorder(channel, 5);
        final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
        for (long id = 1; id <= 8; id++)
        {
            s.createAccount(id, 1, false, 0);
        }
        final List<Long> units = new ArrayList<>();
        channel.ring.read((type, buffer, index, length) ->
        {
            if (type == EffectRecords.UNIT_BEGIN)
            {
                units.add(buffer.getLong(index + EffectRecords.UNIT_LAST_INDEX));
            }
        }, Integer.MAX_VALUE);
        assertEquals(List.of(6L, 7L, 8L), units);
        assertEquals(3, recorder.lagCommands(), "three units above the watermark of 5, none committed");
    }

    @Test
    void shouldReportLagFromTheWatermarkAndItsJournaledTime()
    {
        final EffectChannel channel = new EffectChannel(WriterConfig.defaults().withRing(1 << 20, 10), 0, 0);
        final EffectRecorder recorder = new EffectRecorder(channel, 0);
        final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
        s.createAccount(1, 1, false, 0);
        s.createAccount(2, 1, true, 0);
        final Ledger ledger = s.ledger;
        for (int i = 0; i < 10; i++)
        {
            s.transfer(1, 2, 1, null);
        }
        assertEquals(12, recorder.lagCommands());
        assertTrue(recorder.overLagBound(), "12 > 10 commands");
        channel.committedTimeNs.set(LedgerScenario.START_NS + 2_000_000L);
        channel.committedIndex.set(2);
        assertEquals(10, recorder.lagCommands());
        assertEquals(ledger.nowNs() - (LedgerScenario.START_NS + 2_000_000L), recorder.lagNs());
        assertFalse(recorder.overLagBound());
    }

    @Test
    void shouldTripTheLagBoundBeforeTheRingFillsAndHaltWhenItStaysFull()
    {
        final WriterConfig config = WriterConfig.defaults().withRing(1 << 16, 1_000_000).withWaits(200, 10, 100);
        final EffectChannel channel = new EffectChannel(config, 0, 0);
        final EffectRecorder recorder = new EffectRecorder(channel, 0);
        final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
        s.createAccount(1, 1, false, 0);
        s.createAccount(2, 1, true, 0);
        int transfers = 0;
        while (!recorder.overLagBound())
        {
            s.transfer(1, 2, 1, null);
            transfers++;
        }
        assertTrue(channel.ring.size() > config.ringBytesBound(), "the byte bound tripped (half the ring)");
        final int atBound = transfers;
        final long start = System.nanoTime();
        final IllegalStateException halt = assertThrows(IllegalStateException.class, () ->
        {
            while (true)
            {
                s.transfer(1, 2, 1, null);
            }
        });
        final long waitedMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(halt.getMessage().contains("ring full"), halt.getMessage());
        assertTrue(waitedMs >= 200 && waitedMs < 5_000, "a bounded wait, then the halt: " + waitedMs + " ms");
        assertTrue(recorder.ringFullWaits() > 0);
        assertTrue(atBound > 50, "the bound leaves room for what is already admitted: " + atBound);
    }
}
