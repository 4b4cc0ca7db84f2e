package dev.tally.gateway.http;

import dev.tally.pipeline.ImmediateReply;
import io.netty.buffer.ByteBuf;

/**
 * A reply an I/O thread rendered itself (a refusal, a probe), on its way to the responder in request order. The
 * responder writes {@code body} and owns it from then on.
 */
record ImmediateHttpReply(ByteBuf body, int status, CharSequence contentType, int retryAfterSeconds, String allow)
    implements ImmediateReply
{
}
