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

    /** @return of those, records with a good checksum (cut only on an operator's request: {@code truncateAfterCorruption}). */
    public long droppedIntactRecordCount()
    {
        return markerWritten ? tailScan.tornTailValidRecordCount() : 0;
    }

    /** @return the bytes of the records cut by this open (0 when the tail was clean). */
    public long droppedBytes()
    {
        return markerWritten ? tailScan.tornTailBytes() : 0;
    }

    /**
     * @return the cut in one line for the log: where it is, what it dropped and why it may; empty when nothing was cut.
     */
    public String describeCut()
    {
        if (!markerWritten)
        {
            return "";
        }
        return "cut " + droppedRecordCount() + " unreadable record(s), " + droppedBytes() + " bytes, after journal index " +
            lastIndex() + (droppedIntactRecordCount() > 0 ? " (" + droppedIntactRecordCount() + " of them intact, cut on the " +
            "operator's request)" : "") + "; new commands continue at index " + (lastIndex() + 1) + " (" + tailScan.detail() + ")";
    }
}
