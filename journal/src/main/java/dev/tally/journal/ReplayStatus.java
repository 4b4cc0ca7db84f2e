package dev.tally.journal;

/** How a scan of the journal ended. */
public enum ReplayStatus
{
    /** Every record up to the end was intact and in sequence. */
    COMPLETE,
    /**
     * The journal ends with records that could not be read (torn, truncated or corrupt) and no
     * recovery marker after them yet: the scan stopped at the last good record. Opening the journal for
     * writing cuts such a tail with a recovery marker.
     */
    TORN_TAIL,
    /**
     * The journal is broken (a gap, a duplicate or decreasing time between intact records, or intact
     * records after an unreadable one with no recovery marker): the scan stopped at the last good
     * record. This is not a crash artefact; an operator must look. When the cause is intact records
     * after an unreadable one, {@link ReplayResult#tornTailRecordCount()} and
     * {@link ReplayResult#tornTailValidRecordCount()} say how many.
     */
    CORRUPT
}
