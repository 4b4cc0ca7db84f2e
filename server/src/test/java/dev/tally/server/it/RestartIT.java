package dev.tally.server.it;

import dev.tally.gateway.http.HttpLimits;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.journal.Journal;
import dev.tally.journal.JournalConfig;
import dev.tally.journal.JournalCorruptedException;
import dev.tally.journal.ReplayStatus;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A clean restart: close the server, open a new one on the same folder. Everything a client can read
 * comes back identical (balances per sub-balance, holds, transfers, stored replies), and the journal
 * replays to the same state hash before and after, so reopening adds nothing to it.
 */
class RestartIT
{
    private static final String TRY = TallyClient.TRY;
    private static final long FUNDING = 1;
    private static final long CUSTOMER = 2;
    private static final long MERCHANT = 3;
    private static final long HOT = 4;
    private static final long[] ACCOUNTS = {FUNDING, CUSTOMER, MERCHANT, HOT};

    @TempDir
    Path dataDir;

    /** Stored replies by key, from the first run. */
    private final Map<String, Reply> replies = new LinkedHashMap<>();
    private final Map<String, String> requests = new LinkedHashMap<>();
    private final Map<String, String> paths = new LinkedHashMap<>();
    private final List<String> transferIds = new ArrayList<>();

    @Test
    void shouldServeIdenticalStateAfterCloseAndReopenOnTheSameFolder() throws Exception
    {
        final ServerConfig config = Servers.config(dataDir, Durability.ASYNC, HttpLimits.defaults(), Servers.withoutTicks());
        final Map<String, String> before;
        final String activeHoldId;
        try (TallyServer first = Servers.start(config))
        {
            activeHoldId = buildState(Servers.client(first));
            before = readEverything(Servers.client(first));
        }
        final long hashAfterFirstRun = replayedStateHash();

        try (TallyServer second = Servers.start(config))
        {
            assertTrue(second.replayResult().deliveredCount() > 0, "the restart replayed the journal");
            assertEquals(before, readEverything(Servers.client(second)), "every GET body is identical after the restart");
        }
        assertEquals(hashAfterFirstRun, replayedStateHash(), "a restart without writes leaves the journal's state unchanged");

        try (TallyServer third = Servers.start(config))
        {
            final TallyClient client = Servers.client(third);
            assertEquals(before, readEverything(client), "and after a second restart");
            for (final Map.Entry<String, Reply> stored : replies.entrySet())
            {
                final Reply retry = client.post(paths.get(stored.getKey()), stored.getKey(), requests.get(stored.getKey()));
                assertEquals(stored.getValue().status(), retry.status(), stored.getKey());
                assertTrue(retry.replayed(), () -> stored.getKey() + " is replayed after the restart: " + retry);
                assertEquals(stored.getValue().body(), retry.body(), () -> stored.getKey() + " replays byte for byte");
            }
            assertEquals(before, readEverything(client), "replays after the restart have no effect");

            final Reply capture = client.capture("capture-after-restart", activeHoldId, MERCHANT, "5.00", TRY);
            assertEquals(201, capture.status(), () -> "the hold is still live after the restart: " + capture);
            assertEquals("0.00", client.accountJson(CUSTOMER).get("held").text());
        }
    }

    @Test
    void shouldKeepAcknowledgedWritesOfASyncServerAcrossARestart() throws Exception
    {
        final ServerConfig config = Servers.config(dataDir, Durability.SYNC, HttpLimits.defaults(), Servers.withoutTicks());
        final Map<String, String> before;
        try (TallyServer first = Servers.start(config))
        {
            buildState(Servers.client(first));
            before = readEverything(Servers.client(first));
        }
        try (TallyServer second = Servers.start(config))
        {
            assertEquals(ReplayStatus.COMPLETE, second.replayResult().status());
            assertEquals(before, readEverything(Servers.client(second)));
        }
    }

