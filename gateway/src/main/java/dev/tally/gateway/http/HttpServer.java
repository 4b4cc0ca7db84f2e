package dev.tally.gateway.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.util.function.Supplier;

/**
 * The Netty server: one boss thread accepts, {@code ioThreads} worker threads decode, validate and
 * publish into the ring. Binds to loopback unless told otherwise.
 */
public final class HttpServer implements AutoCloseable
{
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel serverChannel;

    /**
     * Binds and starts serving.
     *
     * @param host        address to bind (default loopback).
     * @param port        port to bind; 0 picks a free one.
     * @param ioThreads   worker threads.
     * @param limits      size, connection and idle limits.
     * @param handlers    creates the per-connection API handler.
     */
    public HttpServer(
        final String host, final int port, final int ioThreads, final HttpLimits limits, final Supplier<ApiHandler> handlers)
        throws InterruptedException
    {
        this(host, port, ioThreads, limits, null, handlers);
    }

    /**
     * Binds and starts serving, over TLS when {@code tls} is given.
     *
     * @param tls      the server's TLS context, or null for plain HTTP.
     * @param handlers creates the per-connection API handler.
     */
    public HttpServer(
        final String host, final int port, final int ioThreads, final HttpLimits limits, final SslContext tls,
        final Supplier<ApiHandler> handlers)
        throws InterruptedException
    {
        boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        workers = new MultiThreadIoEventLoopGroup(ioThreads, NioIoHandler.newFactory());
        final ConnectionLimiter connectionLimiter = new ConnectionLimiter(limits.connectionsMax());
        serverChannel = new ServerBootstrap()
            .group(boss, workers)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 1024)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childHandler(new ApiChannelInitializer(limits, tls, connectionLimiter, handlers))
            .bind(new InetSocketAddress(host, port))
            .sync()
            .channel();
    }

    /** @return the port actually bound. */
    public int port()
    {
        return ((InetSocketAddress)serverChannel.localAddress()).getPort();
    }

    /** Stops accepting, closes connections, stops the threads. */
    @Override
    public void close()
    {
        serverChannel.close().syncUninterruptibly();
        boss.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }
}
