package dev.tally.gateway.http;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Per connection: connection limit, TLS when configured, read timeout from a request's first byte to its last (slow-loris),
 * idle timeout, HTTP/1.1 codec with header and line limits, an aggregator with the body limit (413 as
 * problem+json, answered in order), the read gate (no reading past a connection's last request — a client's
 * {@code Connection: close}, a request that could not be framed, the requests-per-connection limit — nor while its
 * replies back up), then the API handler.
 */
final class ApiChannelInitializer extends ChannelInitializer<SocketChannel>
{
    private final HttpLimits limits;
    private final SslContext tls;
    private final ConnectionLimiter connectionLimiter;
    private final Supplier<ApiHandler> handlers;
    private final LongAdder readTimeouts = new LongAdder();

    /** @param tls the TLS context, or null for plain HTTP. */
    ApiChannelInitializer(
        final HttpLimits limits, final SslContext tls, final ConnectionLimiter connectionLimiter, final Supplier<ApiHandler> handlers)
    {
        this.limits = limits;
        this.tls = tls;
        this.connectionLimiter = connectionLimiter;
        this.handlers = handlers;
    }

    /** @return connections cut off by the read timeout so far. */
    long readTimeouts()
    {
        return readTimeouts.sum();
    }

    @Override
    protected void initChannel(final SocketChannel channel)
    {
        final ChannelPipeline pipeline = channel.pipeline();
        pipeline.addLast("connections", connectionLimiter);
        if (tls != null)
        {
            // first, so that everything after it (the read timeout too) sees plain bytes
            pipeline.addLast("tls", tls.newHandler(channel.alloc()));
        }
        final RequestReadTimeout readTimeout = new RequestReadTimeout(limits.readTimeoutMs(), readTimeouts);
        pipeline.addLast("read-timeout", readTimeout.start());
        // Reader idle, not all idle: watching writes too makes IdleStateHandler turn every write's void
        // promise into a real one and add a listener to it (9 % of the I/O thread's samples); a client that
        // sends nothing for the timeout is idle whatever the server wrote, as replies leave at once.
        pipeline.addLast("idle", new IdleStateHandler(limits.idleTimeoutMs(), 0, 0, TimeUnit.MILLISECONDS));
        pipeline.addLast("codec", new HttpServerCodec(new HttpDecoderConfig()
            .setMaxInitialLineLength(limits.initialLineMaxBytes())
            .setMaxHeaderSize(limits.headerLengthMaxBytes())
            .setMaxChunkSize(64 * 1024)));
        pipeline.addLast("aggregator", new ProblemAggregator(limits.bodyLengthMaxBytes()));
        pipeline.addLast("request-read", readTimeout.end());
        pipeline.addLast("read-gate", new ReadGate(limits.requestsPerConnectionMax()));
        pipeline.addLast("api", handlers.get());
    }
}
