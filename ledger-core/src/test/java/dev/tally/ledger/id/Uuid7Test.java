package dev.tally.ledger.id;

import dev.tally.ledger.LedgerLimits;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class Uuid7Test
{
    private static final long START_NS = 1_767_225_600_000_000_000L;

    @Property(tries = 500)
    void shouldDecodeJournalIndexKindAndOrdinalItWasBuiltFrom(
        @ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 1_000_000 - 1) final long unixMs,
        @ForAll @LongRange(min = 1, max = LedgerLimits.JOURNAL_INDEX_MAX) final long journalIndex,
        @ForAll @IntRange(min = 0, max = 3) final int kind,
        @ForAll @IntRange(min = 0, max = Uuid7.ORDINAL_MAX) final int ordinal)
    {
        final long hi = Uuid7.hi(unixMs * 1_000_000L + 999_999, kind);
        final long lo = Uuid7.lo(journalIndex, ordinal);

        assertEquals(journalIndex, Uuid7.journalIndex(hi, lo));
        assertEquals(kind, Uuid7.kind(hi));
        assertEquals(ordinal, Uuid7.ordinal(lo));
        assertEquals(unixMs, hi >>> 16, "the top 48 bits are the unix milliseconds");
        final UUID uuid = UUID.fromString(Uuid7.toString(hi, lo));
        assertEquals(7, uuid.version());
        assertEquals(2, uuid.variant(), "RFC 9562 variant 10");
        assertEquals(hi, uuid.getMostSignificantBits());
        assertEquals(lo, uuid.getLeastSignificantBits());
    }

    @Test
    void shouldRoundTripTheLargestJournalIndexAndOrdinal()
    {
        final long lo = Uuid7.lo(LedgerLimits.JOURNAL_INDEX_MAX, Uuid7.ORDINAL_MAX);

        assertEquals(LedgerLimits.JOURNAL_INDEX_MAX, Uuid7.journalIndex(Uuid7.hi(START_NS, Uuid7.KIND_ENTRY), lo));
        assertEquals(Uuid7.ORDINAL_MAX, Uuid7.ordinal(lo));
    }

    @Test
    void shouldOrderIdsByTimeThenByJournalIndex()
    {
        final long[][] ids = {
            {Uuid7.hi(START_NS, Uuid7.KIND_TRANSFER), Uuid7.lo(5, 0)},
            {Uuid7.hi(START_NS + 999_999, Uuid7.KIND_TRANSFER), Uuid7.lo(6, 0)},
            {Uuid7.hi(START_NS + 1_000_000, Uuid7.KIND_TRANSFER), Uuid7.lo(7, 0)},
            {Uuid7.hi(START_NS + 86_400_000_000_000L, Uuid7.KIND_TRANSFER), Uuid7.lo(8, 0)},
        };

        for (int i = 1; i < ids.length; i++)
        {
            assertTrue(compareAsBytes(ids[i - 1], ids[i]) < 0, "id " + (i - 1) + " sorts before id " + i);
            assertTrue(UUID.fromString(Uuid7.toString(ids[i - 1][0], ids[i - 1][1]))
                .compareTo(UUID.fromString(Uuid7.toString(ids[i][0], ids[i][1]))) < 0);
        }
    }

    @Test
    void shouldNotDecodeIdsThatAreNotOurs()
    {
        final UUID random = UUID.fromString("0b5c7a1e-2f0d-4c3e-9a41-3f2b6d7e8c90");

        assertEquals(-1, Uuid7.journalIndex(random.getMostSignificantBits(), random.getLeastSignificantBits()), "version 4");
        final long hi = Uuid7.hi(START_NS, Uuid7.KIND_HOLD);
        assertEquals(-1, Uuid7.journalIndex(hi, Uuid7.lo(42, 0) & ~(1L << 63)), "wrong variant");
        assertEquals(42, Uuid7.journalIndex(hi, Uuid7.lo(42, 0)));
    }

    /** Compares two ids the way PostgreSQL's uuid type does: as 16 unsigned bytes. */
    private static int compareAsBytes(final long[] a, final long[] b)
    {
        final int high = Long.compareUnsigned(a[0], b[0]);
        return high != 0 ? high : Long.compareUnsigned(a[1], b[1]);
    }
}
