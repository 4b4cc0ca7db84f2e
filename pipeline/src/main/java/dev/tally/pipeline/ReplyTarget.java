package dev.tally.pipeline;

/**
 * Where a slot's reply goes: for the HTTP gateway, one connection. Opaque to the pipeline, which only carries it from
 * the thread that published the slot to the responder stage; the gateway gives each connection one target, so that the
 * responder can tell connections apart by identity (one flush per connection per batch).
 */
public interface ReplyTarget
{
}
