package dev.tally.persistence.writer;

import dev.tally.ledger.LedgerLimits;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the hand-off's limits relate, checked once rather than trusted. */
class WriterConfigTest
{
    /** Ring bytes of one plain transfer with a full reference: 2 entries, 2 balances, 1 event, unit framing. */
    private static final int TRANSFER_RING_BYTES = record(EffectRecords.UNIT_BEGIN_LENGTH) + 2 * record(EffectRecords.ENTRY_LENGTH) +
        2 * record(EffectRecords.BALANCE_LENGTH) + record(EffectRecords.EVENT_LENGTH_WITHOUT_METADATA_MAX) +
        record(EffectRecords.UNIT_END_LENGTH);
    /** The same with the largest metadata: the largest event record there is. */
    private static final int METADATA_TRANSFER_RING_BYTES =
        TRANSFER_RING_BYTES - record(EffectRecords.EVENT_LENGTH_WITHOUT_METADATA_MAX) + record(EffectRecords.EVENT_LENGTH_MAX);

    @Test
    void shouldHoldTheLagBoundOfPlainTransfersInsideHalfTheDefaultRing()
    {
        final WriterConfig config = WriterConfig.defaults();
        assertTrue(TRANSFER_RING_BYTES <= 450, "napkin math says ~430 B: " + TRANSFER_RING_BYTES);
        assertTrue(config.lagBoundCommands() * TRANSFER_RING_BYTES <= config.ringBytesBound(),
            "the command bound trips before the byte bound for plain transfers");
    }

    @Test
    void shouldFitTheLargestUnitInTheHalfOfTheRingKeptAsMargin()
    {
        // A full atomic batch of plain transfers must fit in the half above the byte bound.
        assertTrue((long)LedgerLimits.BATCH_OPERATIONS_MAX * TRANSFER_RING_BYTES <= WriterConfig.defaults().ringCapacityBytes() / 2);
        assertEquals(96 + LedgerLimits.REFERENCE_LENGTH_MAX, EffectRecords.EVENT_LENGTH_WITHOUT_METADATA_MAX);
        assertEquals(96 + LedgerLimits.REFERENCE_LENGTH_MAX + LedgerLimits.METADATA_LENGTH_MAX, EffectRecords.EVENT_LENGTH_MAX);
    }

    @Test
    void shouldLeaveTransfersWithMetadataToTheByteBoundAndStillFitAFullBatchOfThemInTheMargin()
    {
        final WriterConfig config = WriterConfig.defaults();
        assertTrue(METADATA_TRANSFER_RING_BYTES <= 1_500, "~1.5 KB: " + METADATA_TRANSFER_RING_BYTES);
        assertTrue(config.lagBoundCommands() * METADATA_TRANSFER_RING_BYTES > config.ringBytesBound(),
            "for them the byte bound trips before the command bound");
        assertTrue((long)LedgerLimits.BATCH_OPERATIONS_MAX * METADATA_TRANSFER_RING_BYTES <= config.ringCapacityBytes() / 2);
        assertTrue(WriterConfig.RECORD_LENGTH_MAX <= WriterConfig.RING_CAPACITY_MIN_BYTES / 8, "Agrona's record limit");
    }

    @Test
    void shouldRejectInvalidLimitsAtStartup()
    {
        final WriterConfig ok = WriterConfig.defaults();
        assertThrows(IllegalArgumentException.class, () -> ok.withRing((1 << 20) + 1, 10));
        assertThrows(IllegalArgumentException.class, () -> ok.withRing(1 << 10, 10));
        assertThrows(IllegalArgumentException.class, () -> ok.withRing(1 << 20, 0));
        assertThrows(IllegalArgumentException.class, () -> ok.withBatch(0, 10));
        assertThrows(IllegalArgumentException.class, () -> ok.withWaits(10, 100, 50));
    }

    /** Agrona's ring: an 8-byte header, records aligned to 8 bytes. */
    private static int record(final int length)
    {
        return (8 + length + 7) & ~7;
    }
}
