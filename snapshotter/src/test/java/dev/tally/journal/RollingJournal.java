package dev.tally.journal;

import java.nio.file.Path;
import net.openhft.chronicle.core.time.TimeProvider;

/** Opens a journal whose cycle files roll on a test clock (the package-private {@code Journal.open} overload). */
public final class RollingJournal
{
    private RollingJournal()
    {
    }

    public static Journal open(final Path directory, final TimeProvider rollClock)
    {
        return Journal.open(JournalConfig.of(directory, Durability.SYNC), rollClock);
    }
}
