package dev.tally.server.it;

import dev.tally.gateway.http.NettyTransport;
import dev.tally.server.TallyServer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The same API over each Netty transport ({@code --transport nio|io_uring}). The rest of the suite runs on
 * {@code auto}, which is io_uring wherever the kernel offers it, so this keeps NIO, the fallback, proven too:
 * concurrent transfers on many connections, a replay, a large batch whose body arrives in many reads,
 * pipelined requests answered in order, and a bad request that changes nothing.
 */
class TransportIT
{
    private static final String TRY = TallyClient.TRY;
    private static final long FUNDING = 1;
    private static final long MERCHANT = 2;
    private static final int CONCURRENT = 32;
    private static final int BATCH = 800;

    @TempDir
    Path dataDir;

    private TallyServer server;

    @AfterEach
    void stop()
    {
        if (server != null)
        {
            server.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = NettyTransport.class, names = {"NIO", "IO_URING"})
    void shouldServeTheApiOverEachTransport(final NettyTransport transport) throws Exception
    {
        assumeTrue(transport != NettyTransport.IO_URING || NettyTransport.ioUringAvailable(), "io_uring is not offered by this kernel");
        server = Servers.start(Servers.config(dataDir).withTransport(transport));
        assertEquals(transport, server.transport());
        final TallyClient client = Servers.client(server);
        assertEquals(201, client.createAccount(FUNDING, TRY, false).status());
        assertEquals(201, client.createAccount(MERCHANT, TRY, true).status());

        final List<Reply> replies = Concurrently.send(CONCURRENT,
            i -> client.transfer("c-" + i, FUNDING, MERCHANT, "1.00", TRY, "ref-" + i));
        for (final Reply reply : replies)
        {
            assertEquals(201, reply.status(), reply::toString);
        }
        final Reply replay = client.transfer("c-0", FUNDING, MERCHANT, "1.00", TRY, "ref-0");
        assertEquals(201, replay.status(), replay::toString);
        assertTrue(replay.replayed(), "the retried key is answered from the first reply");

        final Reply batch = client.batch(batchOf(BATCH));
        assertEquals(200, batch.status(), () -> batch.body().substring(0, Math.min(300, batch.body().length())));
        assertEquals(BATCH, batch.json().get("results").size());

        try (RawConnection connection = new RawConnection(server.port()))
        {
            connection.write(RawConnection.request("POST", "/v1/transfers", "p-1", TallyClient.transferJson(FUNDING, MERCHANT, "2.00", TRY, null)) +
                RawConnection.request("POST", "/v1/transfers", "p-2", "{\"debitAccountId\":") +
                RawConnection.request("GET", "/health", null, null));
            assertEquals(201, connection.read().status());
            assertEquals(400, connection.read().status(), "malformed JSON is refused and changes nothing");
            assertEquals(200, connection.read().status(), "the connection keeps serving after the refusal");
        }

        final String expected = String.format("%d.00", CONCURRENT + BATCH + 2);
        assertEquals(expected, client.accountJson(MERCHANT).get("available").text());
        assertEquals("-" + expected, client.accountJson(FUNDING).get("posted").text());
    }

    @Test
    void shouldResolveAutoToIoUringWhereTheKernelOffersIt()
    {
        assertEquals(NettyTransport.ioUringAvailable() ? NettyTransport.IO_URING : NettyTransport.NIO, NettyTransport.AUTO.resolve());
        assertEquals(NettyTransport.NIO, NettyTransport.NIO.resolve());
    }

    private static String batchOf(final int count)
    {
        final StringBuilder batch = new StringBuilder("{\"operations\":[");
        for (int i = 0; i < count; i++)
        {
            batch.append(i == 0 ? "" : ",").append("{\"op\":\"transfer\",\"idempotencyKey\":\"b-").append(i).append("\",\"body\":")
                .append(TallyClient.transferJson(FUNDING, MERCHANT, "1.00", TRY, null)).append('}');
        }
        return batch.append("]}").toString();
    }
}
