package dev.tally.journal;

/**
 * What a replay (or the tail check on open) found: log- and metric-friendly, one per scan.
 *
 * @param status                   how the scan ended.
 * @param lastIndex                last good journal index seen (delivered or not); 0 when none.
 * @param lastTimestampNs          journaled time of that command; 0 when none.
 * @param deliveredCount           commands handed to the consumer.
 * @param droppedRecordCount       records skipped inside regions already cut by a recovery marker
 *                                 (earlier torn tails): unreadable ones and any written after them.
 * @param recoveredRegionCount     recovery markers crossed.
 * @param tornTailRecordCount      records from the first unreadable one to the end that no marker
 *                                 cuts yet: {@link ReplayStatus#TORN_TAIL}, or
 *                                 {@link ReplayStatus#CORRUPT} when some of them are intact.
 * @param tornTailValidRecordCount of those, records with a good checksum that follow an unreadable
 *                                 one: a plain crash never produces them, so they make the status
 *                                 {@link ReplayStatus#CORRUPT}.
 * @param tornTailBytes            the bytes those records take in the journal (what a cut of them drops).
 * @param detail                   the first problem met, in words; empty when none.
 */
public record ReplayResult(
    ReplayStatus status,
    long lastIndex,
    long lastTimestampNs,
    long deliveredCount,
    long droppedRecordCount,
    long recoveredRegionCount,
    long tornTailRecordCount,
    long tornTailValidRecordCount,
    long tornTailBytes,
    String detail)
{
    /**
     * @return this result, or, when {@code witness} holds an index past where this scan ended, the same scan ended
     *         {@link ReplayStatus#CORRUPT} with the gap in its detail: a journal that ends below a witness lost records it
     *         held on stable storage.
     */
    public ReplayResult checkedAgainst(final EndWitness witness)
    {
        if (status == ReplayStatus.CORRUPT || !witness.isBeyond(lastIndex))
        {
            return this;
        }
        final String gap = witness.gapBefore(lastIndex);
        return new ReplayResult(ReplayStatus.CORRUPT, lastIndex, lastTimestampNs, deliveredCount, droppedRecordCount,
            recoveredRegionCount, 0, 0, 0, detail.isEmpty() ? gap : detail + "; " + gap);
    }
}
