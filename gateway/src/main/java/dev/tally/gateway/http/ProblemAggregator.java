package dev.tally.gateway.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;


/**
 * Aggregates request bodies up to the limit. A larger one is not answered here: an earlier request of the
 * connection may still be in the ring, and its reply must leave first (RFC 9112, 9.3.2), or its client would
 * pair the 413 with a transfer that was applied. Instead the aggregator passes on an empty request that failed
 * with {@link BodyTooLarge}, which the API handler answers in order, through the ring, with the RFC 9457 413
 * problem; the {@link ReadGate} stops reading at it and the connection closes after the reply (the rest
 * of the oversized body is not worth reading).
 *
 * <p>{@code Expect: 100-continue} gets its {@code 100} only for a body within the limit; an oversized one gets
 * the ordered 413 above instead of Netty's bare one, and an expectation other than {@code 100-continue} is ignored
 * (RFC 9110, 10.1.1 lets a server answer it with 417, or not).
 */
final class ProblemAggregator extends HttpObjectAggregator
{
    /** The request's body exceeds the limit; {@link #getMessage()} says which. */
    static final class BodyTooLarge extends DecoderException
    {
        private static final long serialVersionUID = 1L;

        BodyTooLarge(final int bodyLengthMaxBytes)
        {
            super("The request body exceeds " + bodyLengthMaxBytes + " bytes.");
        }
    }

    private final int bodyLengthMaxBytes;

    ProblemAggregator(final int bodyLengthMaxBytes)
    {
        super(bodyLengthMaxBytes);
        this.bodyLengthMaxBytes = bodyLengthMaxBytes;
    }

    @Override
    protected Object newContinueResponse(final HttpMessage start, final int maxContentLength, final ChannelPipeline pipeline)
    {
        if (!HttpUtil.is100ContinueExpected(start) || isContentLengthInvalid(start, maxContentLength))
        {
            return null;
        }
        return super.newContinueResponse(start, maxContentLength, pipeline);
    }

    @Override
    protected void handleOversizedMessage(final ChannelHandlerContext ctx, final HttpMessage oversized)
    {
        final HttpRequest request = oversized instanceof HttpRequest ? (HttpRequest)oversized : null;
        final FullHttpRequest tooLarge = new DefaultFullHttpRequest(oversized.protocolVersion(),
            request == null ? HttpMethod.POST : request.method(), request == null ? "/" : request.uri(), Unpooled.EMPTY_BUFFER);
        tooLarge.setDecoderResult(DecoderResult.failure(new BodyTooLarge(bodyLengthMaxBytes)));
        ctx.fireChannelRead(tooLarge);
    }
}
