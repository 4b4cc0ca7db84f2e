package dev.tally.persistence.db;

import java.nio.file.Path;

/** Tries to lock the data folder given as its argument from a process of its own: prints {@code locked}, or {@code refused} and why. */
public final class DataFolderLockChild
{
    private DataFolderLockChild()
    {
    }

    public static void main(final String[] args)
    {
        final Path folder = Path.of(args[0]);
        try (DataFolderLock lock = DataFolderLock.acquire(folder, "child"))
        {
            System.out.println(lock.covers(folder) ? "locked" : "locked, but the lock does not cover " + folder);
        }
        catch (final DataFolderInUseException ex)
        {
            System.out.println("refused");
            System.out.println(ex.getMessage());
        }
    }
}
