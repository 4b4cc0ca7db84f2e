package dev.tally.perf.peer;

import dev.tally.perf.load.ProcessCpu;
import dev.tally.gateway.http.ApiKeys;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import java.net.InetSocketAddress;
import java.sql.SQLException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The PostgreSQL-per-request peer: the v1 transfer contract of Tally (Idempotency-Key, 201/409/422,
 * byte-identical replays) served by the design most teams ship, one PostgreSQL transaction per request.
 * Wired in one place:
 *
 * <pre>
 *   client ──HTTP/1.1──► Netty I/O thread(s): route, auth, validate, fingerprint, render the 201 body
 *                              │ (bounded queue; full: 503)
 *                              ▼
 *                        JDBC executor, N threads ── HikariCP, N connections ──► PostgreSQL 14 (embedded, own data dir)
 *                              │                                                   peer_transfer(): ONE transaction
 *                              │                                                   peer_transfers(): ONE per batch request
 *                              ▼
 *                        reply back on the connection's event loop, in request order
 * </pre>
 *
 * A single {@code POST /v1/transfers} is one transaction; a {@code POST /v1/batch} (setup, and the
 * {@code batch} scenario) is one transaction for all its operations. A hot account is as many balance
 * rows as its {@link HotRows} variant gives it. Between measured runs a compare empties the tables
 * ({@link #truncate}), sizes the pool for the next scenario ({@link #resizePool}) and, once the run's setup is
 * done, lets PostgreSQL settle ({@link #settle}).
 */
public final class PeerServer implements AutoCloseable
{
    private static final int BODY_LENGTH_MAX_BYTES = 4 * 1024 * 1024;

    private final PeerConfig config;
    private final PeerDatabase database;
    private final ThreadPoolExecutor jdbc;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel serverChannel;

    public PeerServer(final PeerConfig config) throws InterruptedException
    {
        this.config = config;
        final ApiKeys apiKeys = ApiKeys.parse(config.apiKeys());
        // 1. PostgreSQL, schema, pool.
        database = PeerDatabase.start(config);
        // 2. The JDBC executor: as many threads as pooled connections, a bounded queue in front.
        jdbc = new ThreadPoolExecutor(config.poolSize(), config.poolSize(), 0, TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(config.queueMax()), new JdbcThreads());
        jdbc.prestartAllCoreThreads();
        // 3. HTTP on loopback.
        final PeerLedger ledger = new PeerLedger(config.path(), config.hotRows());
        boss = new MultiThreadIoEventLoopGroup(1, config.transport().ioHandlers());
        workers = new MultiThreadIoEventLoopGroup(config.ioThreads(), config.transport().ioHandlers());
        serverChannel = new ServerBootstrap()
            .group(boss, workers)
            .channel(config.transport().serverChannel())
            .option(ChannelOption.SO_BACKLOG, 1024)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(new ChannelInitializer<SocketChannel>()
            {
                @Override
                protected void initChannel(final SocketChannel channel)
                {
                    channel.pipeline()
                        .addLast("codec", new HttpServerCodec())
                        .addLast("aggregator", new HttpObjectAggregator(BODY_LENGTH_MAX_BYTES))
                        .addLast("peer", new PeerHttpHandler(apiKeys, ledger, database.pool(), jdbc));
                }
            })
            .bind(new InetSocketAddress("127.0.0.1", config.port()))
            .sync()
            .channel();
    }

    /** @return the HTTP port bound on 127.0.0.1. */
    public int port()
    {
        return ((InetSocketAddress)serverChannel.localAddress()).getPort();
    }

    public PeerConfig config()
    {
        return config;
    }

    /** @return the correctness check over this peer's database. */
    public PeerCheck checker()
    {
        return new PeerCheck(database);
    }

    /**
     * Lets PostgreSQL settle before a measured window, so that neither the work of setup nor PostgreSQL's background
     * work lands in it: a VACUUM ANALYZE of the tables (what autovacuum would otherwise start at a random moment, and
     * statistics for the planner), then a CHECKPOINT (the dirty pages of setup written now, not in the window).
     */
    public void settle() throws SQLException
    {
        try (java.sql.Connection connection = database.connect(); java.sql.Statement statement = connection.createStatement())
        {
            statement.execute("VACUUM (ANALYZE) accounts, idempotency_keys, ledger_entries, outbox");
            statement.execute("CHECKPOINT");
        }
    }

    /** Empties every table, so that each measured run starts from the same empty database. No request may be in flight. */
    public void truncate() throws SQLException
    {
        try (java.sql.Connection connection = database.connect(); java.sql.Statement statement = connection.createStatement())
        {
            statement.execute("TRUNCATE accounts, idempotency_keys, ledger_entries, outbox RESTART IDENTITY");
        }
    }

    /**
     * Sets the pool to {@code size} connections and as many JDBC threads. No request may be in flight. Connections above
     * the new size are closed as they fall idle; the threads above it end.
     */
    public void resizePool(final int size)
    {
        if (size < 1 || size > PeerConfig.POOL_SIZE_MAX)
        {
            throw new IllegalArgumentException("pool size must be 1.." + PeerConfig.POOL_SIZE_MAX + ", was " + size);
        }
        if (size >= jdbc.getMaximumPoolSize())
        {
            jdbc.setMaximumPoolSize(size);
            jdbc.setCorePoolSize(size);
        }
        else
        {
            jdbc.setCorePoolSize(size);
            jdbc.setMaximumPoolSize(size);
        }
        jdbc.prestartAllCoreThreads();
        database.resizePool(size);
    }

    /** @return the pool's size now: connections = JDBC threads. */
    public int poolSize()
    {
        return jdbc.getCorePoolSize();
    }

    /** @return CPU time used so far by this peer's PostgreSQL (postmaster and all its processes), ns; -1 when unknown. */
    public long postgresCpuNs()
    {
        try
        {
            final String pid = java.nio.file.Files.readAllLines(database.dataDirectory().resolve("postmaster.pid")).get(0).trim();
            return ProcessCpu.postgresNs(Long.parseLong(pid));
        }
        catch (final java.io.IOException | RuntimeException ex)
        {
            return -1;
        }
    }

    /** @return a one-line description with the settings PostgreSQL reports. */
    public String describe() throws SQLException
    {
        return String.format(java.util.Locale.ROOT,
            "peer: PostgreSQL %s on port %d (synchronous_commit=%s, fsync=%s, shared_buffers=%s, wal_sync_method=%s), transfer path %s, " +
                "HikariCP pool %d = JDBC threads, queue %,d, %d I/O thread(s) on %s, HTTP port %d, a hot account of 16 sub-balances as %s",
            database.show("server_version"), database.port(), database.show("synchronous_commit"), database.show("fsync"),
            database.show("shared_buffers"), database.show("wal_sync_method"), config.path().cliName(), poolSize(), config.queueMax(),
            config.ioThreads(), config.transport().cliName(), port(), config.hotRows().label(16));
    }

    @Override
    public void close()
    {
        serverChannel.close().syncUninterruptibly();
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        jdbc.shutdown();
        try
        {
            if (!jdbc.awaitTermination(30, TimeUnit.SECONDS))
            {
                jdbc.shutdownNow();
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        database.close();
    }

    /** Names the JDBC threads {@code peer-jdbc-N}. */
    private static final class JdbcThreads implements java.util.concurrent.ThreadFactory
    {
        private final AtomicInteger count = new AtomicInteger();

        @Override
        public Thread newThread(final Runnable runnable)
        {
            final Thread thread = new Thread(runnable, "peer-jdbc-" + count.getAndIncrement());
            thread.setDaemon(true);
            return thread;
        }
    }
}
