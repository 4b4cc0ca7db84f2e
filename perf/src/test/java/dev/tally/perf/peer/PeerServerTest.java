package dev.tally.perf.peer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The peer keeps Tally's v1 transfer contract, on both transfer paths. */
class PeerServerTest
{
    private static final String KEY = "peer-test-secret";
    private static PeerServer functionPeer;
    private static PeerServer statementPeer;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception
    {
        functionPeer = new PeerServer(PeerConfig.defaults(false, "t1:" + KEY).withPoolSize(4));
        statementPeer = new PeerServer(PeerConfig.defaults(false, "t1:" + KEY).withPoolSize(4).withPath("statements"));
    }

    @AfterAll
    static void stop()
    {
        functionPeer.close();
        statementPeer.close();
    }

    @Test
    void shouldKeepTheTransferContractWithTheFunction() throws Exception
    {
        checkContract(functionPeer);
    }

    @Test
    void shouldKeepTheTransferContractWithPlainStatements() throws Exception
    {
        checkContract(statementPeer);
    }

    private static void checkContract(final PeerServer peer) throws Exception
    {
        final int port = peer.port();
        assertEquals(201, post(port, "/v1/accounts", "a1", "{\"id\":1,\"currency\":\"TRY\",\"debitsMustNotExceedCredits\":false}").statusCode());
        assertEquals(201, post(port, "/v1/accounts", "a2", "{\"id\":2,\"currency\":\"TRY\"}").statusCode());
        assertEquals(201, post(port, "/v1/accounts", "a3", "{\"id\":3,\"currency\":\"USD\"}").statusCode());
        assertEquals(409, post(port, "/v1/accounts", "a2b", "{\"id\":2,\"currency\":\"TRY\"}").statusCode());

        final String pay = "{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1000.00\",\"currency\":\"TRY\",\"reference\":\"inv-1\"}";
        final HttpResponse<byte[]> first = post(port, "/v1/transfers", "pay-1", pay);
        assertEquals(201, first.statusCode());
        assertNull(first.headers().firstValue("Idempotent-Replayed").orElse(null));
        // a retry: the same bytes, flagged as a replay, nothing applied again
        final HttpResponse<byte[]> retry = post(port, "/v1/transfers", "pay-1",
            "{\"currency\":\"TRY\",\"amount\":1000.0,\"creditAccountId\":2,\"debitAccountId\":1,\"reference\":\"inv-1\"}");
        assertEquals(201, retry.statusCode());
        assertEquals("true", retry.headers().firstValue("Idempotent-Replayed").orElse(null));
        assertArrayEquals(first.body(), retry.body());
        // the same key, another payload: 422, not stored, first result untouched
        final HttpResponse<byte[]> reused = post(port, "/v1/transfers", "pay-1",
            "{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"9.99\",\"currency\":\"TRY\"}");
        assertEquals(422, reused.statusCode());
        assertTrue(new String(reused.body()).contains("idempotency-key-reused"));
        // a new key with a used reference: 409 stored
        final HttpResponse<byte[]> duplicate = post(port, "/v1/transfers", "pay-2", pay);
        assertEquals(409, duplicate.statusCode());
        assertTrue(new String(duplicate.body()).contains("duplicate-reference"), new String(duplicate.body()));
        assertArrayEquals(duplicate.body(), post(port, "/v1/transfers", "pay-2", pay).body());
        // overdraw the customer: 422 stored, replayed after funding too
        final String overdraw = "{\"debitAccountId\":2,\"creditAccountId\":1,\"amount\":\"5000.00\",\"currency\":\"TRY\"}";
        final HttpResponse<byte[]> insufficient = post(port, "/v1/transfers", "pay-3", overdraw);
        assertEquals(422, insufficient.statusCode());
        assertTrue(new String(insufficient.body()).contains("insufficient-funds"), new String(insufficient.body()));
        assertEquals(201, post(port, "/v1/transfers", "fund-2", "{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"9000\",\"currency\":\"TRY\"}")
            .statusCode());
        final HttpResponse<byte[]> stillRejected = post(port, "/v1/transfers", "pay-3", overdraw);
        assertEquals(422, stillRejected.statusCode());
        assertArrayEquals(insufficient.body(), stillRejected.body());
        // rejections that are not about funds
        assertEquals(422, post(port, "/v1/transfers", "pay-4", "{\"debitAccountId\":2,\"creditAccountId\":99,\"amount\":\"1\",\"currency\":\"TRY\"}")
            .statusCode());
        assertEquals(422, post(port, "/v1/transfers", "pay-5", "{\"debitAccountId\":1,\"creditAccountId\":3,\"amount\":\"1\",\"currency\":\"TRY\"}")
            .statusCode());
        // validation: 400, nothing stored
        assertEquals(400, post(port, "/v1/transfers", "pay-6", "{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1.001\",\"currency\":\"TRY\"}")
            .statusCode());
        assertEquals(400, post(port, "/v1/transfers", null, pay).statusCode());
        // balances: 2 received 1000 + 9000
        final HttpResponse<String> account = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/accounts/2"))
            .header("Authorization", "Bearer " + KEY).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, account.statusCode());
        assertTrue(account.body().contains("\"posted\":\"10000.00\""), account.body());
        final PeerCheck.Report report = peer.checker().run(0);
        assertTrue(report.ok(), report.toString());
    }

    @Test
    void shouldApplyConcurrentRetriesOfOneKeyOnce() throws Exception
    {
        final int port = functionPeer.port();
        post(port, "/v1/accounts", "c1", "{\"id\":101,\"currency\":\"TRY\",\"debitsMustNotExceedCredits\":false}");
        post(port, "/v1/accounts", "c2", "{\"id\":102,\"currency\":\"TRY\"}");
        final List<CompletableFuture<HttpResponse<byte[]>>> replies = new ArrayList<>();
        for (int i = 0; i < 20; i++)
        {
            replies.add(HTTP.sendAsync(request(port, "/v1/transfers", "same-key",
                "{\"debitAccountId\":101,\"creditAccountId\":102,\"amount\":\"1.00\",\"currency\":\"TRY\"}"), HttpResponse.BodyHandlers.ofByteArray()));
        }
        int fresh = 0;
        for (final CompletableFuture<HttpResponse<byte[]>> reply : replies)
        {
            assertEquals(201, reply.get().statusCode());
            fresh += reply.get().headers().firstValue("Idempotent-Replayed").isPresent() ? 0 : 1;
        }
        assertEquals(1, fresh);
        assertTrue(functionPeer.checker().run(0).ok());
    }

    @Test
    void shouldNeverOverdrawUnderConcurrentDebits() throws Exception
    {
        final int port = functionPeer.port();
        post(port, "/v1/accounts", "o1", "{\"id\":201,\"currency\":\"TRY\",\"debitsMustNotExceedCredits\":false}");
        post(port, "/v1/accounts", "o2", "{\"id\":202,\"currency\":\"TRY\"}");
        post(port, "/v1/accounts", "o3", "{\"id\":203,\"currency\":\"TRY\"}");
        post(port, "/v1/transfers", "o-fund", "{\"debitAccountId\":201,\"creditAccountId\":202,\"amount\":\"10.00\",\"currency\":\"TRY\"}");
        // 50 concurrent debits of 1.00 from an account holding 10.00 (article 004's 50 orders on 10 stock)
        final List<CompletableFuture<HttpResponse<byte[]>>> replies = new ArrayList<>();
        for (int i = 0; i < 50; i++)
        {
            replies.add(HTTP.sendAsync(request(port, "/v1/transfers", "o-" + i,
                "{\"debitAccountId\":202,\"creditAccountId\":203,\"amount\":\"1.00\",\"currency\":\"TRY\"}"), HttpResponse.BodyHandlers.ofByteArray()));
        }
        int applied = 0;
        for (final CompletableFuture<HttpResponse<byte[]>> reply : replies)
        {
            applied += reply.get().statusCode() == 201 ? 1 : 0;
        }
        assertEquals(10, applied);
        assertTrue(functionPeer.checker().run(0).ok());
    }

    private static HttpResponse<byte[]> post(final int port, final String path, final String key, final String body) throws Exception
    {
        return HTTP.send(request(port, path, key, body), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static HttpRequest request(final int port, final String path, final String key, final String body)
    {
        final HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Authorization", "Bearer " + KEY).POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null)
        {
            builder.header("Idempotency-Key", key);
        }
        return builder.build();
    }
}
