package dev.tally.server.it;

import dev.tally.gateway.http.HttpLimits;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The connection limits over raw loopback sockets: read timeout (slow-loris), requests per connection, the cap on open
 * connections ({@code --connections-max}) and the idle timeout.
 */
class ConnectionLimitsIT
{
    private static final long READ_TIMEOUT_MS = 500;
    /** Far beyond the read timeout: whatever closes the slow client, it is not the idle timer. */
    private static final long IDLE_TIMEOUT_MS = 60_000;
    private static final long DRIBBLE_INTERVAL_MS = 50;
    private static final int REQUESTS_MAX = 3;

    @TempDir
    Path dataDir;

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldCutOffAClientDribblingARequestWhileServingOthers() throws Exception
    {
        final HttpLimits limits = new HttpLimits(4 * 1024 * 1024, 16 * 1024, 4 * 1024, 100, IDLE_TIMEOUT_MS)
            .withConnectionLimits(READ_TIMEOUT_MS, 0);
        try (TallyServer server = Servers.start(Servers.config(dataDir, Durability.ASYNC, limits, LedgerPipeline.PipelineConfig.defaults()));
             Socket slow = new Socket())
        {
            slow.connect(new InetSocketAddress("127.0.0.1", server.port()));
            slow.setSoTimeout(10);
            final OutputStream out = slow.getOutputStream();
            final byte[] request = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: abcdefghijklmnopqrstuvwxyz0123456789\r\n\r\n"
                .getBytes(StandardCharsets.ISO_8859_1);
            final TallyClient other = Servers.client(server);
            final long startNs = System.nanoTime();
            final StringBuilder received = new StringBuilder();
            boolean closed = false;
            int othersServed = 0;
            for (int i = 0; i < request.length - 1 && !closed; i++)
            {
                // What the server sent while this thread slept, first: writing into a socket the server closed draws
                // a reset, which discards the 408 waiting unread (a slow machine sleeps past the read timeout).
                closed = drain(slow, received);
                if (closed)
                {
                    break;
                }
                try
                {
                    out.write(request[i]);
                    out.flush();
                }
                catch (final IOException ex)
                {
                    closed = true; // the server closed while we were still writing
                    break;
                }
                assertEquals(200, other.get("/health").status(), "another client is served while one dribbles");
                othersServed++;
                closed = drain(slow, received);
                Thread.sleep(DRIBBLE_INTERVAL_MS);
            }
            while (!closed && System.nanoTime() - startNs < TimeUnit.SECONDS.toNanos(10))
            {
                closed = drain(slow, received);
            }
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            assertTrue(closed, "the slow client is cut off");
            assertTrue(elapsedMs >= READ_TIMEOUT_MS, "not before the read timeout: " + elapsedMs + " ms");
            assertTrue(elapsedMs < READ_TIMEOUT_MS + 3_000, "soon after the read timeout: " + elapsedMs + " ms");
            assertTrue(received.toString().startsWith("HTTP/1.1 408 "), () -> "a 408 before the close: " + received);
            assertTrue(received.toString().contains("request-timeout"), received::toString);
            assertTrue(othersServed > 0);
            assertEquals(200, other.get("/health").status(), "still serving after the cut-off");
            assertTrue(other.get("/metrics").body().contains("\ntally_http_read_timeouts_total 1.0\n"), "the cut-off is counted");
        }
    }

