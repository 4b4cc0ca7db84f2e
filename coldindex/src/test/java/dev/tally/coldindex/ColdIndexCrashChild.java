package dev.tally.coldindex;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A cold-index writer that commits forever, one transfer and one key per journal index, ten indexes a commit, and prints
 * {@code ACK n} once the commit up to index n has returned: what a killed writer must keep.
 */
public final class ColdIndexCrashChild
{
    private ColdIndexCrashChild()
    {
    }

    public static void main(final String[] args)
    {
        final long t0 = Long.parseLong(args[1]);
        try (ColdIndex index = ColdIndex.open(ColdIndexConfig.of(Path.of(args[0]), TimeUnit.HOURS.toNanos(24)));
             ColdWriter writer = index.writer())
        {
            final long[] record = new long[ColdRecords.TRANSFER_LONGS];
            for (long journalIndex = 1; ; journalIndex++)
            {
                record[0] = journalIndex;
                writer.transfer(journalIndex, record);
                writer.key(journalIndex, -journalIndex, record);
                if (journalIndex % 10 == 0)
                {
                    writer.commit(journalIndex, t0 + journalIndex);
                    System.out.println("ACK " + journalIndex);
                }
            }
        }
    }
}
