package dev.tally.perf.peer;

/**
 * A request the peer answers with a 400 (or 401/404) before any SQL: validation happens on the I/O
 * thread, never reaches the database and is never stored under the key. Thrown by the parsers only;
 * the handler turns it into the reply at once.
 */
final class InvalidRequest extends Exception
{
    private static final long serialVersionUID = 1L;

    private final transient PeerReply reply;

    InvalidRequest(final PeerProblem problem, final String detail, final String field)
    {
        super(detail, null, false, false);
        this.reply = problem.reply(detail, field);
    }

    PeerReply reply()
    {
        return reply;
    }
}
