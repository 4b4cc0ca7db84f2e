package dev.tally.server.it;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HTTP/1.1 pipelining (RFC 9112 section 9.3.2): a client may send several requests on one connection
 * without waiting, and the server must answer them in the order they were received. Tally answers
 * journaled work from the responder thread and some errors straight from the I/O thread, so order is
 * only kept if both paths respect it.
 */
class PipeliningIT extends OneServerPerTest
{
    private static final int PIPELINED = 20;

    @BeforeEach
    void openAccounts()
    {
        createAccount(1, false);
        createAccount(2, true);
    }

    @Test
    void shouldAnswerPipelinedTransfersInRequestOrder() throws Exception
    {
        final StringBuilder requests = new StringBuilder();
        for (int i = 0; i < PIPELINED; i++)
        {
            requests.append(RawConnection.request("POST", "/v1/transfers", "pipe-" + i,
                TallyClient.transferJson(1, 2, (i + 1) + ".00", TRY, "pipe-ref-" + i)));
        }
        try (RawConnection connection = new RawConnection(server.port()))
        {
            connection.write(requests.toString());
            for (int i = 0; i < PIPELINED; i++)
            {
                final RawConnection.RawResponse response = connection.read();
                assertEquals(201, response.status(), response::toString);
                assertEquals("pipe-ref-" + i, Json.parse(response.body()).get("reference").text(), "response " + i + " answers request " + i);
            }
        }
    }

    @Test
    void shouldAnswerAPipelinedMixOfJournaledWorkAndImmediateErrorsInRequestOrder() throws Exception
    {
        final List<String> expected = new ArrayList<>();
        final StringBuilder requests = new StringBuilder();
        for (int i = 0; i < PIPELINED; i++)
        {
            requests.append(RawConnection.request("POST", "/v1/transfers", "mix-" + i,
                TallyClient.transferJson(1, 2, "1.00", TRY, "mix-ref-" + i)));
            expected.add("201 mix-ref-" + i);
            requests.append(RawConnection.request("POST", "/v1/transfers", null, TallyClient.transferJson(1, 2, "1.00", TRY, null)));
            expected.add("400 idempotency-key-missing");
            requests.append(RawConnection.request("GET", "/health", null, null));
            expected.add("200 health");
        }
        final List<String> actual = new ArrayList<>();
        try (RawConnection connection = new RawConnection(server.port()))
        {
            connection.write(requests.toString());
            for (int i = 0; i < expected.size(); i++)
            {
                actual.add(describe(connection.read()));
            }
        }
        for (int i = 0; i < expected.size(); i++)
        {
            final int index = i;
            assertEquals(expected.get(i), actual.get(i), () -> "response " + index + " must answer request " + index +
                " (responses must come back in request order); first responses received: " + actual.subList(0, Math.min(6, actual.size())));
        }
        assertEquals("20.00", available(2));
    }

    @Test
    void shouldAnswerAnUnframeableRequestAfterTheTransferPipelinedBeforeItThenClose() throws Exception
    {
        final String hugeHeader = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: " + "x".repeat(20 * 1024) + "\r\n\r\n";

        assertRefusedInOrderAfterATransfer("3.00", hugeHeader, "431 headers-too-large");
    }

    @Test
    void shouldAnswerAnOversizedBodyAfterTheTransferPipelinedBeforeItThenClose() throws Exception
    {
        final String oversized = "POST /v1/transfers HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: big\r\n" +
            "Content-Type: application/json\r\nContent-Length: 50000000\r\n\r\n{\"amount\":";

        assertRefusedInOrderAfterATransfer("4.00", oversized, "413 body-too-large");
    }

    /** Pipelines a transfer of {@code amount}, then {@code refused}: the transfer's 201, then the refusal, then the close. */
    private void assertRefusedInOrderAfterATransfer(final String amount, final String refused, final String expected) throws Exception
    {
        final String reference = "before-" + expected.substring(0, 3);
        final String transfer = RawConnection.request("POST", "/v1/transfers", reference,
            TallyClient.transferJson(1, 2, amount, TRY, reference));
        try (RawConnection connection = new RawConnection(server.port()))
        {
            connection.write(transfer + refused);

            final RawConnection.RawResponse first = connection.read();
            final RawConnection.RawResponse second = connection.read();

            assertEquals("201 " + reference, describe(first), "the transfer's reply leaves first");
            assertEquals(expected, describe(second), second::toString);
            assertEquals("close", second.headers().get("connection"));
            assertTrue(connection.closedByServer(), "closed after the reply to a request that could not be framed");
        }
        assertEquals(amount, available(2));
    }

    @Test
    void shouldAnswerAnOversizedBodyThatExpectsContinueWithTheProblemNotABareStatus() throws Exception
    {
        final String oversized = "POST /v1/transfers HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: big\r\n" +
            "Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n";
        try (RawConnection connection = new RawConnection(server.port()))
        {
            connection.write(oversized);

            final RawConnection.RawResponse refused = connection.read();

            assertEquals("413 body-too-large", describe(refused), refused::toString);
            assertEquals("application/problem+json", refused.headers().get("content-type"));
        }
    }

    @Test
    void shouldApplyNothingPipelinedBehindARequestThatSaysConnectionClose() throws Exception
    {
        final String last = RawConnection.request("POST", "/v1/accounts", "acc-40", TallyClient.accountJson(40, TRY, false))
            .replace("Host: 127.0.0.1\r\n", "Host: 127.0.0.1\r\nConnection: close\r\n");
        final String behind = RawConnection.request("POST", "/v1/accounts", "acc-41", TallyClient.accountJson(41, TRY, false));
        try (RawConnection connection = new RawConnection(server.port()))
        {
            connection.write(last + behind);

            final RawConnection.RawResponse created = connection.read();

            assertEquals(201, created.status(), created::toString);
            assertEquals("close", created.headers().get("connection"));
            assertTrue(connection.closedByServer());
        }
        assertEquals(200, client.account(40).status());
        assertEquals(404, client.account(41).status(), "a request behind Connection: close is not applied");
    }

    @Test
    void shouldEscapeAnEchoedPathInTheProblemBody() throws Exception
    {
        try (RawConnection connection = new RawConnection(server.port()))
        {
            connection.write(RawConnection.request("GET", "/v1/\"quoted\\path\u0001", null, null));
            final RawConnection.RawResponse response = connection.read();

            assertTrue(response.status() == 404 || response.status() == 400, response::toString);
            Json.parse(response.body());
        }
        assertEquals(200, client.get("/health").status());
    }

    private static String describe(final RawConnection.RawResponse response)
    {
        final Json body = Json.parse(response.body());
        if (response.status() == 201)
        {
            return "201 " + body.get("reference").text();
        }
        if (body.has("type"))
        {
            return response.status() + " " + body.get("type").text().substring(Reply.PROBLEM_PREFIX.length());
        }
        return response.status() + " " + (body.has("status") && "UP".equals(body.get("status").text()) ? "health" : body.toString());
    }
}
