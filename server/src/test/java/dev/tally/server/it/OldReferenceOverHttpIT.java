package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reference reused after the ledger's in-memory window, on {@code tally serve} with its embedded PostgreSQL:
 * the journaler finds it in PostgreSQL and journals that, so the reuse is refused with 409
 * {@code duplicate-reference} naming the first transfer — and the writer never meets PostgreSQL's UNIQUE
 * (tenant, reference), which used to stop it for good (every later write answered 503). The refusal is
 * journaled, so it replays identically, also after a restart.
 */
class OldReferenceOverHttpIT
{
    private static final long REFERENCE_RETENTION_MS = 1_000;

    @TempDir
    Path dataDir;

    @TempDir
    Path logDir;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldRefuseAReferenceOlderThanTheLedgerRemembersAndKeepWriting() throws Exception
    {
        final List<String> shortReferenceWindow = List.of("--reference-retention-ms", String.valueOf(REFERENCE_RETENTION_MS),
            "--tick-interval-ms", "20");
        final Reply refused;
        try (TallyProcess tally = TallyProcess.start(dataDir, "async", logDir.resolve("serve-1.log"), shortReferenceWindow, Map.of()))
        {
            final TallyClient client = tally.client();
            assertEquals(201, client.createAccount(1, TallyClient.TRY, false).status());
            assertEquals(201, client.createAccount(2, TallyClient.TRY, true).status());
            final Reply first = client.transfer("inv-old-1", 1, 2, "1.00", TallyClient.TRY, "inv-old");
            assertEquals(201, first.status(), first.toString());
            final String firstId = first.json().get("id").text();

            tally.awaitWriterCaughtUp();
            Thread.sleep(3 * REFERENCE_RETENTION_MS); // journaled time (a tick every 20 ms) passes the reference window

            refused = client.transfer("inv-old-2", 1, 2, "1.00", TallyClient.TRY, "inv-old");
            assertEquals(409, refused.status(), refused + "\n" + tally.logTail());
            assertEquals("duplicate-reference", refused.problemSlug());
            assertEquals(firstId, refused.json().get("existingTransferId").text(), "names the first transfer");

            final Reply fresh = client.transfer("inv-new-1", 1, 2, "2.00", TallyClient.TRY, "inv-new");
            assertEquals(201, fresh.status(), fresh.toString());
            tally.awaitWriterCaughtUp();
            assertEquals(200, client.get("/ready").status(), "the writer kept writing");
            assertEquals(refused.body(), client.transfer("inv-old-2", 1, 2, "1.00", TallyClient.TRY, "inv-old").body(),
                "a retry gets the stored refusal");
            tally.stop();
        }
        try (TallyProcess tally = TallyProcess.start(dataDir, "async", logDir.resolve("serve-2.log"), shortReferenceWindow, Map.of()))
        {
            final Reply again = tally.client().transfer("inv-old-2", 1, 2, "1.00", TallyClient.TRY, "inv-old");
            assertEquals(409, again.status(), again.toString());
            assertEquals(refused.body(), again.body(), "replayed from the journal after a restart, byte for byte");
            assertEquals(200, tally.client().get("/ready").status());
            tally.stop();
        }
    }
}
