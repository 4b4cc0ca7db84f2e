package dev.tally.perf.peer;

import dev.tally.gateway.http.NettyTransport;
import java.util.List;

/**
 * Everything a {@link PeerServer} needs, validated once.
 *
 * @param synchronousCommit {@code synchronous_commit = on} (a reply leaves after its WAL is flushed: the
 *                          like-for-like peer of Tally {@code --durability sync}) or off (async).
 * @param poolSize          HikariCP connections, and the JDBC executor's threads (one connection each).
 * @param queueMax          requests waiting for a JDBC thread before the peer answers 503.
 * @param ioThreads         Netty I/O threads (parse, validate, write replies; never JDBC).
 * @param path              function (one round trip) or plain statements.
 * @param apiKeys           {@code TENANT:KEY} pairs, as Tally's {@code --api-key}.
 * @param port              HTTP port on 127.0.0.1; 0 picks a free one.
 * @param transport         the Netty transport, as Tally's {@code --transport}: the same front end on both sides.
 * @param hotRows           the balance rows of a hot account: as many as its sub-balances, or a fixed number (1: the naive design).
 */
public record PeerConfig(boolean synchronousCommit, int poolSize, int queueMax, int ioThreads, TransferPath path, List<String> apiKeys,
    int port, NettyTransport transport, HotRows hotRows)
{
    public static final int POOL_SIZE_MAX = 256;
    public static final int QUEUE_MAX = 1 << 20;
    /**
     * The pool of {@code tally-perf peer} and of the peer's tests: PostgreSQL's rule of thumb, 2 x cores + disks, rounded
     * up so that group commit has several committers to batch under synchronous_commit = on. {@code compare} sizes the pool
     * per scenario ({@link PeerPools}).
     */
    public static final int POOL_SIZE_DEFAULT = 8;

    public PeerConfig
    {
        if (poolSize < 1 || poolSize > POOL_SIZE_MAX)
        {
            throw new IllegalArgumentException("pool size must be 1.." + POOL_SIZE_MAX + ", was " + poolSize);
        }
        if (queueMax < 1 || queueMax > QUEUE_MAX)
        {
            throw new IllegalArgumentException("queue max must be 1.." + QUEUE_MAX + ", was " + queueMax);
        }
        if (ioThreads < 1 || ioThreads > 16)
        {
            throw new IllegalArgumentException("io threads must be 1..16, was " + ioThreads);
        }
        if (apiKeys.isEmpty())
        {
            throw new IllegalArgumentException("at least one TENANT:KEY is required");
        }
        if (port < 0 || port > 65_535)
        {
            throw new IllegalArgumentException("port must be 0..65535, was " + port);
        }
        apiKeys = List.copyOf(apiKeys);
        transport = transport.resolve();
        java.util.Objects.requireNonNull(hotRows, "hotRows");
    }

    /** Over {@link NettyTransport#AUTO}, hot accounts in as many rows as sub-balances. */
    public PeerConfig(final boolean synchronousCommit, final int poolSize, final int queueMax, final int ioThreads, final TransferPath path,
        final List<String> apiKeys, final int port)
    {
        this(synchronousCommit, poolSize, queueMax, ioThreads, path, apiKeys, port, NettyTransport.AUTO, HotRows.SUB_BALANCES);
    }

    /** @return the defaults with one API key and the given durability. */
    public static PeerConfig defaults(final boolean synchronousCommit, final String tenantColonKey)
    {
        return new PeerConfig(synchronousCommit, POOL_SIZE_DEFAULT, 16_384, 1, TransferPath.FUNCTION, List.of(tenantColonKey), 0);
    }

    /** @return a copy with another pool size. */
    public PeerConfig withPoolSize(final int size)
    {
        return new PeerConfig(synchronousCommit, size, queueMax, ioThreads, path, apiKeys, port, transport, hotRows);
    }

    /** @return a copy with another hot-account design. */
    public PeerConfig withHotRows(final HotRows rows)
    {
        return new PeerConfig(synchronousCommit, poolSize, queueMax, ioThreads, path, apiKeys, port, transport, rows);
    }

    /** @return a copy with another transfer path ({@code function} or {@code statements}). */
    public PeerConfig withPath(final String name)
    {
        return new PeerConfig(synchronousCommit, poolSize, queueMax, ioThreads, TransferPath.parse(name), apiKeys, port, transport, hotRows);
    }
}
