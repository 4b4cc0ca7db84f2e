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

    @Test
    void shouldSpreadAHotAccountsCreditsOverItsRowsAndReadTheirSum() throws Exception
    {
        final int port = functionPeer.port();
        post(port, "/v1/accounts", "h-fund", "{\"id\":301,\"currency\":\"TRY\",\"debitsMustNotExceedCredits\":false}");
        final HttpResponse<byte[]> created = post(port, "/v1/accounts", "h-hot", "{\"id\":302,\"currency\":\"TRY\",\"subBalances\":16}");
        assertEquals(201, created.statusCode());
        assertTrue(new String(created.body()).contains("\"subBalances\":16"), new String(created.body()));
        for (int i = 0; i < 64; i++)
        {
            assertEquals(201, post(port, "/v1/transfers", "h-credit-" + i,
                "{\"debitAccountId\":301,\"creditAccountId\":302,\"amount\":\"1.00\",\"currency\":\"TRY\"}").statusCode());
        }
        final String account = get(port, "/v1/accounts/302");
        assertTrue(account.contains("\"posted\":\"64.00\""), account);
        final long rowsWithMoney = java.util.regex.Pattern.compile("\"index\":\\d+,\"posted\":\"[1-9]").matcher(account).results().count();
        assertTrue(rowsWithMoney > 1, "64 credits by key hash land on more than one of 16 rows: " + account);
        assertTrue(functionPeer.checker().run(0).ok());
    }

    @Test
    void shouldLetAGuardedDebitFallBackToAnotherRowButNeverSplitIt() throws Exception
    {
        for (final PeerServer peer : List.of(functionPeer, statementPeer))
        {
            final int port = peer.port();
            post(port, "/v1/accounts", "f-fund", "{\"id\":401,\"currency\":\"TRY\",\"debitsMustNotExceedCredits\":false}");
            post(port, "/v1/accounts", "f-hot", "{\"id\":402,\"currency\":\"TRY\",\"subBalances\":4}");
            post(port, "/v1/accounts", "f-out", "{\"id\":403,\"currency\":\"TRY\"}");
            // 8 times: 1.00 in on the row the credit's key picks, 1.00 out from the row the debit's key starts at: the debit
            // finds the money wherever it is (the two keys pick the same row once in 4, so the fallback runs in almost every pair)
            for (int i = 0; i < 8; i++)
            {
                assertEquals(201, post(port, "/v1/transfers", "f-in-" + i,
                    "{\"debitAccountId\":401,\"creditAccountId\":402,\"amount\":\"1.00\",\"currency\":\"TRY\"}").statusCode());
                assertEquals(201, post(port, "/v1/transfers", "f-out-" + i,
                    "{\"debitAccountId\":402,\"creditAccountId\":403,\"amount\":\"1.00\",\"currency\":\"TRY\"}").statusCode(),
                    peer.config().path() + ": pair " + i);
            }
            assertEquals(422, post(port, "/v1/transfers", "f-out-empty",
                "{\"debitAccountId\":402,\"creditAccountId\":403,\"amount\":\"1.00\",\"currency\":\"TRY\"}").statusCode());
            // 2 x 1.00 in: a debit of 2.00 is paid only when one row holds both (a debit never splits across rows)
            post(port, "/v1/transfers", "f-in-a", "{\"debitAccountId\":401,\"creditAccountId\":402,\"amount\":\"1.00\",\"currency\":\"TRY\"}");
            post(port, "/v1/transfers", "f-in-b", "{\"debitAccountId\":401,\"creditAccountId\":402,\"amount\":\"1.00\",\"currency\":\"TRY\"}");
            final String hot = get(port, "/v1/accounts/402");
            assertTrue(hot.contains("\"posted\":\"2.00\""), hot);
            final boolean oneRowHoldsBoth = hot.contains("\"posted\":\"2.00\",\"held\":\"0.00\",\"available\":\"2.00\"}");
            assertEquals(oneRowHoldsBoth ? 201 : 422, post(port, "/v1/transfers", "f-out-two",
                "{\"debitAccountId\":402,\"creditAccountId\":403,\"amount\":\"2.00\",\"currency\":\"TRY\"}").statusCode(), hot);
            final PeerCheck.Report report = peer.checker().run(0);
            assertTrue(report.ok(), report.toString());
        }
    }

    @Test
    void shouldRunABatchAsOneTransactionWithEachTransfersOwnResult() throws Exception
    {
        final int port = functionPeer.port();
        post(port, "/v1/accounts", "b-fund", "{\"id\":501,\"currency\":\"TRY\",\"debitsMustNotExceedCredits\":false}");
        post(port, "/v1/accounts", "b-a", "{\"id\":502,\"currency\":\"TRY\"}");
        post(port, "/v1/accounts", "b-b", "{\"id\":503,\"currency\":\"TRY\"}");
        // nothing can be refused: applied set-wise
        final String funding = batch("b1-", "{\"debitAccountId\":501,\"creditAccountId\":502,\"amount\":\"3.00\",\"currency\":\"TRY\"}", 3);
        final HttpResponse<byte[]> first = post(port, "/v1/batch", null, funding);
        assertEquals(200, first.statusCode());
        assertEquals(3, count(first, "\"status\":201"), new String(first.body()));
        // the same batch again: every operation a replay of its stored result
        final HttpResponse<byte[]> again = post(port, "/v1/batch", null, funding);
        assertEquals(3, count(again, "\"replayed\":true"), new String(again.body()));
        // 9.00 on 502; four debits of 3.00: the fourth is refused, so the batch goes one by one, in request order
        final HttpResponse<byte[]> mixed = post(port, "/v1/batch", null,
            batch("b2-", "{\"debitAccountId\":502,\"creditAccountId\":503,\"amount\":\"3.00\",\"currency\":\"TRY\"}", 4));
        final String results = new String(mixed.body());
        assertEquals(3, count(mixed, "\"status\":201"), results);
        assertTrue(results.indexOf("insufficient-funds") > results.lastIndexOf("\"status\":201"), "the last one is refused: " + results);
        assertTrue(get(port, "/v1/accounts/503").contains("\"posted\":\"9.00\""));
        assertTrue(functionPeer.checker().run(0).ok(), functionPeer.checker().run(0).toString());
    }

    @Test
    void shouldNeverDeadlockConcurrentBatchesOverTheSameAccounts() throws Exception
    {
        final int port = functionPeer.port();
        post(port, "/v1/accounts", "d-fund", "{\"id\":601,\"currency\":\"TRY\",\"debitsMustNotExceedCredits\":false}");
        for (int id = 602; id < 608; id++)
        {
            post(port, "/v1/accounts", "d-" + id, "{\"id\":" + id + ",\"currency\":\"TRY\",\"debitsMustNotExceedCredits\":false}");
        }
        // 16 batches at once, each touching the same 7 accounts in a different order
        final List<CompletableFuture<HttpResponse<byte[]>>> replies = new ArrayList<>();
        for (int b = 0; b < 16; b++)
        {
            final StringBuilder body = new StringBuilder("{\"atomic\":false,\"operations\":[");
            for (int op = 0; op < 20; op++)
            {
                final int debit = 601 + (b + op) % 7;
                final int credit = 601 + (b + 3 * op + 1) % 7;
                body.append(op == 0 ? "" : ",").append("{\"op\":\"transfer\",\"idempotencyKey\":\"d").append(b).append('-').append(op)
                    .append("\",\"body\":{\"debitAccountId\":").append(debit).append(",\"creditAccountId\":").append(credit == debit ? 601 + (debit - 600) % 7 : credit)
                    .append(",\"amount\":\"1.00\",\"currency\":\"TRY\"}}");
            }
            replies.add(HTTP.sendAsync(request(port, "/v1/batch", null, body.append("]}").toString()), HttpResponse.BodyHandlers.ofByteArray()));
        }
        for (final CompletableFuture<HttpResponse<byte[]>> reply : replies)
        {
            assertEquals(200, reply.get().statusCode(), new String(reply.get().body()));
            assertEquals(20, count(reply.get(), "\"status\":201"), new String(reply.get().body()));
        }
        assertTrue(functionPeer.checker().run(0).ok());
    }

    @Test
    void shouldKeepAHotAccountInOneRowInTheNaiveVariant() throws Exception
    {
        try (PeerServer naive = new PeerServer(PeerConfig.defaults(false, "t1:" + KEY).withPoolSize(2).withHotRows(HotRows.ONE_ROW)))
        {
            final HttpResponse<byte[]> created = post(naive.port(), "/v1/accounts", "n-hot", "{\"id\":701,\"currency\":\"TRY\",\"subBalances\":16}");
            assertEquals(201, created.statusCode());
            assertTrue(new String(created.body()).contains("\"subBalances\":1,"), new String(created.body()));
            assertTrue(get(naive.port(), "/v1/accounts/701").contains("\"subBalances\":1,"));
            assertEquals("one-row", HotRows.ONE_ROW.label(16));
            assertEquals("sub-rows-16", HotRows.SUB_BALANCES.label(16));
        }
    }

    private static String batch(final String keyPrefix, final String transfer, final int count)
    {
        final StringBuilder body = new StringBuilder("{\"atomic\":false,\"operations\":[");
        for (int i = 0; i < count; i++)
        {
            body.append(i == 0 ? "" : ",").append("{\"op\":\"transfer\",\"idempotencyKey\":\"").append(keyPrefix).append(i)
                .append("\",\"body\":").append(transfer).append('}');
        }
        return body.append("]}").toString();
    }

    private static long count(final HttpResponse<byte[]> reply, final String text)
    {
        return java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(text)).matcher(new String(reply.body())).results().count();
    }

    private static String get(final int port, final String path) throws Exception
    {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).header("Authorization", "Bearer " + KEY).build(),
            HttpResponse.BodyHandlers.ofString()).body();
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
