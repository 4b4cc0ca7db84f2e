package dev.tally.gateway.http;

/**
 * Limits of the HTTP front door, validated at startup.
 *
 * @param bodyLengthMaxBytes   largest request body; larger gets 413. A full batch of 8,190 transfers is
 *                             about 1.6 MB of JSON, so the default is 4 MiB.
 * @param headerLengthMaxBytes largest header block; larger gets 431.
 * @param initialLineMaxBytes  longest request line (method, URI, version); longer gets 414.
 * @param connectionsMax       open connections; further connections are closed at accept.
 * @param idleTimeoutMs        a connection with no traffic for this long is closed (slow or dead clients).
 */
public record HttpLimits(
    int bodyLengthMaxBytes, int headerLengthMaxBytes, int initialLineMaxBytes, int connectionsMax, long idleTimeoutMs)
{
    public static HttpLimits defaults()
    {
        return new HttpLimits(4 * 1024 * 1024, 16 * 1024, 4 * 1024, 10_000, 60_000);
    }

    /** Checks every limit once, with a message that names it. */
    public HttpLimits
    {
        if (bodyLengthMaxBytes < 1024)
        {
            throw new IllegalArgumentException("--body-limit-bytes (bodyLengthMaxBytes) must be >= 1024, was " + bodyLengthMaxBytes);
        }
        if (headerLengthMaxBytes < 1024)
        {
            throw new IllegalArgumentException("--header-limit-bytes (headerLengthMaxBytes) must be >= 1024, was " + headerLengthMaxBytes);
        }
        if (initialLineMaxBytes < 256)
        {
            throw new IllegalArgumentException("--uri-limit-bytes (initialLineMaxBytes) must be >= 256, was " + initialLineMaxBytes);
        }
        if (connectionsMax < 1)
        {
            throw new IllegalArgumentException("--connections-max must be >= 1, was " + connectionsMax);
        }
        if (idleTimeoutMs < 100)
        {
            throw new IllegalArgumentException("--idle-timeout-ms must be >= 100, was " + idleTimeoutMs);
        }
    }
}
