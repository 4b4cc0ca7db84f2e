package dev.tally.gateway.it;

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
