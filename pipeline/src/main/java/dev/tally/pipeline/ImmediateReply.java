package dev.tally.pipeline;

/**
 * A reply the publishing thread made itself (a refusal before any ledger work: a malformed request, an unknown route,
 * a rate limit, a probe), carried by an {@link EventKind#IMMEDIATE_REPLY} slot so that it leaves in request order. Opaque
 * to the pipeline: the journal and business stages skip such slots, the responder writes it.
 */
public interface ImmediateReply
{
}
