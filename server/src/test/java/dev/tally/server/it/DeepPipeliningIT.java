package dev.tally.server.it;

import dev.tally.gateway.http.NettyTransport;
import dev.tally.server.TallyServer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A client that pipelines more requests on one connection than the server takes in at once (128 decoded and not
 * yet answered, docs/ARCHITECTURE.md "The front door, per connection"): the server stops reading until replies
 * drain, so every request is answered, in request order, and exactly the requests answered 201 are applied. Each
 * test sends everything in one write on one socket before it reads a single reply, over each transport.
 */
class DeepPipeliningIT
{
    private static final String TRY = TallyClient.TRY;
    private static final long FUNDING = 1;
    private static final long MERCHANT = 2;
    /** Past the 128 a connection may have decoded and not yet answered. */
    private static final int TRANSFERS = 140;
    private static final int HEALTH_CHECKS = 130;
    /** Rounds of two probes and a transfer: dozens of pauses and resumes, and some 400 KB, far more than one socket read. */
    private static final int DEEP_ROUNDS = 1_000;

    @TempDir
    Path dataDir;

    private TallyServer server;
    private TallyClient client;

    @AfterEach
    void stop()
    {
        if (server != null)
        {
            server.close();
        }
    }

    private void start(final NettyTransport transport) throws Exception
    {
        assumeTrue(transport != NettyTransport.IO_URING || NettyTransport.ioUringAvailable(), "io_uring is not offered by this kernel");
        server = Servers.start(Servers.config(dataDir).withTransport(transport));
        assertEquals(transport, server.transport());
        client = Servers.client(server);
        assertEquals(201, client.createAccount(FUNDING, TRY, false).status());
        assertEquals(201, client.createAccount(MERCHANT, TRY, true).status());
    }

    @ParameterizedTest
    @EnumSource(value = NettyTransport.class, names = {"NIO", "IO_URING"})
    void shouldAnswerEveryTransferPipelinedPastTheDepthInOrderAndApplyExactlyThoseAnswered(final NettyTransport transport)
        throws Exception
    {
        start(transport);
        final StringBuilder requests = new StringBuilder();
        for (int i = 0; i < TRANSFERS; i++)
        {
            requests.append(transfer(i));
        }

        final int created = sendAndExpectInOrder(requests.toString(), TRANSFERS, i -> "201 ref-" + i);

        assertEquals(TRANSFERS, created);
        assertEquals(created + ".00", available(MERCHANT), "exactly the transfers answered 201 are applied");
    }

    @ParameterizedTest
    @EnumSource(value = NettyTransport.class, names = {"NIO", "IO_URING"})
    void shouldAnswerEveryHealthCheckPipelinedPastTheDepth(final NettyTransport transport) throws Exception
    {
        start(transport);

        sendAndExpectInOrder(RawConnection.request("GET", "/health", null, null).repeat(HEALTH_CHECKS), HEALTH_CHECKS, i -> "200 UP");
    }

    @ParameterizedTest
    @EnumSource(value = NettyTransport.class, names = {"NIO", "IO_URING"})
    void shouldAnswerThousandsOfPipelinedRequestsInOrderAcrossManyPausesOfReading(final NettyTransport transport) throws Exception
    {
        start(transport);
        final String probe = RawConnection.request("GET", "/health", null, null);
        final StringBuilder requests = new StringBuilder();
        for (int i = 0; i < DEEP_ROUNDS; i++)
        {
            requests.append(probe).append(probe).append(transfer(i));
        }

        final int created = sendAndExpectInOrder(requests.toString(), 3 * DEEP_ROUNDS, i -> i % 3 == 2 ? "201 ref-" + i / 3 : "200 UP");

        assertEquals(DEEP_ROUNDS, created);
        assertEquals(created + ".00", available(MERCHANT), "exactly the transfers answered 201 are applied");
        assertTrue(pipelinePauses() > 0, "each pause of reading at the depth is counted");
    }

    /** @return the requests' replies described as {@code expected} describes them, in order; the number of 201s. */
    private int sendAndExpectInOrder(final String requests, final int count, final IntFunction<String> expected)
        throws IOException
    {
        int created = 0;
        try (RawConnection connection = new RawConnection(server.port()))
        {
            connection.write(requests);
            for (int i = 0; i < count; i++)
            {
                final RawConnection.RawResponse response;
                try
                {
                    response = connection.read();
                }
                catch (final IOException ex)
                {
                    throw new AssertionError("reply " + i + " of " + count + " pipelined requests never came: " + ex.getMessage(), ex);
                }
                assertEquals(expected.apply(i), describe(response), "reply " + i + " answers request " + i);
                created += response.status() == 201 ? 1 : 0;
            }
        }
        return created;
    }

    private static String transfer(final int i)
    {
        return RawConnection.request("POST", "/v1/transfers", "deep-" + i, TallyClient.transferJson(FUNDING, MERCHANT, "1.00", TRY, "ref-" + i));
    }

    private static String describe(final RawConnection.RawResponse response)
    {
        final Json body = Json.parse(response.body());
        if (response.status() == 201)
        {
            return "201 " + body.get("reference").text();
        }
        return response.status() + " " + (body.has("status") ? body.get("status").text() : body.toString());
    }

    private String available(final long accountId)
    {
        return client.accountJson(accountId).get("available").text();
    }

    private long pipelinePauses()
    {
        final String scrape = client.get("/metrics").body();
        for (final String line : scrape.split("\n"))
        {
            if (line.startsWith("tally_http_read_pauses_total{reason=\"pipeline_depth\"}"))
            {
                return (long)Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no tally_http_read_pauses_total{reason=\"pipeline_depth\"} in /metrics");
    }
}
