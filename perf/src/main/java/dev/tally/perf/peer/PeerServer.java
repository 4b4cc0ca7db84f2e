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
 *                              ▼
 *                        reply back on the connection's event loop, in request order
 * </pre>
 *
 * Setup of a load run goes through {@code POST /v1/batch} (account and transfer operations, one
 * transaction per batch, each operation through the same SQL function as a single request); the
 * measured requests are single {@code POST /v1/transfers}.
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
        final PeerLedger ledger = new PeerLedger(config.path());
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
     * Lets PostgreSQL settle between measured runs, so that its background work does not land in the next
     * run (of either system): a CHECKPOINT, then a VACUUM ANALYZE of the tables (what autovacuum would
     * otherwise start at a random moment).
     */
    public void settle() throws SQLException
    {
        try (java.sql.Connection connection = database.connect(); java.sql.Statement statement = connection.createStatement())
        {
            statement.execute("VACUUM (ANALYZE) accounts, idempotency_keys, ledger_entries, outbox");
            statement.execute("CHECKPOINT");
        }
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
                "HikariCP pool %d = JDBC threads, queue %,d, %d I/O thread(s) on %s, HTTP port %d",
            database.show("server_version"), database.port(), database.show("synchronous_commit"), database.show("fsync"),
            database.show("shared_buffers"), database.show("wal_sync_method"), config.path().cliName(), config.poolSize(), config.queueMax(),
            config.ioThreads(), config.transport().cliName(), port());
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
