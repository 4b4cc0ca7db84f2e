package dev.tally.server.it;

import java.net.http.HttpHeaders;

/**
 * One HTTP reply as the client saw it: status, headers and the body exactly as received (the bytes
 * decoded as UTF-8; Tally only ever writes ASCII, so equal strings mean equal bytes).
 */
record Reply(int status, HttpHeaders headers, String body)
{
    /** Where every problem {@code type} starts. */
    static final String PROBLEM_PREFIX = "https://tally.dev/problems/";

    /** @return the body parsed as JSON (fails the test when it is not JSON). */
    Json json()
    {
        return Json.parse(body);
    }

    /** @return true when the reply carries {@code Idempotent-Replayed: true}. */
    boolean replayed()
    {
        return "true".equals(headers.firstValue("Idempotent-Replayed").orElse(null));
    }

    /** @return the value of a header, or null. */
    String header(final String name)
    {
        return headers.firstValue(name).orElse(null);
    }

    /** @return the problem slug ({@code insufficient-funds}) of an RFC 9457 body; fails when it is not one. */
    String problemSlug()
    {
        final String contentType = header("Content-Type");
        if (contentType == null || !contentType.startsWith("application/problem+json"))
        {
            throw new AssertionError("not a problem reply (" + contentType + "): " + this);
        }
        final Json problem = json();
        final String type = problem.get("type").text();
        if (!type.startsWith(PROBLEM_PREFIX))
        {
            throw new AssertionError("problem type outside " + PROBLEM_PREFIX + ": " + type);
        }
        if (problem.get("status").asLong() != status)
        {
            throw new AssertionError("problem status differs from the HTTP status: " + this);
        }
        return type.substring(PROBLEM_PREFIX.length());
    }

    @Override
    public String toString()
    {
        return status + (replayed() ? " (replayed) " : " ") + body;
    }
}
