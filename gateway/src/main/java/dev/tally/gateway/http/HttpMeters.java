package dev.tally.gateway.http;

import dev.tally.ledger.result.ResultCode;

/**
 * What the HTTP front door reports, and where {@code GET /metrics} gets its text: the application's metrics registry
 * implements it. Called from I/O threads, the responder and the read pool; each call is cheap and never blocks.
 */
public interface HttpMeters
{
    /** A reply written: its route ({@code Route.ordinal()}, -1 before routing), status, and when its request arrived. */
    void recordReply(int routeIndex, int status, long receivedNs);

    /** A ledger outcome answered: its code, whether it was a stored reply, whether the command was a transfer. */
    void recordOutcome(ResultCode code, boolean replayed, boolean transfer);

    /** A request refused with 503 because the input ring was full. */
    void recordRingFull();

    /** A write refused with 503 because the PostgreSQL writer was behind its lag bound. */
    void recordWriterBehind();

    /** @return the Prometheus text exposition of every meter. */
    String scrape();
}
