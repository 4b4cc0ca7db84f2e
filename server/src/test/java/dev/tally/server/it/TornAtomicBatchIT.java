package dev.tally.server.it;

import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.RequestDecoder;
import dev.tally.gateway.http.ApiKeys;
import dev.tally.journal.Durability;
import dev.tally.journal.Journal;
import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A journal that ends inside an atomic batch (the process died after journaling part of it, before its reply): the
 * next start rolls the part back, and PostgreSQL's watermark must still cover its indexes, or {@code tally verify}
 * reports a difference where there is none and a stop waits for a writer unit that never comes.
 */
class TornAtomicBatchIT
{
    @TempDir
    Path dataDir;

    @Test
    void shouldVerifyCleanAfterAStartThatRolledBackATornAtomicBatch() throws Exception
    {
        try (TallyProcess first = TallyProcess.start(dataDir, "sync", dataDir.resolve("first.log")))
        {
            final TallyClient client = first.client();
            assertEquals(201, client.createAccount(1, "TRY", false).status());
            assertEquals(201, client.createAccount(2, "TRY", true).status());
            assertEquals(201, client.transfer("fund", 1, 2, "100.00", "TRY", null).status());
            first.stop();
        }
        final long tornLastIndex = appendTwoOfThreeOperationsOfAnAtomicBatch();

        final long stopStartNs;
        try (TallyProcess second = TallyProcess.start(dataDir, "sync", dataDir.resolve("second.log")))
        {
            assertEquals("100.00", second.client().accountJson(2).get("available").text(),
                "the torn batch was rolled back");
            stopStartNs = System.nanoTime();
            second.stop();
        }
        final long stopMs = (System.nanoTime() - stopStartNs) / 1_000_000;

        final Path verifyLog = dataDir.resolve("verify.log");
        final int verified = TallyProcess.verify(dataDir, verifyLog);
        final String output = TallyProcess.read(verifyLog);
        assertEquals(0, verified, output);
        // the watermark covers the rolled-back batch's indexes (a tick the second server journaled may come after them)
        final java.util.regex.Matcher watermark = java.util.regex.Pattern.compile("PostgreSQL watermark (\\d+)").matcher(output);
        assertTrue(watermark.find() && Long.parseLong(watermark.group(1)) >= tornLastIndex, output);
        assertTrue(stopMs < 8_000, "the stop waited " + stopMs + " ms for the writer (its wait is bounded at 10 s)");
    }

    /** Appends operations 0 and 1 of a three-operation atomic batch to the stopped server's journal; @return the last index. */
    private long appendTwoOfThreeOperationsOfAnAtomicBatch()
    {
        final long tenant = ApiKeys.parse(List.of("t:" + TallyProcess.TENANT_KEY)).authenticate("Bearer " + TallyProcess.TENANT_KEY).id();
        final String batch = "{\"atomic\":true,\"operations\":[" + transfer("torn-0") + "," + transfer("torn-1") + "," +
            transfer("torn-2") + "]}";
        final Command[] operations = new Command[LedgerLimits.BATCH_OPERATIONS_MAX];
        for (int i = 0; i < 3; i++)
        {
            operations[i] = new Command();
        }
        final RequestDecoder decoder = new RequestDecoder();
        final Problem problem = decoder.decodeBatch(tenant, Unpooled.copiedBuffer(batch, StandardCharsets.UTF_8), operations);
        assertNull(problem, () -> String.valueOf(problem));
        try (Journal journal = Journal.open(dataDir.resolve("journal"), Durability.SYNC))
        {
            journal.stampAndAppend(operations[0], System.currentTimeMillis() * 1_000_000L);
            final long last = journal.stampAndAppend(operations[1], System.currentTimeMillis() * 1_000_000L);
            journal.flush();
            return last;
        }
    }

    private static String transfer(final String key)
    {
        return "{\"op\":\"transfer\",\"idempotencyKey\":\"" + key + "\",\"body\":" +
            TallyClient.transferJson(1, 2, "10.00", "TRY", null) + "}";
    }
}
