package dev.tally.perf.load;

import dev.tally.gateway.http.NettyTransport;
import java.net.URI;

/**
 * The server under load: loopback only. A load generator pointed at somebody else's machine is an
 * attack, so any other host is refused.
 *
 * @param host   always {@code 127.0.0.1}.
 * @param port   the server's port.
 * @param apiKey the bearer key of the tenant the run acts as.
 * @param transport how the load generator's event loops reach their sockets (the server picks its own).
 */
public record Target(String host, int port, String apiKey, NettyTransport transport)
{
    public static final String LOOPBACK = "127.0.0.1";

    public Target
    {
        if (!LOOPBACK.equals(host))
        {
            throw new IllegalArgumentException("the load generator only sends to " + LOOPBACK + ", not to " + host);
        }
        if (port < 1 || port > 65_535)
        {
            throw new IllegalArgumentException("port must be 1..65535, was " + port);
        }
        if (apiKey == null || apiKey.isEmpty() || apiKey.chars().anyMatch(c -> c <= ' ' || c > '~'))
        {
            throw new IllegalArgumentException("the API key must be visible ASCII");
        }
        transport = transport.resolve();
    }

    /** Connecting over {@link NettyTransport#AUTO}: io_uring where the kernel offers it. */
    public Target(final String host, final int port, final String apiKey)
    {
        this(host, port, apiKey, NettyTransport.AUTO);
    }

    /** @return this target reached over {@code transport}. */
    public Target withTransport(final NettyTransport transport)
    {
        return new Target(host, port, apiKey, transport);
    }

    /**
     * @param url    {@code http://127.0.0.1:PORT} ({@code localhost} is taken as 127.0.0.1).
     * @param apiKey the bearer key.
     */
    public static Target parse(final String url, final String apiKey)
    {
        final URI uri = URI.create(url);
        if (!"http".equals(uri.getScheme()))
        {
            throw new IllegalArgumentException("only http:// URLs are supported, was " + url);
        }
        final String host = "localhost".equals(uri.getHost()) ? LOOPBACK : uri.getHost();
        return new Target(host, uri.getPort() < 0 ? 80 : uri.getPort(), apiKey);
    }

    /** @return the Host header value. */
    public String hostPort()
    {
        return host + ":" + port;
    }
}