    /**
     * The 408 of a request that never arrives whole answers that request, so it must leave after the replies to the
     * requests pipelined before it (RFC 9112, 9.3.2). Here the one before is a transfer with a reference, held in the
     * journaler by its uniqueness check against PostgreSQL while a table lock lasts longer than the read timeout; a
     * 408 written at the timeout would reach the client first, and be taken for the transfer's answer.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldAnswerATimedOutRequestAfterTheReplyToTheOnePipelinedBeforeIt() throws Exception
    {
        final HttpLimits limits = HttpLimits.defaults().withConnectionLimits(READ_TIMEOUT_MS, 0);
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, Servers.apiKeys(), Servers.IO_THREADS,
            LedgerConfig.small(), LedgerPipeline.PipelineConfig.defaults(), limits, null, true);
        try (TallyServer server = new TallyServer(config))
        {
            final TallyClient client = Servers.client(server);
            assertEquals(201, client.createAccount(1, TallyClient.TRY, false).status());
            assertEquals(201, client.createAccount(2, TallyClient.TRY, false).status());
            try (Connection lock = server.readModel().database().dataSource().getConnection();
                 Statement statement = lock.createStatement();
                 RawConnection connection = new RawConnection(server.port()))
            {
                lock.setAutoCommit(false);
                statement.execute("LOCK TABLE transfers IN ACCESS EXCLUSIVE MODE");   // the reference check's query waits
                connection.write(RawConnection.request("POST", "/v1/transfers", "with-reference",
                    TallyClient.transferJson(1, 2, "1.00", TallyClient.TRY, "inv-1")));
                Thread.sleep(100);   // apart: the read timeout's clock starts with a read that begins a request
                connection.write("POST /v1/transfers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 40\r\n\r\n{\"debit");
                Thread.sleep(3 * READ_TIMEOUT_MS);
                lock.rollback();   // the check answers, the transfer goes on
                final RawConnection.RawResponse transfer = connection.read();
                assertTrue(transfer.status() == 201 || transfer.status() == 503, "the transfer's own reply first: " + transfer);
                final RawConnection.RawResponse timedOut = connection.read();
                assertEquals(408, timedOut.status(), timedOut.toString());
                assertTrue(timedOut.body().contains("request-timeout"), timedOut.body());
                assertEquals("close", timedOut.headers().get("connection"));
                assertTrue(connection.closedByServer(), "then the connection closes");
            }
        }
    }

    @Test
    void shouldCloseAfterTheLastAllowedRequestSayingConnectionClose() throws Exception
    {
        final HttpLimits limits = HttpLimits.defaults().withConnectionLimits(HttpLimits.READ_TIMEOUT_MS_DEFAULT, REQUESTS_MAX);
        try (TallyServer server = Servers.start(Servers.config(dataDir, Durability.ASYNC, limits, LedgerPipeline.PipelineConfig.defaults()));
             RawConnection connection = new RawConnection(server.port()))
        {
            for (int i = 1; i <= REQUESTS_MAX; i++)
            {
                connection.write(RawConnection.request("GET", "/health", null, null));
                final RawConnection.RawResponse response = connection.read();
                assertEquals(200, response.status());
                assertEquals(i == REQUESTS_MAX, "close".equalsIgnoreCase(response.headers().get("connection")), "reply " + i);
            }
            assertTrue(connection.closedByServer(), "closed after the last allowed request");
        }
    }

    @Test
    void shouldDropRequestsPipelinedBehindTheLastAllowedOneUnapplied() throws Exception
    {
        final HttpLimits limits = HttpLimits.defaults().withConnectionLimits(HttpLimits.READ_TIMEOUT_MS_DEFAULT, REQUESTS_MAX);
        try (TallyServer server = Servers.start(Servers.config(dataDir, Durability.ASYNC, limits, LedgerPipeline.PipelineConfig.defaults()));
             RawConnection connection = new RawConnection(server.port()))
        {
            final StringBuilder pipelined = new StringBuilder();
            for (long id = 1; id <= REQUESTS_MAX + 2; id++)
            {
                pipelined.append(RawConnection.request("POST", "/v1/accounts", "account-" + id,
                    TallyClient.accountJson(id, TallyClient.TRY, false)));
            }
            connection.write(pipelined.toString());
            for (int i = 1; i <= REQUESTS_MAX; i++)
            {
                assertEquals(201, connection.read().status(), "reply " + i);
            }
            assertTrue(connection.closedByServer());

            final TallyClient client = Servers.client(server);
            assertEquals(200, client.account(REQUESTS_MAX).status());
            assertEquals(404, client.account(REQUESTS_MAX + 1).status(), "a request behind the last allowed one is not applied");
            assertEquals(404, client.account(REQUESTS_MAX + 2).status());
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldCloseAConnectionBeyondTheMaximumAtAcceptWhileServingTheOpenOnes() throws Exception
    {
        final HttpLimits limits = new HttpLimits(4 * 1024 * 1024, 16 * 1024, 4 * 1024, 2, IDLE_TIMEOUT_MS);
        try (TallyServer server = Servers.start(Servers.config(dataDir, Durability.ASYNC, limits, LedgerPipeline.PipelineConfig.defaults()));
             RawConnection first = new RawConnection(server.port());
             RawConnection second = new RawConnection(server.port()))
        {
            assertEquals(200, health(first).status());
            assertEquals(200, health(second).status(), "both connections of the maximum are open and served");
            try (RawConnection third = new RawConnection(server.port()))   // the kernel accepts it; the server closes it
            {
                try
                {
                    third.write(RawConnection.request("GET", "/health", null, null));
                }
                catch (final IOException ex)
                {
                    // closed before the request went out: as refused as it gets
                }
                assertTrue(third.closedByServer(), "the third connection is closed without an answer");
            }
            assertEquals(200, health(first).status(), "the open connections are still served");
            assertEquals(200, health(second).status());
            first.write(RawConnection.request("GET", "/metrics", null, null));
            final String metrics = first.read().body();
            assertTrue(metrics.contains("\ntally_http_connections_refused_total 1.0\n"), "the refusal is counted:\n" + metrics);
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldCloseAnIdleKeepAliveConnectionAfterTheIdleTimeoutButNotABusyOne() throws Exception
    {
        final long idleTimeoutMs = 300;
        final HttpLimits limits = new HttpLimits(4 * 1024 * 1024, 16 * 1024, 4 * 1024, 100, idleTimeoutMs);
        try (TallyServer server = Servers.start(Servers.config(dataDir, Durability.ASYNC, limits, LedgerPipeline.PipelineConfig.defaults())))
        {
            final TallyClient warm = Servers.client(server);
            for (int i = 0; i < 20; i++)
            {
                // a cold first reply could take longer than the idle timeout, which counts from the connection's last read
                assertEquals(200, warm.get("/health").status());
            }
            try (RawConnection idle = new RawConnection(server.port());
                 RawConnection busy = new RawConnection(server.port()))
            {
                assertIdleClosedBusyNot(idle, busy, idleTimeoutMs);
            }
        }
    }

    private static void assertIdleClosedBusyNot(final RawConnection idle, final RawConnection busy, final long idleTimeoutMs)
        throws Exception
    {
        final RawConnection.RawResponse kept = health(idle);
        assertEquals(200, kept.status());
        assertFalse("close".equalsIgnoreCase(kept.headers().get("connection")), "a keep-alive connection");
        final long endNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4 * idleTimeoutMs);
        int served = 0;
        while (System.nanoTime() < endNs)
        {
            final RawConnection.RawResponse response = health(busy);
            assertEquals(200, response.status(), "a connection that keeps sending is never idle");
            assertFalse("close".equalsIgnoreCase(response.headers().get("connection")));
            served++;
            Thread.sleep(idleTimeoutMs / 6);
        }
        assertTrue(served > 10, "served " + served);
        assertTrue(idle.closedByServer(), "the connection that sent nothing for the idle timeout is closed");
        assertEquals(200, health(busy).status(), "the busy one is still open");
    }

    private static RawConnection.RawResponse health(final RawConnection connection) throws IOException
    {
        connection.write(RawConnection.request("GET", "/health", null, null));
        return connection.read();
    }

    /** Reads what the server sent so far; @return true once it closed the connection. */
    private static boolean drain(final Socket socket, final StringBuilder received) throws IOException
    {
        final byte[] buffer = new byte[4096];
        try
        {
            final int read = socket.getInputStream().read(buffer);
            if (read < 0)
            {
                return true;
            }
            received.append(new String(buffer, 0, read, StandardCharsets.ISO_8859_1));
            return false;
        }
        catch (final java.net.SocketTimeoutException ex)
        {
            return false;
        }
        catch (final java.net.SocketException ex)
        {
            return true;
        }
    }

    @Test
    void shouldKeepServingAFastKeepAliveClientLongerThanTheReadTimeout() throws Exception
    {
        final HttpLimits limits = HttpLimits.defaults().withConnectionLimits(200, 0);
        try (TallyServer server = Servers.start(Servers.config(dataDir, Durability.ASYNC, limits, LedgerPipeline.PipelineConfig.defaults()));
             RawConnection connection = new RawConnection(server.port()))
        {
            final long endNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_000);
            int served = 0;
            while (System.nanoTime() < endNs)
            {
                connection.write(RawConnection.request("GET", "/health", null, null));
                final RawConnection.RawResponse response = connection.read();
                assertEquals(200, response.status());
                assertFalse("close".equalsIgnoreCase(response.headers().get("connection")));
                served++;
                Thread.sleep(20);
            }
            assertTrue(served > 10, "served " + served);
        }
    }
}
