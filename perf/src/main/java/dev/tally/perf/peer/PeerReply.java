package dev.tally.perf.peer;

import java.nio.charset.StandardCharsets;

/**
 * One HTTP reply of the peer.
 *
 * @param status      HTTP status.
 * @param contentType {@code application/json} or {@code application/problem+json}.
 * @param body        the body bytes (for a stored response: exactly the stored text).
 * @param replayed    true when this is a stored response sent again ({@code Idempotent-Replayed: true}).
 */
record PeerReply(int status, String contentType, byte[] body, boolean replayed)
{
    static final String JSON = "application/json";
    static final String PROBLEM_JSON = "application/problem+json";

    /** @return a JSON reply (2xx). */
    static PeerReply json(final int status, final String body)
    {
        return new PeerReply(status, JSON, body.getBytes(StandardCharsets.UTF_8), false);
    }

    /** @return a problem reply. */
    static PeerReply problem(final int status, final String body, final boolean replayed)
    {
        return new PeerReply(status, PROBLEM_JSON, body.getBytes(StandardCharsets.UTF_8), replayed);
    }

    /** @return a stored response: JSON for 2xx, a problem otherwise. */
    static PeerReply stored(final int status, final String body, final boolean replayed)
    {
        return new PeerReply(status, status < 300 ? JSON : PROBLEM_JSON, body.getBytes(StandardCharsets.UTF_8), replayed);
    }
}