    @Test
    void shouldRefuseToStartOnADatabaseThatHoldsCommandsPastTheJournalsEnd() throws Exception
    {
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, dataDir, Durability.SYNC, Servers.apiKeys(), Servers.IO_THREADS,
            LedgerConfig.small(), Servers.withoutTicks(), HttpLimits.defaults(), null, true);
        final long lastIndex;
        try (TallyServer first = Servers.start(config))
        {
            buildState(Servers.client(first));
            lastIndex = first.ledger().lastJournalIndex();
        }   // a clean stop: the writer caught up with the journal
        // The journal is the source of truth; a database written from another (or a longer) journal must not be
        // silently continued: the next commands would take journal indexes whose rows PostgreSQL already has.
        deleteRecursively(config.journalDir());
        final JournalCorruptedException refused = assertThrows(JournalCorruptedException.class, () -> Servers.start(config));
        // the witnesses: PostgreSQL's watermark, and the snapshot the clean stop wrote (named when it holds as much)
        assertTrue(refused.getMessage().contains("holds journal index " + lastIndex + " but the journal can be read only up to index 0"),
            refused.getMessage());
    }

    private static void deleteRecursively(final Path directory) throws java.io.IOException
    {
        try (java.util.stream.Stream<Path> paths = java.nio.file.Files.walk(directory))
        {
            for (final Path path : (Iterable<Path>)paths.sorted(java.util.Comparator.reverseOrder())::iterator)
            {
                java.nio.file.Files.delete(path);
            }
        }
    }

    /** Accounts (one with 4 sub-balances), transfers, a reversal, a stored rejection, holds in every state; @return a live hold. */
    private String buildState(final TallyClient client)
    {
        send(client, "/v1/accounts", "account-1", TallyClient.accountJson(FUNDING, TRY, false), 201);
        send(client, "/v1/accounts", "account-2", TallyClient.accountJson(CUSTOMER, TRY, true), 201);
        send(client, "/v1/accounts", "account-3", TallyClient.accountJson(MERCHANT, TRY, true), 201);
        send(client, "/v1/accounts", "account-4", "{\"id\":4,\"currency\":\"TRY\",\"subBalances\":4}", 201);
        send(client, "/v1/transfers", "fund", TallyClient.transferJson(FUNDING, CUSTOMER, "500.00", TRY, "inv-1"), 201);
        send(client, "/v1/transfers", "pay-1", TallyClient.transferJson(CUSTOMER, MERCHANT, "120.50", TRY, "inv-2"), 201);
        send(client, "/v1/transfers", "pay-hot", TallyClient.transferJson(CUSTOMER, HOT, "33.33", TRY, null), 201);
        send(client, "/v1/transfers", "too-much", TallyClient.transferJson(CUSTOMER, MERCHANT, "9999.00", TRY, null), 422);
        final String reversed = replies.get("pay-1").json().get("id").text();
        send(client, "/v1/transfers/" + reversed + "/reversals", "reverse-1", "{\"amount\":\"20.50\",\"currency\":\"TRY\"}", 201);
        final String captured = send(client, "/v1/holds", "hold-1",
            "{\"accountId\":2,\"amount\":\"40.00\",\"currency\":\"TRY\",\"expiresInMs\":3600000}", 201).json().get("id").text();
        send(client, "/v1/holds/" + captured + "/capture", "capture-1", "{\"creditAccountId\":3,\"amount\":\"15.00\",\"currency\":\"TRY\"}", 201);
        final String voided = send(client, "/v1/holds", "hold-2",
            "{\"accountId\":2,\"amount\":\"10.00\",\"currency\":\"TRY\",\"expiresInMs\":3600000}", 201).json().get("id").text();
        send(client, "/v1/holds/" + voided + "/void", "void-2", "", 201);
        final String live = send(client, "/v1/holds", "hold-3",
            "{\"accountId\":2,\"amount\":\"25.00\",\"currency\":\"TRY\",\"expiresInMs\":3600000}", 201).json().get("id").text();
        assertEquals("25.00", client.accountJson(CUSTOMER).get("held").text());
        return live;
    }

    private Reply send(final TallyClient client, final String path, final String key, final String json, final int status)
    {
        final Reply reply = client.post(path, key, json);
        assertEquals(status, reply.status(), () -> key + ": " + reply);
        assertFalse(reply.replayed());
        replies.put(key, reply);
        requests.put(key, json);
        paths.put(key, path);
        if (reply.status() == 201 && reply.json().has("id") && path.startsWith("/v1/transfers"))
        {
            transferIds.add(reply.json().get("id").text());
        }
        if (reply.status() == 201 && reply.json().has("transferId"))
        {
            transferIds.add(reply.json().get("transferId").text());
        }
        return reply;
    }

    /** @return the body of every account and every transfer, by path. */
    private Map<String, String> readEverything(final TallyClient client)
    {
        final Map<String, String> bodies = new LinkedHashMap<>();
        for (final long id : ACCOUNTS)
        {
            final Reply reply = client.account(id);
            assertEquals(200, reply.status(), reply::toString);
            bodies.put("/v1/accounts/" + id, reply.body());
        }
        for (final String id : transferIds)
        {
            final Reply reply = client.transferById(id);
            assertEquals(200, reply.status(), reply::toString);
            bodies.put("/v1/transfers/" + id, reply.body());
        }
        return bodies;
    }

    /** Replays the journal, with no server running, into a fresh ledger and returns its state hash. */
    private long replayedStateHash()
    {
        final Ledger ledger = new Ledger(LedgerConfig.small());
        try (Journal journal = Journal.open(JournalConfig.of(dataDir.resolve("journal"), Durability.ASYNC)))
        {
            assertEquals(ReplayStatus.COMPLETE, journal.recovery().tailScan().status(), "a clean close leaves a clean tail");
            assertFalse(journal.recovery().markerWritten(), "a clean tail needs no recovery marker");
            journal.replay(0, ledger::apply);
        }
        return ledger.stateHash();
    }
}
