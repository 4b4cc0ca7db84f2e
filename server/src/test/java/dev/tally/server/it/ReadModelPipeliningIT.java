package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTP/1.1 pipelining on {@code tally serve} with its PostgreSQL read model: replies leave in request order
 * also for the entries route, whose 400 the I/O thread answers and whose pages PostgreSQL answers from the read
 * pool. Both used to be written as soon as they were ready, ahead of the 201 of a transfer sent before them and
 * still going through the journal, so the client paired them with the wrong request.
 */
class ReadModelPipeliningIT
{
    @TempDir
    Path dataDir;

    @TempDir
    Path logDir;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldAnswerEntriesPagesAndBadQueriesInRequestOrder() throws Exception
    {
        try (TallyProcess tally = TallyProcess.start(dataDir, "sync", logDir.resolve("serve.log")))
        {
            final TallyClient client = openTwoAccounts(tally);
            tally.awaitWriterCaughtUp();   // the accounts are in PostgreSQL: pages, not 404s
            final StringBuilder requests = new StringBuilder();
            final List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < 10; i++)
            {
                requests.append(RawConnection.request("POST", "/v1/transfers", "order-" + i, TallyClient.transferJson(1, 2, "1.00",
                    TallyClient.TRY, null)));
                expected.add(201);
                requests.append(RawConnection.request("GET", "/v1/accounts/1/entries?limit=abc", null, null));
                expected.add(400);
                requests.append(RawConnection.request("POST", "/v1/transfers", "order-b-" + i, TallyClient.transferJson(1, 2, "1.00",
                    TallyClient.TRY, null)));
                expected.add(201);
                requests.append(RawConnection.request("GET", "/v1/accounts/2/entries?limit=5", null, null));
                expected.add(200);
            }
            final List<Integer> actual = new ArrayList<>();
            try (RawConnection connection = new RawConnection(tally.port()))
            {
                connection.write(requests.toString());
                for (int i = 0; i < expected.size(); i++)
                {
                    actual.add(connection.read().status());
                }
            }
            assertEquals(expected, actual, "replies in request order");
            final String metrics = client.get("/metrics").body();
            org.junit.jupiter.api.Assertions.assertTrue(metrics.lines().anyMatch(line -> line.startsWith("tally_http_requests_seconds_count") &&
                line.contains("route=\"/v1/accounts/{id}/entries\"") && line.contains("status=\"200\"")),
                "the pool's replies are in the request metrics too");
            tally.stop();
        }
    }

    /** The replies the read pool writes, later and from its own threads, carry their request's {@code Request-Id} too. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldCarryEachRequestsIdOnTheRepliesOfTheReadPool() throws Exception
    {
        try (TallyProcess tally = TallyProcess.start(dataDir, "sync", logDir.resolve("serve.log")))
        {
            final TallyClient client = openTwoAccounts(tally);
            final Reply labelled = client.post("/v1/transfers", "labelled", "{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1.00\"," +
                "\"currency\":\"TRY\",\"metadata\":{\"orderId\":\"A-1\"}}");
            assertEquals(201, labelled.status(), labelled::toString);
            final String transferId = Json.parse(labelled.body()).get("id").text();
            tally.awaitWriterCaughtUp();
            final StringBuilder requests = new StringBuilder();
            final List<String> expected = new ArrayList<>();
            for (int i = 0; i < 5; i++)
            {
                requests.append(RawConnection.withRequestId(RawConnection.request("GET", "/v1/accounts/2/entries?limit=5", null, null), "page-" + i));
                expected.add("200 page-" + i);
                requests.append(RawConnection.withRequestId(RawConnection.request("GET", "/v1/transfers/" + transferId, null, null), "meta-" + i));
                expected.add("200 meta-" + i);
                requests.append(RawConnection.withRequestId(RawConnection.request("GET", "/v1/accounts/2/entries?limit=0", null, null), "bad-" + i));
                expected.add("400 bad-" + i);
                requests.append(RawConnection.withRequestId(RawConnection.request("GET", "/v1/accounts/7/entries", null, null), "none-" + i));
                expected.add("404 none-" + i);
                requests.append(RawConnection.withRequestId(RawConnection.request("POST", "/v1/transfers", "pool-" + i,
                    TallyClient.transferJson(1, 2, "1.00", TallyClient.TRY, null)), "write-" + i));
                expected.add("201 write-" + i);
            }
            final List<String> actual = new ArrayList<>();
            try (RawConnection connection = new RawConnection(tally.port()))
            {
                connection.write(requests.toString());
                for (int i = 0; i < expected.size(); i++)
                {
                    final RawConnection.RawResponse response = connection.read();
                    actual.add(response.status() + " " + response.headers().get("request-id"));
                }
            }
            assertEquals(expected, actual, "each reply in request order, with its request's id");
            tally.stop();
        }
    }

    /** @return a client of the server, which has a funding account 1 and a customer account 2. */
    private static TallyClient openTwoAccounts(final TallyProcess tally)
    {
        final TallyClient client = tally.client();
        assertEquals(201, client.createAccount(1, TallyClient.TRY, false).status());
        assertEquals(201, client.createAccount(2, TallyClient.TRY, true).status());
        return client;
    }
}
