package dev.tally.ledger.transfer;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TransferTableTest
{
    private static final byte[] NO_REFERENCE = new byte[0];

    /** Adds a transfer created at {@code journalIndex}, at time {@code journalIndex * 10}. */
    private static int add(final TransferTable table, final long journalIndex)
    {
        return table.add(journalIndex, journalIndex * 10, 1, 2, 3, journalIndex, 0x555344, TransferKind.TRANSFER, 0, 0, 0, 0,
            NO_REFERENCE, 0, false);
    }

    @Test
    void shouldKeepTheMetadataBitApartFromTheReferenceLengthKindAndCurrency()
    {
        final TransferTable table = new TransferTable(4);
        final byte[] reference = new byte[dev.tally.ledger.LedgerLimits.REFERENCE_LENGTH_MAX];
        java.util.Arrays.fill(reference, (byte)'r');
        final int full = table.add(1, 10, 1, 2, 3, 5, 0x555344, TransferKind.REVERSAL, 0, 0, 7, 8, reference, reference.length, true);
        final int plain = table.add(2, 20, 1, 2, 3, 5, 0x545259, TransferKind.TRANSFER, 0, 0, 7, 8, reference, 3, false);

        assertTrue(table.hasMetadata(full));
        assertEquals(reference.length, table.referenceLength(full));
        assertEquals(TransferKind.REVERSAL, table.kind(full));
        assertEquals(0x555344, table.currency(full));
        assertFalse(table.hasMetadata(plain));
        assertEquals(3, table.referenceLength(plain));
        assertEquals("rrr", table.reference(plain));
    }

    @Test
    void shouldFindEveryLiveTransferByJournalIndexAcrossTheRingsWrapAndNothingElse()
    {
        final TransferTable table = new TransferTable(5);
        final java.util.ArrayDeque<Long> live = new java.util.ArrayDeque<>();
        long index = 3;
        for (int round = 0; round < 40; round++)
        {
            add(table, index);
            live.addLast(index);
            // gaps between indexes, as commands that create no transfer leave them
            index += 1 + round % 3;
            if (table.size() == 5)
            {
                final int expired = table.expire(Long.MAX_VALUE, 1 + round % 2);
                for (int i = 0; i < expired; i++)
                {
                    live.removeFirst();
                }
            }
            for (long probe = index - 40; probe <= index + 1; probe++)
            {
                final int position = table.find(probe);
                assertEquals(live.contains(probe), position >= 0, "journal index " + probe);
                if (position >= 0)
                {
                    assertEquals(probe, table.journalIndex(position));
                    assertEquals(probe, table.amount(position));
                }
            }
        }
    }

    @Test
    void shouldCountLiveTransfersFoundAfterExpiryAndRollback()
    {
        final TransferTable table = new TransferTable(8);
        for (long i = 1; i <= 6; i++)
        {
            add(table, i * 2);
        }
        table.expire(40, 2); // times 20 and 40: the first two
        table.removeNewest(); // index 12

        int found = 0;
        for (long probe = 0; probe <= 14; probe++)
        {
            found += table.find(probe) >= 0 ? 1 : 0;
        }
        assertEquals(3, found);
        assertEquals(3, table.size());
        assertEquals(-1, table.find(4));
        assertEquals(-1, table.find(12));
        assertEquals(10, table.journalIndex(table.find(10)));
        add(table, 12);
        assertEquals(12, table.journalIndex(table.find(12)), "the rolled-back index can be created again");
    }

    @Test
    void shouldRefuseATransferOutOfJournalOrder()
    {
        final TransferTable table = new TransferTable(4);
        add(table, 7);

        assertThrows(IllegalStateException.class, () -> add(table, 7));
        assertThrows(IllegalStateException.class, () -> add(table, 5));
    }
}
