package dev.tally.persistence.db;

import java.nio.file.Path;

/** A data folder another process (or this one) holds: see {@link DataFolderLock}. */
public final class DataFolderInUseException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;

    private final transient Path folder;

    DataFolderInUseException(final Path folder, final String holder)
    {
        super("data folder " + folder + " is in use by " + holder + "; one data folder takes one Tally process at a time " +
            "(two would corrupt its journal and stop each other's PostgreSQL): stop that one first, or use another data folder " +
            "(lock: " + folder.resolve(DataFolderLock.FILE_NAME) + ")");
        this.folder = folder;
    }

    /** @return the folder in use. */
    public Path folder()
    {
        return folder;
    }
}
