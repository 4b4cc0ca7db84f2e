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
 * {@code Connection: close}, a request that could not be framed, the requests-per-connection limit — nor while it has
 * {@link ReadGate#PIPELINE_DEPTH_MAX} requests unanswered or its replies back up; the read valve before the codec holds
 * the socket to that), then the API handler.
 */
final class ApiChannelInitializer extends ChannelInitializer<SocketChannel>
{
    private final HttpLimits limits;
    private final SslContext tls;
    private final ConnectionLimiter connectionLimiter;
    private final Supplier<ApiHandler> handlers;
    /**
     * Requests decoded and not yet answered that {@link HttpServerCodec} lets a connection have: in effect no limit. At
     * its limit the codec throws and the connection closes with replies owed to requests already taken; the
     * {@link ReadGate} bounds them instead ({@link ReadGate#PIPELINE_DEPTH_MAX} passed on, at most
     * {@link ReadGate#PIPELINE_HELD_MAX} waiting, and what the read that ended a connection still brings, dropped).
     */
    static final int CODEC_PIPELINE_DEPTH_MAX = Integer.MAX_VALUE;

    private final LongAdder readTimeouts = new LongAdder();
    private final ReadGateMeter readGateMeter = new ReadGateMeter();

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

    /** @return what the read gates of every connection counted: pauses and refusals. */
    ReadGateMeter readGateMeter()
    {
        return readGateMeter;
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
        pipeline.addLast("read-valve", ReadValve.INSTANCE);
        pipeline.addLast("codec", new HttpServerCodec(new HttpDecoderConfig()
            .setMaxInitialLineLength(limits.initialLineMaxBytes())
            .setMaxHeaderSize(limits.headerLengthMaxBytes())
            .setMaxChunkSize(64 * 1024), CODEC_PIPELINE_DEPTH_MAX));
        pipeline.addLast("aggregator", new ProblemAggregator(limits.bodyLengthMaxBytes()));
        pipeline.addLast("request-read", readTimeout.end());
        pipeline.addLast("read-gate", new ReadGate(limits.requestsPerConnectionMax(), readGateMeter));
        pipeline.addLast("api", handlers.get());
    }
}
