package dev.tally.gateway.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.unix.Errors;
import io.netty.handler.ssl.SslContext;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.function.Supplier;

/**
 * The Netty server: one boss thread accepts, {@code ioThreads} worker threads decode, validate and
 * publish into the ring. Binds to loopback unless told otherwise.
 */
public final class HttpServer implements AutoCloseable
{
    /** How long a stop waits for connections to stop reading, then to close. */
    private static final long CLOSE_WAIT_MAX_MS = 2_000;

    private final NettyTransport transport;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel serverChannel;
    private final ConnectionLimiter connectionLimiter;
    private final ApiChannelInitializer initializer;

    /**
     * Binds and starts serving.
     *
     * @param host        address to bind (default loopback).
     * @param port        port to bind; 0 picks a free one.
     * @param ioThreads   worker threads.
     * @param transport   NIO or io_uring ({@link NettyTransport#AUTO}: io_uring where the kernel offers it).
     * @param limits      size, connection and idle limits.
     * @param tls         the server's TLS context, or null for plain HTTP.
     * @param handlers    creates the per-connection API handler.
     */
    public HttpServer(
        final String host, final int port, final int ioThreads, final NettyTransport transport, final HttpLimits limits,
        final SslContext tls, final Supplier<ApiHandler> handlers)
        throws InterruptedException, BindException
    {
        this.transport = transport.resolve();
        boss = new MultiThreadIoEventLoopGroup(1, this.transport.ioHandlers());
        workers = new MultiThreadIoEventLoopGroup(ioThreads, this.transport.ioHandlers());
        connectionLimiter = new ConnectionLimiter(limits.connectionsMax());
        initializer = new ApiChannelInitializer(limits, tls, connectionLimiter, handlers);
        try
        {
            serverChannel = new ServerBootstrap()
                .group(boss, workers)
                .channel(this.transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(initializer)
                .bind(new InetSocketAddress(host, port))
                .sync()
                .channel();
        }
        catch (final Exception ex)   // the port taken, an address not local: the event loops' threads must not outlive it
        {
            boss.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
            workers.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
            if (portTaken(ex))
            {
                throw bindException(ex);
            }
            throw ex;
        }
    }

    /**
     * Fails at once when {@code host:port} cannot be bound (another process listens there, or the address is not local),
     * so that a start finds out before anything slow (the embedded PostgreSQL, the journal's replay) rather than after.
     * The port is bound and released again: it opens for good only once the ledger is current. Port 0 always binds.
     *
     * @throws BindException when the port is taken ("Address already in use"), or the address cannot be bound.
     */
    public static void requirePortFree(final String host, final int port) throws BindException
    {
        if (port == 0)
        {
            return;
        }
        try (java.net.ServerSocket probe = new java.net.ServerSocket())
        {
            probe.setReuseAddress(true);   // as the server binds: a port in TIME_WAIT after a stop is free
            probe.bind(new InetSocketAddress(host, port));
        }
        catch (final BindException ex)
        {
            throw ex;
        }
        catch (final java.io.IOException ex)
        {
            final BindException bind = new BindException("cannot bind " + host + ":" + port + ": " + ex.getMessage());
            bind.initCause(ex);
            throw bind;
        }
    }

    /** Linux's {@code EADDRINUSE}; the native transports report it as a negated errno, NIO as a {@link BindException}. */
    private static final int EADDRINUSE = 98;

    private static boolean portTaken(final Exception ex)
    {
        return ex instanceof Errors.NativeIoException && ((Errors.NativeIoException)ex).expectedErr() == -EADDRINUSE;
    }

    /** The same exception whichever transport bound: callers tell a taken port from other failures by its type. */
    private static BindException bindException(final Exception ex)
    {
        final BindException bind = new BindException("Address already in use");
        bind.initCause(ex);
        return bind;
    }

    /** @return the transport serving: {@link NettyTransport#NIO} or {@link NettyTransport#IO_URING}. */
    public NettyTransport transport()
    {
        return transport;
    }

    /** @return connections open now. */
    public int openConnections()
    {
        return connectionLimiter.open();
    }

    /** @return connections closed at accept because the limit was reached. */
    public long refusedConnections()
    {
        return connectionLimiter.refused();
    }

    /** @return connections cut off by the read timeout (408). */
    public long readTimeouts()
    {
        return initializer.readTimeouts();
    }

    /** @return times a connection stopped reading at the pipelining depth: as many requests not yet answered as it may have. */
    public long pipelineDepthPauses()
    {
        return initializer.readGateMeter().depthPauses();
    }

    /** @return times a connection stopped reading because its unread replies backed up. */
    public long repliesBackedUpPauses()
    {
        return initializer.readGateMeter().backedUpPauses();
    }

    /** @return connections ended because they pipelined more requests past the depth than are held for them. */
    public long pipelineOverflows()
    {
        return initializer.readGateMeter().overflows();
    }

    /** @return the port actually bound. */
    public int port()
    {
        return ((InetSocketAddress)serverChannel.localAddress()).getPort();
    }

    /**
     * First step of a graceful stop: no new connection, and no new request read from an open one. Each
     * connection stops reading on its own event loop, and this waits for that, so once it returns no I/O
     * thread publishes into the ring again; what was published before is still answered, on connections
     * that stay open until {@link #close()}.
     */
    public void stopAccepting()
    {
        connectionLimiter.stop();
        serverChannel.close().syncUninterruptibly();
        for (final Channel connection : connectionLimiter.connections())
        {
            connection.eventLoop().submit(() -> ReadGate.stop(connection)).awaitUninterruptibly(CLOSE_WAIT_MAX_MS);
        }
    }

    /**
     * Stops accepting (if not yet), closes every connection after the replies already handed to it, then
     * stops the threads. A close is queued behind the responder's writes on each connection's event loop,
     * so a reply written before is flushed before its connection closes.
     */
    @Override
    public void close()
    {
        stopAccepting();
        connectionLimiter.connections().close().awaitUninterruptibly(CLOSE_WAIT_MAX_MS);
        boss.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }
}
