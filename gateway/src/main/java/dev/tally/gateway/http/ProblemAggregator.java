package dev.tally.gateway.http;

import dev.tally.gateway.api.Problem;
import dev.tally.gateway.api.ProblemType;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;


/**
 * Aggregates request bodies up to the limit and answers a larger one with an RFC 9457 413 problem,
 * then closes the connection (the rest of the oversized body is not worth reading).
 */
final class ProblemAggregator extends HttpObjectAggregator
{
    private final byte[] body;

    ProblemAggregator(final int bodyLengthMaxBytes)
    {
        super(bodyLengthMaxBytes);
        body = new Problem(ProblemType.BODY_TOO_LARGE, "The request body exceeds " + bodyLengthMaxBytes + " bytes.").toJson();
    }

    @Override
    protected void handleOversizedMessage(final ChannelHandlerContext ctx, final HttpMessage oversized)
    {
        final FullHttpResponse response = new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, Unpooled.wrappedBuffer(body));
        response.headers()
            .set(HttpHeaderNames.CONTENT_TYPE, "application/problem+json")
            .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
            .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
