package dev.tally.gateway.http;

import dev.tally.pipeline.ReplyTarget;
import io.netty.channel.Channel;

/** A connection as the pipeline carries it to the responder: one per connection, made when its handler is added. */
final class ReplyChannel implements ReplyTarget
{
    final Channel channel;

    ReplyChannel(final Channel channel)
    {
        this.channel = channel;
    }
}
