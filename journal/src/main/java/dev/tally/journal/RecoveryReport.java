package dev.tally.journal;

/**
 * What {@link Journal#open(JournalConfig)} found at the tail of the journal and did about it.
 *
 * @param tailScan      the scan of the tail window (status, last good index, torn records).
 * @param markerWritten true when a torn tail was cut with a recovery marker.
 */
public record RecoveryReport(ReplayResult tailScan, boolean markerWritten)
{
    /** @return the journal index the sequence continues after. */
    public long lastIndex()
    {
        return tailScan.lastIndex();
    }

    /** @return records cut from the tail by this open (0 when the tail was clean). */
    public long droppedRecordCount()
    {
        return markerWritten ? tailScan.tornTailRecordCount() : 0;
    }
}
