package dev.tally.journal;

/**
 * What "appended" promises before a reply may leave. Chosen once per journal ({@code --durability}).
 */
public enum Durability
{
    /**
     * A command is durable once it is written into the memory-mapped queue file: it survives a crash
     * of the process (the pages belong to the kernel's page cache) but not a power loss or kernel
     * crash, which may lose whatever the kernel had not yet written back (typically the last few
     * seconds). {@link Journal#flush()} forces nothing.
     */
    ASYNC,
    /**
     * A command is durable once {@link Journal#flush()} (called once per batch) has returned: the
     * queue file is forced to stable storage with {@code fdatasync(2)}, so it survives power loss.
     * Replies must wait for that flush; group commit keeps the throughput.
     */
    SYNC
}
