package dev.tally.gateway.http;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import java.util.Locale;

/**
 * How the event loops talk to the kernel's sockets.
 *
 * <p>Every request costs its connection one read and one write whatever the transport; what differs is how
 * many system calls carry them. NIO makes one {@code read}, one {@code writev} and, per wake-up, one
 * {@code epoll_wait}; io_uring queues the reads and writes of a whole event-loop turn and hands them to the
 * kernel in one {@code io_uring_enter}. On the 2-core guests Tally is measured on, where a system call is
 * the largest cost of a single transfer, that took 12-15 % off the server's CPU per request and added 13 % to
 * single-transfer throughput (docs/benchmarks/history/2026-12-03-netty-io-uring.md). {@link #AUTO} takes
 * io_uring wherever the kernel offers it (Linux 5.14+, not disabled by {@code kernel.io_uring_disabled}
 * or a seccomp profile) and NIO elsewhere.
 */
public enum NettyTransport
{
    /** io_uring where available, NIO otherwise. */
    AUTO,
    /** Java NIO's selector: epoll on Linux, available everywhere. */
    NIO,
    /** Linux io_uring; refused at start where the kernel does not offer it. */
    IO_URING;

    /**
     * @param name {@code auto}, {@code nio} or {@code io_uring} (case-insensitive).
     * @return the transport named.
     */
    public static NettyTransport parse(final String name)
    {
        switch (name.toLowerCase(Locale.ROOT))
        {
            case "auto":
                return AUTO;
            case "nio":
                return NIO;
            case "io_uring":
            case "io-uring":
                return IO_URING;
            default:
                throw new IllegalArgumentException("transport must be auto, nio or io_uring, was " + name);
        }
    }

    /** @return true when this kernel and JVM can run io_uring. */
    public static boolean ioUringAvailable()
    {
        return IoUring.isAvailable();
    }

    /**
     * @return {@link #NIO} or {@link #IO_URING}: what this choice runs on here.
     * @throws IllegalStateException for {@link #IO_URING} where io_uring is unavailable (the cause says why).
     */
    public NettyTransport resolve()
    {
        switch (this)
        {
            case AUTO:
                return ioUringAvailable() ? IO_URING : NIO;
            case IO_URING:
                if (!ioUringAvailable())
                {
                    throw new IllegalStateException("io_uring is not available here: " + IoUring.unavailabilityCause() +
                        "; use --transport nio or auto", IoUring.unavailabilityCause());
                }
                return IO_URING;
            default:
                return NIO;
        }
    }

    /** @return the factory of this transport's event-loop I/O handlers. */
    public IoHandlerFactory ioHandlers()
    {
        return resolve() == IO_URING ? IoUringIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    /** @return the listening socket's channel class. */
    public Class<? extends ServerSocketChannel> serverChannel()
    {
        return resolve() == IO_URING ? IoUringServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /** @return a client connection's channel class. */
    public Class<? extends SocketChannel> clientChannel()
    {
        return resolve() == IO_URING ? IoUringSocketChannel.class : NioSocketChannel.class;
    }

    /** @return the name operators type: {@code auto}, {@code nio} or {@code io_uring}. */
    public String cliName()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
