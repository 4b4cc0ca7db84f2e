package dev.tally.journal;

/**
 * The rules a scan of the journal enforces, record by record, separate from how records are read.
 *
 * <pre>
 *            good command, index = last + 1, time not decreasing
 *          +----+
 *          v    |        unreadable record                     end of journal
 *        NORMAL ---------------------------------> SKIPPING ----------------------> TORN_TAIL (or
 *                                                                               CORRUPT when intact
 *                                                                               records were skipped)
 *          ^  |                                      |  ^
 *          |  | gap, duplicate, time backwards,      |  | unreadable or good record:
 *          |  | marker not matching last index       |  | counted as torn
 *          |  v                                      |  |
 *          | CORRUPT <-------------------------------+--+ marker not matching last index
 *          |                                         |
 *          +-----------------------------------------+ recovery marker resuming after last index
 * </pre>
 *
 * <p>Before the first record the tracker is either anchored at a known index (a scan from the very
 * start is anchored at 0) or takes its baseline from the first record it sees (a scan that starts at
 * a known-good record in the middle).
 */
final class SequenceTracker
{
    private boolean anchored;
    private boolean skipping;
    private boolean corrupt;
    private long lastIndex;
    private long lastTimestampNs;
    private long droppedRecordCount;
    private long recoveredRegionCount;
    private long tornRecordCount;
    private long tornValidRecordCount;
    private long tornBytes;
    private String detail = "";

    /** Anchors the sequence: the next command must be {@code index + 1}. */
    void startAt(final long index, final long timestampNs)
    {
        anchored = true;
        lastIndex = index;
        lastTimestampNs = timestampNs;
    }

    /** Lets the first record seen set the baseline. */
    void startUnanchored()
    {
        anchored = false;
    }

    boolean isCorrupt()
    {
        return corrupt;
    }

    /** @return true after an unreadable record that no recovery marker has cut yet: what is read now is torn. */
    boolean isSkipping()
    {
        return skipping && !corrupt;
    }

    /** Counts bytes of the torn region (from the first unreadable record on). */
    void onTornBytes(final long bytes)
    {
        tornBytes += bytes;
    }

    /**
     * The read stopped, but Chronicle's own bookkeeping puts documents past that point ({@code ChronicleEndCheck}): the
     * journal is damaged before its end, whatever the records before the stop look like.
     */
    void onUnreachableData(final String where)
    {
        if (!corrupt)
        {
            fail("the journal holds documents past the last one it can read (after journal index " + lastIndex + "): " + where);
        }
    }

    /** @return true when the command is the next one of the sequence and may be applied. */
    boolean onCommand(final long index, final long timestampNs)
    {
        if (corrupt)
        {
            return false;
        }
        if (!anchored)
        {
            startAt(index - 1, timestampNs);
        }
        if (skipping)
        {
            tornRecordCount++;
            tornValidRecordCount++;
            return false;
        }
        if (index != lastIndex + 1)
        {
            fail("expected journal index " + (lastIndex + 1) + " but read " + index);
            return false;
        }
        if (timestampNs < lastTimestampNs)
        {
            fail("journaled time went backwards at index " + index + ": " + timestampNs + " < " + lastTimestampNs);
            return false;
        }
        lastIndex = index;
        lastTimestampNs = timestampNs;
        return true;
    }

    void onRecoveryMarker(final long resumeAfterIndex, final long timestampNs)
    {
        if (corrupt)
        {
            return;
        }
        if (!anchored)
        {
            startAt(resumeAfterIndex, timestampNs);
            return;
        }
        if (resumeAfterIndex != lastIndex)
        {
            fail("recovery marker resumes after " + resumeAfterIndex + " but the last good index is " + lastIndex);
            return;
        }
        if (skipping)
        {
            skipping = false;
            droppedRecordCount += tornRecordCount;
            tornRecordCount = 0;
            tornValidRecordCount = 0;
            tornBytes = 0;
        }
        recoveredRegionCount++;
    }

    void onUnreadable(final DecodeStatus status)
    {
        if (corrupt)
        {
            return;
        }
        if (!anchored)
        {
            fail("first record of the scan is unreadable: " + status);
            return;
        }
        if (!skipping)
        {
            skipping = true;
            detail = status + " in the record after journal index " + lastIndex;
        }
        tornRecordCount++;
    }

    /**
     * After {@link #onUnreadable}: what is left of that record's document is not blank. It may hold intact records that
     * cannot be reached without the damaged one, so it counts as one (a crash tears a document into blank pages, not
     * data), and the scan ends {@link ReplayStatus#CORRUPT} unless a recovery marker already cut it.
     */
    void onDataAfterUnreadable()
    {
        if (corrupt || !skipping)
        {
            return;
        }
        tornRecordCount++;
        tornValidRecordCount++;
    }

    ReplayResult result(final long deliveredCount)
    {
        final ReplayStatus status;
        if (corrupt)
        {
            status = ReplayStatus.CORRUPT;
            tornRecordCount = 0;
            tornValidRecordCount = 0;
            tornBytes = 0;
        }
        else if (skipping && tornValidRecordCount > 0)
        {
            status = ReplayStatus.CORRUPT;
            detail = detail + "; " + tornValidRecordCount + " intact records follow it";
        }
        else
        {
            status = skipping ? ReplayStatus.TORN_TAIL : ReplayStatus.COMPLETE;
        }
        return new ReplayResult(
            status,
            lastIndex,
            lastTimestampNs,
            deliveredCount,
            droppedRecordCount,
            recoveredRegionCount,
            tornRecordCount,
            tornValidRecordCount,
            tornBytes,
            detail);
    }

    private void fail(final String problem)
    {
        corrupt = true;
        detail = skipping ? detail + "; then " + problem : problem;
    }
}
