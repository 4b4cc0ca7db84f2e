package dev.tally.gateway.http;

/**
 * Limits of the HTTP front door, validated at startup. Each message names the {@code tally serve} flag.
 *
 * @param bodyLengthMaxBytes          largest request body; larger gets 413. A full batch of 8,190 transfers
 *                                    is about 1.6 MB of JSON without metadata, so the default is 4 MiB (about
 *                                    300 bytes of metadata each still fit; docs/ARCHITECTURE.md).
 * @param headerLengthMaxBytes        largest header block; larger gets 431.
 * @param initialLineMaxBytes         longest request line (method, URI, version); longer gets 414.
 * @param connectionsMax              open connections; further connections are closed at accept.
 * @param idleTimeoutMs               a connection with no traffic for this long is closed (dead clients).
 * @param readTimeoutMs               a request must arrive whole within this long of its first byte, or
 *                                    the connection gets 408 and is closed: a client dribbling a request
 *                                    (slow-loris) resets the idle timer with every byte, not this one.
 * @param requestsPerConnectionMax    after this many requests the reply carries {@code Connection: close}
 *                                    and the connection is closed (0: no limit), so that a load balancer's
 *                                    long-lived connections are spread again.
 * @param rateLimitPerTenantPerSecond requests per second each tenant may send, with a burst of one second's
 *                                    worth (0: no limit); more get 429 with {@code Retry-After}.
 */
public record HttpLimits(
    int bodyLengthMaxBytes, int headerLengthMaxBytes, int initialLineMaxBytes, int connectionsMax, long idleTimeoutMs,
    long readTimeoutMs, int requestsPerConnectionMax, int rateLimitPerTenantPerSecond)
{
    /** Default of {@code --read-timeout-ms}: generous for a 4 MiB body over a slow link, short for a slow-loris. */
    public static final long READ_TIMEOUT_MS_DEFAULT = 30_000;
    /** Largest {@code --rate-limit-per-tenant}: one request per microsecond, far beyond what one server does. */
    public static final int RATE_LIMIT_PER_SECOND_MAX = 1_000_000;

    public static HttpLimits defaults()
    {
        return new HttpLimits(4 * 1024 * 1024, 16 * 1024, 4 * 1024, 10_000, 60_000);
    }

    /** The size, connection and idle limits, with the default read timeout, no per-connection or rate limit. */
    public HttpLimits(
        final int bodyLengthMaxBytes, final int headerLengthMaxBytes, final int initialLineMaxBytes, final int connectionsMax,
        final long idleTimeoutMs)
    {
        this(bodyLengthMaxBytes, headerLengthMaxBytes, initialLineMaxBytes, connectionsMax, idleTimeoutMs, READ_TIMEOUT_MS_DEFAULT, 0, 0);
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
        if (readTimeoutMs < 100)
        {
            throw new IllegalArgumentException("--read-timeout-ms must be >= 100, was " + readTimeoutMs);
        }
        if (requestsPerConnectionMax < 0)
        {
            throw new IllegalArgumentException("--requests-per-connection-max must be >= 0 (0: no limit), was " + requestsPerConnectionMax);
        }
        if (rateLimitPerTenantPerSecond < 0 || rateLimitPerTenantPerSecond > RATE_LIMIT_PER_SECOND_MAX)
        {
            throw new IllegalArgumentException("--rate-limit-per-tenant must be 0 (off) to " + RATE_LIMIT_PER_SECOND_MAX + " per second, was " +
                rateLimitPerTenantPerSecond);
        }
    }

    /** @return a copy with the read timeout and per-connection limit replaced. */
    public HttpLimits withConnectionLimits(final long readTimeoutMs, final int requestsPerConnectionMax)
    {
        return new HttpLimits(bodyLengthMaxBytes, headerLengthMaxBytes, initialLineMaxBytes, connectionsMax, idleTimeoutMs, readTimeoutMs,
            requestsPerConnectionMax, rateLimitPerTenantPerSecond);
    }

    /** @return a copy with the per-tenant rate limit replaced. */
    public HttpLimits withRateLimit(final int rateLimitPerTenantPerSecond)
    {
        return new HttpLimits(bodyLengthMaxBytes, headerLengthMaxBytes, initialLineMaxBytes, connectionsMax, idleTimeoutMs, readTimeoutMs,
            requestsPerConnectionMax, rateLimitPerTenantPerSecond);
    }
}
