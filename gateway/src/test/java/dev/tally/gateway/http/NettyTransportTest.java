package dev.tally.gateway.http;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NettyTransportTest
{
    @Test
    void shouldParseTheNamesOperatorsType()
    {
        assertEquals(NettyTransport.AUTO, NettyTransport.parse("auto"));
        assertEquals(NettyTransport.NIO, NettyTransport.parse("NIO"));
        assertEquals(NettyTransport.IO_URING, NettyTransport.parse("io_uring"));
        assertEquals(NettyTransport.IO_URING, NettyTransport.parse("io-uring"));
        for (final NettyTransport transport : NettyTransport.values())
        {
            assertEquals(transport, NettyTransport.parse(transport.cliName()), "cliName parses back");
        }
    }

    @Test
    void shouldRefuseAnUnknownTransportNamingTheChoices()
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> NettyTransport.parse("epoll"));
        assertTrue(refused.getMessage().contains("auto, nio or io_uring"), refused.getMessage());
    }

    @Test
    void shouldRefuseIoUringWhereTheKernelDoesNotOfferItAndResolveItWhereItDoes()
    {
        if (NettyTransport.ioUringAvailable())
        {
            assertEquals(NettyTransport.IO_URING, NettyTransport.IO_URING.resolve());
        }
        else
        {
            final IllegalStateException refused = assertThrows(IllegalStateException.class, NettyTransport.IO_URING::resolve);
            assertTrue(refused.getMessage().contains("--transport nio or auto"), refused.getMessage());
        }
    }
}
