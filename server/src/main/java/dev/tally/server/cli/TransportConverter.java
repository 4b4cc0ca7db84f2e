package dev.tally.server.cli;

import dev.tally.gateway.http.NettyTransport;
import picocli.CommandLine;

/** Parses {@code --transport auto|nio|io_uring}, for {@code tally serve} and the perf tools alike. */
public final class TransportConverter implements CommandLine.ITypeConverter<NettyTransport>
{
    @Override
    public NettyTransport convert(final String value)
    {
        return NettyTransport.parse(value);
    }
}
