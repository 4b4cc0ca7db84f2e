package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A transfer's metadata on {@code tally serve} with its embedded PostgreSQL: echoed in canonical form, part of the
 * payload an Idempotency-Key is bound to, read back by {@code GET /v1/transfers/{id}} (from PostgreSQL: memory keeps
 * only that there is some), in a batch too, and still there after a restart rebuilt the ledger from the journal.
 */
class MetadataOverHttpIT
{
    private static final String CANONICAL = "{\"city\":\"İzmir\",\"note\":\"say \\\"hi\\\"\",\"orderId\":\"A-17\"}";

    @TempDir
    Path dataDir;

    @TempDir
    Path logDir;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldKeepATransfersMetadataFromTheReplyToTheReadModelAndAcrossARestart() throws Exception
    {
        final String transferId;
        final String batchTransferId;
        final String created;
        try (TallyProcess tally = TallyProcess.start(dataDir, "sync", logDir.resolve("serve-1.log")))
        {
            final TallyClient client = tally.client();
            assertEquals(201, client.createAccount(1, TallyClient.TRY, false).status());
            assertEquals(201, client.createAccount(2, TallyClient.TRY, true).status());

            final Reply first = client.post("/v1/transfers", "meta-1", transfer(
                "{ \"orderId\": \"A-17\", \"note\": \"say \\\"hi\\\"\", \"city\": \"\\u0130zmir\" }"));
            assertEquals(201, first.status(), first.toString());
            assertTrue(first.body().contains(",\"metadata\":" + CANONICAL + ","), first.body());
            transferId = first.json().get("id").text();
            created = first.body();

            final Reply retry = client.post("/v1/transfers", "meta-1", transfer(
                "{\"city\":\"İzmir\",\"orderId\":\"A-17\",\"note\":\"say \\\"hi\\\"\"}"));
            assertEquals(201, retry.status());
            assertTrue(retry.replayed());
            assertEquals(created, retry.body(), "the same metadata spelled otherwise: the stored reply, byte for byte");
            final Reply reused = client.post("/v1/transfers", "meta-1", transfer("{\"orderId\":\"A-18\"}"));
            assertEquals(422, reused.status(), "other metadata under the same key is another payload");
            assertEquals("idempotency-key-reused", reused.problemSlug());

            final Reply read = client.get("/v1/transfers/" + transferId);   // right after the reply: waits for the writer
            assertEquals(200, read.status(), read.toString());
            assertTrue(read.body().contains("\"metadata\":" + CANONICAL), read.body());
            assertEquals(first.json().get("createdAt").text(), read.json().get("createdAt").text(), "memory's fields, to the millisecond");
            final Reply reversal = client.post("/v1/transfers/" + transferId + "/reversals", "meta-rev", "{\"amount\":\"0.40\"}");
            assertEquals(201, reversal.status(), reversal.toString());
            final Reply afterReversal = client.get("/v1/transfers/" + transferId);   // before the writer has the reversal, maybe
            assertEquals("0.40", afterReversal.json().get("reversedAmount").text(), "memory's reversed amount: " + afterReversal.body());
            assertTrue(afterReversal.body().contains("\"metadata\":" + CANONICAL), afterReversal.body());

            final Reply batch = client.batch("{\"operations\":[" +
                "{\"op\":\"transfer\",\"idempotencyKey\":\"meta-b1\",\"body\":" + transfer("{\"lineItem\":\"1\"}") + "}," +
                "{\"op\":\"transfer\",\"idempotencyKey\":\"meta-b2\",\"body\":" + transfer(null) + "}]}");
            assertEquals(200, batch.status(), batch.toString());
            assertTrue(batch.body().contains("\"metadata\":{\"lineItem\":\"1\"}"), batch.body());
            batchTransferId = batch.json().get("results").at(0).get("body").get("id").text();
            final Reply plain = client.get("/v1/transfers/" + batch.json().get("results").at(1).get("body").get("id").text());
            assertEquals(200, plain.status());
            assertTrue(!plain.body().contains("metadata"), "no metadata, no member: " + plain.body());

            final Reply bad = client.post("/v1/transfers", "meta-bad", transfer("{\"orderId\":17}"));
            assertEquals(400, bad.status());
            assertEquals("metadata", bad.json().get("field").text());
            tally.stop();
        }
        try (TallyProcess tally = TallyProcess.start(dataDir, "sync", logDir.resolve("serve-2.log")))
        {
            final TallyClient client = tally.client();
            final Reply read = client.get("/v1/transfers/" + transferId);
            assertEquals(200, read.status(), read.toString());
            assertTrue(read.body().contains("\"metadata\":" + CANONICAL), read.body());
            assertTrue(client.get("/v1/transfers/" + batchTransferId).body().contains("\"metadata\":{\"lineItem\":\"1\"}"));
            assertEquals(created, client.post("/v1/transfers", "meta-1", transfer(
                "{\"orderId\":\"A-17\",\"city\":\"İzmir\",\"note\":\"say \\\"hi\\\"\"}")).body(),
                "the key's stored reply after the journal's replay, byte for byte");
            tally.stop();
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldReadATransferFromPostgreSqlOnceMemoryForgotItExactlyAsMemoryGaveIt() throws Exception
    {
        final long reversalWindowMs = 1_000;
        try (TallyProcess tally = TallyProcess.start(dataDir, "async", logDir.resolve("serve-window.log"),
            java.util.List.of("--reversal-window-ms", String.valueOf(reversalWindowMs), "--tick-interval-ms", "20"), java.util.Map.of()))
        {
            final TallyClient client = tally.client();
            assertEquals(201, client.createAccount(1, TallyClient.TRY, false).status());
            assertEquals(201, client.createAccount(2, TallyClient.TRY, true).status());
            final String labelled = client.post("/v1/transfers", "old-1",
                "{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"5.00\",\"currency\":\"TRY\",\"reference\":\"inv-old-1\"," +
                    "\"metadata\":{\"orderId\":\"A-17\"}}").json().get("id").text();
            final String plain = client.post("/v1/transfers", "old-2", transfer(null)).json().get("id").text();
            final Reply reversal = client.post("/v1/transfers/" + plain + "/reversals", "old-3", "{\"amount\":\"0.25\"}");
            assertEquals(201, reversal.status(), reversal.toString());
            final String reversalId = reversal.json().get("id").text();
            final java.util.List<String> ids = java.util.List.of(labelled, plain, reversalId);
            final java.util.List<String> fromMemory = new java.util.ArrayList<>();
            for (final String id : ids)
            {
                final Reply read = client.get("/v1/transfers/" + id);
                assertEquals(200, read.status(), read.toString());
                fromMemory.add(read.body());
            }

            tally.awaitWriterCaughtUp();
            Thread.sleep(3 * reversalWindowMs);   // journaled time (a tick every 20 ms) passes the window: memory forgets them

            for (int i = 0; i < ids.size(); i++)
            {
                final Reply read = client.get("/v1/transfers/" + ids.get(i));
                assertEquals(200, read.status(), read.toString());
                assertEquals(fromMemory.get(i), read.body(), "PostgreSQL's answer, byte for byte memory's");
            }
            assertEquals("transfer-not-found", client.post("/v1/transfers/" + plain + "/reversals", "old-4", "{\"amount\":\"0.25\"}")
                .problemSlug(), "memory no longer holds it, so the reads above came from PostgreSQL");
            tally.stop();
        }
    }

    private static String transfer(final String metadata)
    {
        return "{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1.00\",\"currency\":\"TRY\"" +
            (metadata == null ? "" : ",\"metadata\":" + metadata) + "}";
    }
}
