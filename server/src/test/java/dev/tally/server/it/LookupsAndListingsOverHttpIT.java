package dev.tally.server.it;

import dev.tally.gateway.http.ApiKeys;
import dev.tally.gateway.http.HttpLimits;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.persistence.read.AccountTransfersFilter;
import dev.tally.persistence.read.LedgerReads;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lookups and listings of issue 34 over HTTP, on one real server with its embedded PostgreSQL (and, for what a server
 * without a read model answers, one without): {@code GET /v1/transfers?reference=}, {@code GET /v1/holds/{id}},
 * {@code GET /v1/accounts} and {@code GET /v1/accounts/{id}/transfers}. Each test works on accounts of its own, so the
 * order they run in does not matter; the listings of accounts use two tenants of their own. Every bad parameter is a
 * 400 problem whose detail names it, and the server answers the next request as before.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LookupsAndListingsOverHttpIT
{
    private static final String TRY = TallyClient.TRY;
    private static final String LISTER_KEY = "tenant-key-lister";
    private static final String NEIGHBOUR_KEY = "tenant-key-neighbour";
    private static final long AWAIT_MS = 10_000;

    @TempDir
    static Path dataDir;

    @TempDir
    static Path bareDataDir;

    private TallyServer server;
    private TallyClient client;
    private TallyClient other;

    @BeforeAll
    void startServer() throws Exception
    {
        final ApiKeys keys = ApiKeys.parse(List.of(Servers.TENANT + ":" + Servers.TENANT_KEY, Servers.OTHER_TENANT + ":" +
            Servers.OTHER_TENANT_KEY, "lister:" + LISTER_KEY, "neighbour:" + NEIGHBOUR_KEY));
        server = Servers.start(new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, keys, Servers.IO_THREADS, LedgerConfig.small(),
            LedgerPipeline.PipelineConfig.defaults(), HttpLimits.defaults(), null, true));
        client = Servers.client(server);
        other = client.withApiKey(Servers.OTHER_TENANT_KEY);
    }

    @AfterAll
    void stopServer()
    {
        if (server != null)
        {
            server.close();
        }
    }

    // ---- GET /v1/transfers?reference= ----

    @Test
    void shouldFindTheTenantsTransferByReferenceWithTheBodyOfAReadById() throws Exception
    {
        created(client.createAccount(101, TRY, false));
        created(client.createAccount(102, TRY, true));
        created(other.createAccount(101, TRY, false));
        created(other.createAccount(102, TRY, true));
        final String mine = created(client.transfer("ref-mine", 101, 102, "100.00", TRY, "inv-101")).json().get("id").text();
        final String theirs = created(other.transfer("ref-theirs", 101, 102, "7.00", TRY, "inv-101")).json().get("id").text();
        final String odd = "a/b&c=d+e%f?g#h";
        final String withMetadata = created(client.post("/v1/transfers", "ref-odd", "{\"debitAccountId\":101,\"creditAccountId\":102," +
            "\"amount\":\"2.50\",\"currency\":\"TRY\",\"reference\":\"" + odd + "\",\"metadata\":{\"orderId\":\"A-17\"}}"))
            .json().get("id").text();

        final Reply found = client.get("/v1/transfers?reference=inv-101");
        assertEquals(200, found.status(), found::toString);
        assertEquals(client.transferById(mine).body(), found.body(), "the body of GET /v1/transfers/{id}");
        final Reply theirsFound = other.get("/v1/transfers?reference=inv-101");
        assertEquals(other.transferById(theirs).body(), theirsFound.body(), "each tenant finds its own transfer under the reference");
        assertNotEquals(mine, theirs);

        final Reply encoded = client.get("/v1/transfers?reference=" + percentEncoded(odd));
        assertEquals(200, encoded.status(), encoded::toString);
        assertEquals(client.transferById(withMetadata).body(), encoded.body(), "percent-decoded; metadata as a read by id gives it");
        assertTrue(encoded.body().contains("\"metadata\":{\"orderId\":\"A-17\"}"), encoded::toString);
        assertInvalid(client, "/v1/transfers?reference=a/b&c=d", "unknown query parameter 'c'");

        created(client.post("/v1/transfers/" + mine + "/reversals", "ref-reverse", "{\"amount\":\"30.00\",\"currency\":\"TRY\"}"));
        final Reply afterReversal = client.get("/v1/transfers?reference=inv-101");
        assertEquals("30.00", afterReversal.json().get("reversedAmount").text(), afterReversal::toString);

        final Reply unknown = client.get("/v1/transfers?reference=never-used");
        assertEquals(404, unknown.status(), unknown::toString);
        assertEquals("not-found", unknown.problemSlug());
        assertEquals(404, client.withApiKey(LISTER_KEY).get("/v1/transfers?reference=inv-101").status(), "a tenant without it");

        assertInvalid(client, "/v1/transfers", "reference is required");
        assertInvalid(client, "/v1/transfers?reference=", "reference has no value");
        assertInvalid(client, "/v1/transfers?reference=a&reference=b", "reference is given more than once");
        assertInvalid(client, "/v1/transfers?ref=inv-101", "unknown query parameter 'ref'");
        try (RawConnection raw = new RawConnection(server.port()))
        {
            // java.net.URI refuses to send a malformed escape: written by hand, twice, to see the connection still serves
            raw.write(RawConnection.request("GET", "/v1/transfers?reference=%zz", null, null) +
                RawConnection.request("GET", "/v1/transfers?reference=inv-1%", null, null));
            for (int i = 0; i < 2; i++)
            {
                final RawConnection.RawResponse malformed = raw.read();
                assertEquals(400, malformed.status(), malformed::toString);
                assertTrue(malformed.body().contains("malformed percent escape"), malformed::toString);
            }
        }
        assertInvalid(client, "/v1/transfers?reference=a%20b", "visible ASCII");
        assertInvalid(client, "/v1/transfers?reference=" + "r".repeat(65), "1 to 64");
        assertEquals(200, client.get("/v1/transfers?reference=inv-101").status(), "and the server keeps serving");
    }

    // ---- GET /v1/holds/{id} ----

    @Test
    void shouldReadAHoldFromMemoryWhileLiveAndEveryEndFromTheReadModelAtOnce() throws Exception
    {
        created(client.createAccount(201, TRY, false));
        created(client.createAccount(202, TRY, true));
        created(client.transfer("hold-fund", 201, 202, "100.00", TRY, null));
        final Json hold = created(client.hold("hold-a", 202, "30.00", TRY, 60_000)).json();
        final String holdId = hold.get("id").text();

        final Json active = ok(client.get("/v1/holds/" + holdId));
        assertEquals(holdId, active.get("id").text());
        assertEquals("active", active.get("state").text());
        assertEquals(202, active.get("accountId").asId());
        assertEquals("TRY", active.get("currency").text());
        assertAmounts(active, "30.00", "0.00", "0.00", "30.00");
        assertEquals(hold.get("expiresAt").text(), active.get("expiresAt").text());
        assertEquals(hold.get("createdAt").text(), active.get("createdAt").text());
        assertFalse(active.has("resolvedAt"), active::toString);

        final Json capture = created(client.capture("hold-a-capture", holdId, 201, "12.00", TRY)).json();
        // no waiting: a read after the capture's reply sees it, although memory no longer holds the hold
        final Json captured = ok(client.get("/v1/holds/" + holdId));
        assertEquals("captured", captured.get("state").text(), captured::toString);
        assertAmounts(captured, "30.00", "12.00", "18.00", "0.00");
        assertEquals(capture.get("transferId").text(), captured.get("capturedTransferId").text());
        assertEquals(capture.get("createdAt").text(), captured.get("resolvedAt").text());
        assertEquals(active.get("createdAt").text(), captured.get("createdAt").text(), "the same hold, whoever answers");
        assertEquals(active.get("expiresAt").text(), captured.get("expiresAt").text());

        final String voidedId = created(client.hold("hold-b", 202, "5.00", TRY, 60_000)).json().get("id").text();
        created(client.voidHold("hold-b-void", voidedId));
        final Json voided = ok(client.get("/v1/holds/" + voidedId));
        assertEquals("voided", voided.get("state").text(), voided::toString);
        assertAmounts(voided, "5.00", "0.00", "5.00", "0.00");

        final String expiringId = created(client.hold("hold-c", 202, "1.00", TRY, 50)).json().get("id").text();
        final long deadline = System.currentTimeMillis() + AWAIT_MS;
        Json expiring = ok(client.get("/v1/holds/" + expiringId));
        while (!"expired".equals(expiring.get("state").text()) && System.currentTimeMillis() < deadline)
        {
            Thread.sleep(20);
            expiring = ok(client.get("/v1/holds/" + expiringId));
        }
        assertEquals("expired", expiring.get("state").text(), "a tick expires it: " + expiring);
        assertAmounts(expiring, "1.00", "0.00", "1.00", "0.00");

        assertNotFound(other.get("/v1/holds/" + holdId), "another tenant's hold, ended");
        final String live = created(client.hold("hold-d", 202, "1.00", TRY, 60_000)).json().get("id").text();
        assertNotFound(other.get("/v1/holds/" + live), "another tenant's hold, live");
        assertNotFound(client.get("/v1/holds/not-a-hold"), "a malformed id");
        assertNotFound(client.get("/v1/holds/" + capture.get("transferId").text()), "a transfer's id");
        assertNotFound(client.get("/v1/holds/" + live.substring(0, 30) + "000000"), "an id no hold has");
    }

    // ---- GET /v1/accounts ----

    @Test
    void shouldListTheTenantsAccountsKeysetPagedByCurrencyAndCreationTime() throws Exception
    {
        final TallyClient lister = client.withApiKey(LISTER_KEY);
        final TallyClient neighbour = client.withApiKey(NEIGHBOUR_KEY);
        final List<String> createdAt = new ArrayList<>();
        createdAt.add("");
        for (final String[] account : new String[][] {{"1", TRY, "false"}, {"2", TRY, "true"}, {"3", "USD", "true"}, {"4", TRY, "true"},
            {"5", "EUR", "true"}})
        {
            createdAt.add(created(lister.createAccount(Long.parseLong(account[0]), account[1], Boolean.parseBoolean(account[2])))
                .json().get("createdAt").text());
            Thread.sleep(3);   // each account in a millisecond of its own: createdAt shows milliseconds
        }
        created(neighbour.createAccount(1, TRY, true));
        created(neighbour.createAccount(9, TRY, true));
        created(lister.transfer("list-fund", 1, 2, "10.00", TRY, null));
        awaitReadModel();

        final Json all = ok(lister.get("/v1/accounts"));
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), ids(all.get("accounts"), "id"));
        assertFalse(all.has("next"), "a page shorter than the limit is the last");
        final Json second = all.get("accounts").at(1);
        assertEquals(TRY, second.get("currency").text());
        assertEquals(1, second.get("subBalances").asLong());
        assertTrue(second.get("debitsMustNotExceedCredits").asBoolean());
        assertEquals("10.00", second.get("posted").text());
        assertEquals("0.00", second.get("held").text());
        assertEquals("10.00", second.get("available").text());
        assertEquals("0.00", second.get("overdraftLimit").text());
        assertEquals(createdAt.get(2), second.get("createdAt").text(), "as POST answered it");
        assertEquals("-10.00", all.get("accounts").at(0).get("available").text());

        final Json page1 = ok(lister.get("/v1/accounts?limit=2"));
        assertEquals(List.of(1L, 2L), ids(page1.get("accounts"), "id"));
        final Json page2 = ok(lister.get("/v1/accounts?limit=2&after=" + page1.get("next").text()));
        assertEquals(List.of(3L, 4L), ids(page2.get("accounts"), "id"));
        final Json page3 = ok(lister.get("/v1/accounts?limit=2&after=" + page2.get("next").text()));
        assertEquals(List.of(5L), ids(page3.get("accounts"), "id"));
        assertFalse(page3.has("next"));

        assertEquals(List.of(1L, 2L, 4L), ids(ok(lister.get("/v1/accounts?currency=TRY")).get("accounts"), "id"));
        assertEquals(List.of(3L), ids(ok(lister.get("/v1/accounts?currency=USD")).get("accounts"), "id"));
        assertEquals(List.of(), ids(ok(lister.get("/v1/accounts?currency=JPY")).get("accounts"), "id"));
        assertEquals(List.of(4L, 5L), ids(ok(lister.get("/v1/accounts?createdFrom=" + createdAt.get(4))).get("accounts"), "id"));
        assertEquals(List.of(1L, 2L, 3L), ids(ok(lister.get("/v1/accounts?createdTo=" + createdAt.get(4))).get("accounts"), "id"),
            "createdTo is exclusive");
        assertEquals(List.of(2L, 4L), ids(ok(lister.get("/v1/accounts?currency=TRY&createdFrom=" + createdAt.get(2) + "&createdTo=" +
            createdAt.get(5))).get("accounts"), "id"));
        assertEquals(List.of(4L), ids(ok(lister.get("/v1/accounts?limit=1&currency=TRY&after=2")).get("accounts"), "id"));
        final String offset = "2000-01-01T03:00:00%2B03:00";   // midnight UTC, as an offset of its own
        assertEquals(5, ok(lister.get("/v1/accounts?createdFrom=" + offset)).get("accounts").size());

        assertEquals(List.of(1L, 9L), ids(ok(neighbour.get("/v1/accounts")).get("accounts"), "id"), "each tenant its own");

        assertInvalid(lister, "/v1/accounts?limit=0", "limit must be an integer from 1 to 1000");
        assertInvalid(lister, "/v1/accounts?limit=1001", "limit must be an integer from 1 to 1000");
        assertInvalid(lister, "/v1/accounts?limit=ten", "limit must be an integer from 1 to 1000");
        assertInvalid(lister, "/v1/accounts?after=0", "after must be the next cursor");
        assertInvalid(lister, "/v1/accounts?after=abc", "after must be the next cursor");
        assertInvalid(lister, "/v1/accounts?currency=try", "currency must be an ISO 4217 code");
        assertInvalid(lister, "/v1/accounts?currency=XYZ", "currency must be an ISO 4217 code");
        assertInvalid(lister, "/v1/accounts?createdFrom=yesterday", "createdFrom must be an RFC 3339 date-time");
        assertInvalid(lister, "/v1/accounts?createdFrom=2026-01-01", "createdFrom must be an RFC 3339 date-time");
        assertInvalid(lister, "/v1/accounts?createdTo=2026-13-01T00:00:00Z", "createdTo must be an RFC 3339 date-time");
        assertInvalid(lister, "/v1/accounts?createdFrom=1969-12-31T23:59:59Z", "between 1970");
        assertInvalid(lister, "/v1/accounts?createdFrom=2026-02-01T00:00:00Z&createdTo=2026-01-01T00:00:00Z", "is after createdTo");
        assertInvalid(lister, "/v1/accounts?metadata.team=ops", "unknown query parameter 'metadata.team'");
        assertEquals(5, ok(lister.get("/v1/accounts")).get("accounts").size(), "and the server keeps serving");
    }

    // ---- GET /v1/accounts/{id}/transfers ----

    @Test
    void shouldListAnAccountsTransfersKeysetPagedByTimeAndDirection() throws Exception
    {
        created(client.createAccount(401, TRY, false));
        created(client.createAccount(402, TRY, true));
        created(client.createAccount(403, TRY, true));
        final List<String> ids = new ArrayList<>();
        final List<String> times = new ArrayList<>();
        for (final Reply reply : new Reply[] {
            client.transfer("acct-t1", 401, 402, "100.00", TRY, null),
            client.transfer("acct-t2", 401, 402, "20.00", TRY, "acct-ref-2"),
            client.transfer("acct-t3", 402, 403, "7.00", TRY, null)})
        {
            ids.add(created(reply).json().get("id").text());
            times.add(reply.json().get("createdAt").text());
            Thread.sleep(3);   // each transfer in a millisecond of its own: createdAt shows milliseconds
        }
        final Reply reversal = created(client.post("/v1/transfers/" + ids.get(0) + "/reversals", "acct-r", "{\"amount\":\"3.00\",\"currency\":\"TRY\"}"));
        ids.add(reversal.json().get("id").text());
        times.add(reversal.json().get("createdAt").text());
        Thread.sleep(3);
        final String holdId = created(client.hold("acct-h", 402, "2.00", TRY, 60_000)).json().get("id").text();
        final Reply capture = created(client.capture("acct-c", holdId, 403, null, null));
        ids.add(capture.json().get("transferId").text());
        created(other.createAccount(402, TRY, false));
        created(other.createAccount(409, TRY, true));
        final String theirs = created(other.transfer("acct-theirs", 402, 409, "1.00", TRY, null)).json().get("id").text();
        awaitReadModel();

        final Json all = ok(client.get("/v1/accounts/402/transfers"));
        assertEquals(402, all.get("accountId").asId());
        assertEquals(ids, transferIds(all));
        assertEquals(List.of("credit", "credit", "debit", "debit", "debit"), texts(all, "direction"));
        for (int i = 0; i < ids.size(); i++)
        {
            final Json item = all.get("transfers").at(i);
            assertEquals(client.transferById(ids.get(i)).json().toString(), item.get("transfer").toString(), "as GET /v1/transfers/{id}");
            assertEquals(36, item.get("entryId").text().length());
        }
        assertEquals("3.00", all.get("transfers").at(0).get("transfer").get("reversedAmount").text());
        assertFalse(all.has("next"));

        assertEquals(List.of(ids.get(2), ids.get(3), ids.get(4)), transferIds(ok(client.get("/v1/accounts/402/transfers?direction=debit"))));
        assertEquals(List.of(ids.get(0), ids.get(1)), transferIds(ok(client.get("/v1/accounts/402/transfers?direction=credit"))));
        assertEquals(ids, transferIds(ok(client.get("/v1/accounts/402/transfers?direction=any"))));
        assertEquals(List.of(ids.get(2), ids.get(4)), transferIds(ok(client.get("/v1/accounts/403/transfers"))), "the other side");

        final List<String> paged = new ArrayList<>();
        String next = null;
        int pages = 0;
        do
        {
            final Json page = ok(client.get("/v1/accounts/402/transfers?limit=2" + (next == null ? "" : "&after=" + next)));
            paged.addAll(transferIds(page));
            next = page.has("next") ? page.get("next").text() : null;
            pages++;
        }
        while (next != null);
        assertEquals(ids, paged, "keyset pages, in order, none twice");
        assertEquals(3, pages);

        assertEquals(List.of(ids.get(1), ids.get(2)),
            transferIds(ok(client.get("/v1/accounts/402/transfers?from=" + times.get(1) + "&to=" + times.get(3)))), "from inclusive, to exclusive");
        assertEquals(List.of(ids.get(2)),
            transferIds(ok(client.get("/v1/accounts/402/transfers?direction=debit&from=" + times.get(1) + "&to=" + times.get(3)))));
        assertEquals(List.of(ids.get(3), ids.get(4)), transferIds(ok(client.get("/v1/accounts/402/transfers?from=" + times.get(3)))));
        assertEquals(List.of(), transferIds(ok(client.get("/v1/accounts/402/transfers?from=" + times.get(1) + "&to=" + times.get(1)))));
        assertEquals(List.of(), transferIds(ok(client.get("/v1/accounts/402/transfers?to=2000-01-01T00:00:00Z"))));

        assertEquals(List.of(theirs), transferIds(ok(other.get("/v1/accounts/402/transfers"))), "another tenant's account 402");
        assertNotFound(client.get("/v1/accounts/409/transfers"), "an account only another tenant has");
        assertNotFound(client.get("/v1/accounts/abc/transfers"), "an id no account can have");

        assertInvalid(client, "/v1/accounts/402/transfers?from=last-week", "from must be an RFC 3339 date-time");
        assertInvalid(client, "/v1/accounts/402/transfers?from=" + times.get(3) + "&to=" + times.get(1), "is after to");
        assertInvalid(client, "/v1/accounts/402/transfers?direction=sideways", "direction must be debit, credit or any");
        assertInvalid(client, "/v1/accounts/402/transfers?limit=0", "limit must be an integer from 1 to 1000");
        assertInvalid(client, "/v1/accounts/402/transfers?limit=-5", "limit must be an integer from 1 to 1000");
        assertInvalid(client, "/v1/accounts/402/transfers?after=not-a-cursor", "after must be the next cursor");
        assertInvalid(client, "/v1/accounts/402/transfers?after=" + ids.get(0), "after must be the next cursor");
        assertInvalid(client, "/v1/accounts/402/transfers?limit=5&limit=6", "limit is given more than once");
        assertEquals(ids, transferIds(ok(client.get("/v1/accounts/402/transfers"))), "and the server keeps serving");
    }

    /**
     * The listings' statements walk an index, never a whole table: with sequential scans priced out, the plan uses the
     * entries' (tenant_id, account_id, id) key and the accounts' primary key (on tables this small the planner would
     * rightly scan, so the plan shows what the statement allows, not what these few rows make cheapest).
     */
    @Test
    void shouldAnswerTheListingsFromTheIndexesTheWriterKeepsAnyway() throws Exception
    {
        try (Connection c = server.readModel().database().dataSource().getConnection())
        {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement())
            {
                s.execute("SET LOCAL enable_seqscan = off");
            }
            for (int direction = AccountTransfersFilter.ANY; direction <= AccountTransfersFilter.CREDIT; direction++)
            {
                final String plan = plan(c, LedgerReads.accountTransfersSql(direction), 1L, 402L, new UUID(0, 0), new UUID(-1, -1),
                    "-infinity", "infinity", 100);
                assertFalse(plan.contains("Seq Scan"), plan);
                assertTrue(plan.contains("tenant_id_account_id_id") || plan.contains("ledger_entries_account_entry_key"), plan);
                assertTrue(plan.contains("transfers_pkey"), plan);
            }
            final String accounts = plan(c, LedgerReads.accountsSql(true), 1L, 0L, "-infinity", "infinity", "TRY", 100);
            assertFalse(accounts.contains("Seq Scan"), accounts);
            assertTrue(accounts.contains("accounts_pkey"), accounts);
            c.rollback();
        }
    }

    // ---- GET /v1/accounts/{id}/entries, and what the one query parser refuses on every read ----

    @Test
    void shouldPageEntriesByTheirCursorAndRefuseWhatEveryReadRefuses()
    {
        created(client.createAccount(501, TRY, false));
        created(client.createAccount(502, TRY, true));
        String transferId = null;
        for (int i = 1; i <= 3; i++)
        {
            transferId = created(client.transfer("entries-" + i, 501, 502, i + ".00", TRY, null)).json().get("id").text();
        }
        final Json first = ok(client.get("/v1/accounts/502/entries?limit=2"));   // no wait here: the read waits for the writer
        assertEquals(2, first.get("entries").size());
        final String next = first.get("next").text();
        final Json second = ok(client.get("/v1/accounts/502/entries?limit=2&after=" + next));
        assertEquals(1, second.get("entries").size());
        assertEquals("6.00", second.get("entries").at(0).get("balanceAfter").text());
        assertFalse(second.has("next"));

        assertInvalid(client, "/v1/accounts/502/entries?limit=2&page=2", "unknown query parameter 'page'; this route takes after, limit");
        assertInvalid(client, "/v1/accounts/502/entries?limit=1&limit=2", "limit is given more than once");
        assertInvalid(client, "/v1/accounts/502/entries?limit=", "limit has no value");
        assertInvalid(client, "/v1/accounts/502/entries?after=" + next.toUpperCase(java.util.Locale.ROOT), "after must be the next cursor");
        assertInvalid(client, "/v1/accounts/502/entries?after=" + transferId, "after must be the next cursor");
        assertInvalid(client, "/v1/accounts/502?expand=balances", "unknown query parameter 'expand'; this route takes at, atIndex");
        assertInvalid(client, "/v1/accounts/502?atIndex=%2B5", "atIndex must be a journal index");
        assertInvalid(client, "/v1/accounts/502/statement?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&format=csv",
            "unknown query parameter 'format'; this route takes from, to");
        assertEquals(200, client.get("/v1/accounts/502").status(), "no query: the account now, from memory");
    }

    // ---- without the read model ----

    @Test
    void shouldAnswerWhatMemoryHoldsWithoutTheReadModel() throws Exception
    {
        final ServerConfig bare = new ServerConfig("127.0.0.1", 0, bareDataDir, Durability.ASYNC, Servers.apiKeys(), Servers.IO_THREADS,
            LedgerConfig.small(), Servers.withoutTicks(), HttpLimits.defaults(), null, false);
        try (TallyServer noReadModel = Servers.start(bare))
        {
            final TallyClient bareClient = Servers.client(noReadModel);
            created(bareClient.createAccount(1, TRY, false));
            created(bareClient.createAccount(2, TRY, true));
            final String id = created(bareClient.transfer("bare-t", 1, 2, "9.00", TRY, "bare-ref")).json().get("id").text();
            final Reply found = bareClient.get("/v1/transfers?reference=bare-ref");
            assertEquals(bareClient.transferById(id).body(), found.body(), found::toString);
            assertNotFound(bareClient.get("/v1/transfers?reference=no-such-ref"), "an unknown reference");
            assertNotFound(bareClient.withApiKey(Servers.OTHER_TENANT_KEY).get("/v1/transfers?reference=bare-ref"), "another tenant's");

            final String holdId = created(bareClient.hold("bare-h", 2, "1.00", TRY, 60_000)).json().get("id").text();
            assertEquals("active", ok(bareClient.get("/v1/holds/" + holdId)).get("state").text());
            created(bareClient.voidHold("bare-v", holdId));
            final Reply ended = bareClient.get("/v1/holds/" + holdId);
            assertNotFound(ended, "an ended hold, which only the read model keeps");
            assertTrue(ended.json().get("detail").text().contains("without the PostgreSQL read model"), ended::toString);

            for (final String listing : List.of("/v1/accounts", "/v1/accounts/1/transfers", "/v1/accounts?limit=0"))
            {
                final Reply refused = bareClient.get(listing);
                assertEquals(503, refused.status(), () -> listing + ": " + refused);
                assertEquals("service-unavailable", refused.problemSlug());
            }
        }
    }

    // ---- helpers ----

    /** Waits until PostgreSQL holds everything the ledger applied: the listings read the read model as its writer left it. */
    private void awaitReadModel() throws InterruptedException
    {
        final long applied = server.ledger().stats().lastJournalIndex();
        final long deadline = System.currentTimeMillis() + AWAIT_MS;
        while (server.readModel().watermark() < applied)
        {
            assertTrue(System.currentTimeMillis() < deadline, "the writer did not reach journal index " + applied);
            Thread.sleep(5);
        }
    }

    private static String plan(final Connection c, final String sql, final Object... parameters) throws Exception
    {
        try (PreparedStatement s = c.prepareStatement("EXPLAIN " + sql))
        {
            for (int i = 0; i < parameters.length; i++)
            {
                if (parameters[i] instanceof String && ((String)parameters[i]).contains("infinity"))
                {
                    s.setObject(i + 1, parameters[i], Types.OTHER);
                }
                else
                {
                    s.setObject(i + 1, parameters[i]);
                }
            }
            final StringBuilder plan = new StringBuilder();
            try (ResultSet rs = s.executeQuery())
            {
                while (rs.next())
                {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
            return plan.toString();
        }
    }

    private static Reply created(final Reply reply)
    {
        assertEquals(201, reply.status(), reply::toString);
        return reply;
    }

    private static Json ok(final Reply reply)
    {
        assertEquals(200, reply.status(), reply::toString);
        assertEquals("application/json", reply.header("Content-Type"), reply::toString);
        return reply.json();
    }

    private static void assertNotFound(final Reply reply, final String what)
    {
        assertEquals(404, reply.status(), () -> what + ": " + reply);
        assertEquals("not-found", reply.problemSlug(), what);
    }

    /** A 400 problem+json whose detail says what is wrong. */
    private static void assertInvalid(final TallyClient as, final String path, final String detail)
    {
        final Reply reply = as.get(path);
        assertEquals(400, reply.status(), () -> path + ": " + reply);
        assertEquals("invalid-request", reply.problemSlug(), path);
        assertTrue(reply.json().get("detail").text().contains(detail), () -> path + ": " + reply);
    }

    private static void assertAmounts(
        final Json hold, final String amount, final String captured, final String released, final String remaining)
    {
        assertEquals(amount, hold.get("amount").text(), hold::toString);
        assertEquals(captured, hold.get("capturedAmount").text(), hold::toString);
        assertEquals(released, hold.get("releasedAmount").text(), hold::toString);
        assertEquals(remaining, hold.get("remainingAmount").text(), hold::toString);
    }

    private static List<Long> ids(final Json array, final String member)
    {
        final List<Long> ids = new ArrayList<>();
        for (int i = 0; i < array.size(); i++)
        {
            ids.add(array.at(i).get(member).asId());
        }
        return ids;
    }

    private static List<String> transferIds(final Json page)
    {
        final List<String> ids = new ArrayList<>();
        for (int i = 0; i < page.get("transfers").size(); i++)
        {
            ids.add(page.get("transfers").at(i).get("transfer").get("id").text());
        }
        return ids;
    }

    private static List<String> texts(final Json page, final String member)
    {
        final List<String> texts = new ArrayList<>();
        for (int i = 0; i < page.get("transfers").size(); i++)
        {
            texts.add(page.get("transfers").at(i).get(member).text());
        }
        return texts;
    }

    /** Every byte but RFC 3986's unreserved characters as %XX. */
    private static String percentEncoded(final String text)
    {
        final StringBuilder out = new StringBuilder();
        for (final byte b : text.getBytes(StandardCharsets.US_ASCII))
        {
            final char c = (char)b;
            if (Character.isLetterOrDigit(c) || c == '-' || c == '.' || c == '_' || c == '~')
            {
                out.append(c);
            }
            else
            {
                out.append('%').append(String.format("%02X", b));
            }
        }
        return out.toString();
    }
}
