package dev.tally.snapshotter;

/** A snapshot file that cannot be trusted: truncated, a checksum that does not match, an unknown format. */
public final class SnapshotCorruptException extends Exception
{
    private static final long serialVersionUID = 1L;

    public SnapshotCorruptException(final String message)
    {
        super(message);
    }
}
