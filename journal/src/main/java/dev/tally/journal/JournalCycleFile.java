package dev.tally.journal;

import java.nio.file.Path;

/**
 * One roll-cycle file of the journal, for retention decisions.
 *
 * @param cycle             Chronicle cycle number (hours since the epoch for the roll cycle in use).
 * @param path              the {@code .cq4} file.
 * @param firstJournalIndex journal index of the first command in the file (after a recovery marker,
 *                          the index the marker resumes at); 0 when the file holds no readable record.
 */
public record JournalCycleFile(int cycle, Path path, long firstJournalIndex)
{
}
