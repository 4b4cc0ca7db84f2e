package dev.tally.journal;

/**
 * The journal cannot be opened or replayed without losing or reordering commands that may have been
 * acknowledged. Not a crash artefact: an operator decides (restore, or open with
 * {@link JournalConfig#truncateAfterCorruption()}).
 */
public final class JournalCorruptedException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final transient ReplayResult scan;

    public JournalCorruptedException(final String message, final ReplayResult scan)
    {
        super(message + ": " + scan);
        this.scan = scan;
    }

    /** @return the scan that found the problem. */
    public ReplayResult scan()
    {
        return scan;
    }
}
