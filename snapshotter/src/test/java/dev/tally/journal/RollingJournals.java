package dev.tally.journal;

import java.nio.file.Path;
import net.openhft.chronicle.core.time.TimeProvider;

/**
 * Opens a journal whose hourly files roll on a test clock ({@code Journal.open(config, clock)} is
 * package-private: only tests choose when a file rolls).
 */
public final class RollingJournals
{
    private RollingJournals()
    {
    }

    public static Journal open(final Path directory, final TimeProvider rollClock)
    {
        return Journal.open(JournalConfig.of(directory, Durability.ASYNC), rollClock);
    }
}
