package dev.tally.journal;

import java.io.IOException;

/**
 * The journal's fault injection, for tests that need a disk or a queue to fail at a chosen point. Read once, when a
 * {@link Journal} opens; with neither property set (every server) both checks are one comparison that never fires.
 */
public final class JournalFaults
{
    /**
     * {@code -Dtally.test.journalForcesBeforeFailure=N}: every force after the first N fails as a disk would
     * ({@code -1}, the default: never).
     */
    public static final String FORCES_BEFORE_FAILURE_PROPERTY = "tally.test.journalForcesBeforeFailure";
    /**
     * {@code -Dtally.test.journalDocumentsBeforeFailure=N}: the append of document N + 1 (counting from open, a recovery
     * marker included) fails once, as a queue that briefly cannot map its next chunk would ({@code -1}, the default: never).
     */
    public static final String DOCUMENTS_BEFORE_FAILURE_PROPERTY = "tally.test.journalDocumentsBeforeFailure";

    private final long forcesBeforeFailure = Long.getLong(FORCES_BEFORE_FAILURE_PROPERTY, -1);
    private final long documentsBeforeFailure = Long.getLong(DOCUMENTS_BEFORE_FAILURE_PROPERTY, -1);
    private long forces;
    private long documents;

    JournalFaults()
    {
    }

    /** Before each force: throws once the forces allowed are used up. */
    void beforeForce() throws IOException
    {
        if (forcesBeforeFailure >= 0 && forces++ >= forcesBeforeFailure)
        {
            throw new IOException("injected force failure (" + FORCES_BEFORE_FAILURE_PROPERTY + ")");
        }
    }

    /** Before each document is appended: throws for the one chosen. */
    void beforeDocument()
    {
        if (documents++ == documentsBeforeFailure)
        {
            throw new IllegalStateException("injected append failure (" + DOCUMENTS_BEFORE_FAILURE_PROPERTY + ")");
        }
    }
}
