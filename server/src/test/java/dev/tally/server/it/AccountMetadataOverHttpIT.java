package dev.tally.server.it;

import dev.tally.persistence.read.LedgerReads;
import dev.tally.server.TallyServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Account metadata over HTTP, on one in-process server with its embedded PostgreSQL: set at creation, replaced by
 * {@code PUT /v1/accounts/{id}/metadata} (journaled, idempotent: a retry replays the stored reply byte for byte), shown by
 * {@code GET /v1/accounts/{id}} from the read model, filtered on in the listing, refused on a closed or another tenant's
 * account, bad metadata a 400 that changes nothing, and the outbox events that carry it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AccountMetadataOverHttpIT extends OneServerPerClass
{
    private static final long WAIT_MS = 15_000;
    private static final String OPS_EU = "{\"region\":\"eu\",\"team\":\"ops\"}";

    private Reply create(final long id, final String key, final String metadata)
    {
        return client.post("/v1/accounts", key, "{\"id\":" + id + ",\"currency\":\"TRY\",\"metadata\":" + metadata + "}");
    }

    private Reply put(final TallyClient as, final long id, final String key, final String body)
    {
        return as.method("PUT", "/v1/accounts/" + id + "/metadata", key, body);
    }

    private Reply put(final long id, final String key, final String metadata)
    {
        return put(client, id, key, "{\"metadata\":" + metadata + "}");
    }

    @Test
    void shouldCreateWithMetadataInCanonicalFormAndShowItOnRead()
    {
        final long id = 21;
        final Reply created = create(id, "meta-create-21", "{ \"team\" : \"ops\", \"region\": \"eu\" }");

        assertEquals(201, created.status(), created::toString);
        assertTrue(created.body().contains("\"metadata\":" + OPS_EU), created::toString);
        final Reply retry = create(id, "meta-create-21", "{\"region\":\"eu\",\"team\":\"ops\"}");
        assertTrue(retry.replayed(), retry::toString);
        assertEquals(created.body(), retry.body(), "another spelling of the same metadata replays the stored reply, byte for byte");

        final Reply read = client.get("/v1/accounts/" + id);
        assertEquals(200, read.status(), read::toString);
        assertTrue(read.body().contains("\"metadata\":" + OPS_EU), read::toString);
        assertEquals("active", read.json().get("status").text());
        final Reply plain = client.get("/v1/accounts/" + created(22).json().get("id").asId());
        assertFalse(plain.json().has("metadata"), plain::toString);
    }

    @Test
    void shouldReplaceTheMetadataAndReplayTheUpdateByteForByte()
    {
        final long id = 31;
        created(id);

        final Reply updated = put(id, "meta-put-31", "{\"team\":\"risk\",\"costCenter\":\"CC-12\"}");

        assertEquals(200, updated.status(), updated::toString);
        assertEquals(id, updated.json().get("id").asId());
        assertTrue(updated.body().contains("\"metadata\":{\"costCenter\":\"CC-12\",\"team\":\"risk\"}"), updated::toString);
        assertTrue(updated.json().has("updatedAt"), updated::toString);
        final Reply retry = put(id, "meta-put-31", "{\"costCenter\": \"CC-12\", \"team\": \"risk\"}");
        assertEquals(200, retry.status(), retry::toString);
        assertTrue(retry.replayed(), retry::toString);
        assertEquals(updated.body(), retry.body(), "the stored reply, byte for byte");
        assertProblem(put(id, "meta-put-31", "{\"team\":\"other\"}"), 422, "idempotency-key-reused");
        assertTrue(client.get("/v1/accounts/" + id).body().contains("\"metadata\":{\"costCenter\":\"CC-12\",\"team\":\"risk\"}"));

        final Reply removed = put(id, "meta-remove-31", "{}");
        assertEquals(200, removed.status(), removed::toString);
        assertTrue(removed.body().contains("\"metadata\":{}"), removed::toString);
        assertFalse(client.get("/v1/accounts/" + id).json().has("metadata"), "removed");
    }

    @Test
    void shouldFilterTheListingByEveryMetadataMemberAsked() throws Exception
    {
        final long alphaNorth = 41;
        final long alphaSouth = 42;
        final long betaNorth = 43;
        assertEquals(201, create(alphaNorth, "list-41", "{\"squad\":\"alpha\",\"zone\":\"north\",\"note\":\"a:b c\"}").status());
        assertEquals(201, create(alphaSouth, "list-42", "{\"squad\":\"alpha\",\"zone\":\"south\"}").status());
        assertEquals(201, create(betaNorth, "list-43", "{\"squad\":\"beta\",\"zone\":\"north\"}").status());
        created(44);
        assertEquals(200, put(betaNorth, "list-43-put", "{\"squad\":\"alpha\",\"zone\":\"north\",\"moved\":\"yes\"}").status());

        assertEquals(List.of(alphaNorth, alphaSouth, betaNorth), awaitListing("metadata=squad:alpha", 3));
        assertEquals(List.of(alphaNorth, betaNorth), listing("metadata=squad:alpha&metadata=zone:north"));
        assertEquals(List.of(betaNorth), listing("metadata=moved:yes&currency=TRY"));
        assertEquals(List.of(alphaNorth), listing("metadata=note:a%3Ab%20c"), "the value after the first colon, percent-decoded");
        assertEquals(List.of(), listing("metadata=squad:alpha&metadata=squad:beta"), "every member must match");
        final Reply page = client.get("/v1/accounts?metadata=zone:north&limit=1");
        assertTrue(page.body().contains("\"metadata\":{\"note\":\"a:b c\",\"squad\":\"alpha\",\"zone\":\"north\"}"), page::toString);

        assertProblem(client.get("/v1/accounts?metadata=squad"), 400, "invalid-request");
        assertProblem(client.get("/v1/accounts?metadata=bad%20name:x"), 400, "invalid-request");
        assertProblem(client.get("/v1/accounts?metadata=squad:%FF"), 400, "invalid-request");
        assertProblem(client.get("/v1/accounts?metadata=squad:alpha&currency=TRY&currency=TRY"), 400, "invalid-request");
    }

    @Test
    void shouldRefuseBadMetadataWithA400AndChangeNothing()
    {
        final long id = 51;
        assertEquals(201, create(id, "bad-51", "{\"team\":\"ops\"}").status());
        final String[] bodies = {
            "{\"metadata\":\"team=ops\"}",
            "{\"metadata\":{\"team\":7}}",
            "{\"metadata\":{\"bad name\":\"x\"}}",
            "{\"metadata\":{\"team\":\"" + "x".repeat(501) + "\"}}",
            "{\"metadata\":{\"team\":\"a\",\"team\":\"b\"}}",
            "{\"metadata\":" + members(21) + "}",
            "{}",
            "{\"metadata\":{},\"accountId\":" + id + "}",
            "{\"metadata\":{},\"currency\":\"TRY\"}",
        };
        for (int i = 0; i < bodies.length; i++)
        {
            final Reply refused = put(client, id, "bad-put-" + i, bodies[i]);
            assertEquals(400, refused.status(), refused::toString);
            assertTrue(refused.body().contains("/problems/invalid-request") || refused.body().contains("/problems/malformed-json"),
                refused::toString);
        }
        assertProblem(put(client, id, "bad-put-json", "{\"metadata\":"), 400, "malformed-json");
        assertProblem(put(client, id, null, "{\"metadata\":{}}"), 400, "idempotency-key-missing");
        assertProblem(client.method("PUT", "/v1/accounts/abc/metadata", "bad-put-path", "{\"metadata\":{}}"), 400, "invalid-request");
        assertProblem(create(52, "bad-52", "{\"team\":[\"ops\"]}"), 400, "invalid-request");

        assertTrue(client.get("/v1/accounts/" + id).body().contains("\"metadata\":{\"team\":\"ops\"}"), "unchanged");
        assertProblem(client.get("/v1/accounts/52"), 404, "not-found");
        final Reply retried = put(id, "bad-put-0", "{\"team\":\"risk\"}");
        assertEquals(200, retried.status(), "a refused request stored nothing under its key: " + retried);
    }

    @Test
    void shouldKeepOtherTenantsOutAndRefuseAClosedAccount()
    {
        final long id = 61;
        assertEquals(201, create(id, "tenant-61", "{\"team\":\"ops\"}").status());
        final TallyClient other = client.withApiKey(Servers.OTHER_TENANT_KEY);

        final Reply foreign = put(other, id, "foreign-61", "{\"metadata\":{\"team\":\"theirs\"}}");
        assertProblem(foreign, 404, "not-found");
        assertEquals(id, foreign.json().get("accountId").asId(), foreign::toString);
        assertProblem(other.get("/v1/accounts/" + id), 404, "not-found");
        assertEquals(0, other.get("/v1/accounts?metadata=team:ops").json().get("accounts").size(), "another tenant's accounts never list");
        assertTrue(client.get("/v1/accounts/" + id).body().contains("\"metadata\":{\"team\":\"ops\"}"), "unchanged");
        assertProblem(put(999, "unknown-999", "{\"team\":\"x\"}"), 404, "not-found");

        assertEquals(200, client.post("/v1/accounts/" + id + "/close", "close-61", "").status());
        final Reply closed = put(id, "closed-61", "{\"team\":\"x\"}");
        assertProblem(closed, 422, "account-closed");
        assertEquals(id, closed.json().get("accountId").asId());
        final Reply closedAgain = put(id, "closed-61", "{\"team\":\"x\"}");
        assertTrue(closedAgain.replayed());
        assertEquals(closed.body(), closedAgain.body(), "a stored rejection, byte for byte");
    }

    @Test
    void shouldUpdateTheMetadataInABatch()
    {
        final long id = 71;
        created(id);
        final Reply batch = client.batch("{\"operations\":[" +
            "{\"op\":\"metadata\",\"idempotencyKey\":\"batch-meta-71\",\"body\":{\"accountId\":" + id + ",\"metadata\":{\"team\":\"ops\"}}}," +
            "{\"op\":\"metadata\",\"idempotencyKey\":\"batch-meta-999\",\"body\":{\"accountId\":999,\"metadata\":{}}}]}");

        assertEquals(200, batch.status(), batch::toString);
        final Json results = batch.json().get("results");
        assertEquals(200, results.at(0).get("status").asLong(), batch::toString);
        assertEquals(404, results.at(1).get("status").asLong(), batch::toString);
        assertTrue(client.get("/v1/accounts/" + id).body().contains("\"metadata\":{\"team\":\"ops\"}"));
        assertProblem(client.batch("{\"operations\":[{\"op\":\"metadata\",\"idempotencyKey\":\"batch-meta-x\",\"body\":{\"accountId\":" + id +
            "}}]}"), 400, "invalid-request");
    }

    @Test
    void shouldWriteTheMetadataToTheReadModelAndTheOutbox() throws Exception
    {
        final long id = 81;
        assertEquals(201, create(id, "outbox-81", "{\"team\":\"ops\"}").status());
        assertEquals(200, put(id, "outbox-81-put", "{\"team\":\"risk\"}").status());
        assertEquals(200, put(id, "outbox-81-remove", "{}").status());
        assertEquals(200, put(id, "outbox-81-again", "{\"team\":\"back\"}").status());

        assertEquals("{\"team\": \"back\"}", AccountRows.await(server, id, "metadata::text", "{\"team\": \"back\"}"));
        final List<String> events = AccountRows.outbox(server, id);
        assertEquals(List.of("AccountCreated", "AccountMetadataUpdated", "AccountMetadataUpdated", "AccountMetadataUpdated"),
            events.stream().map(e -> e.substring(0, e.indexOf(' '))).toList(), events::toString);
        assertTrue(events.get(0).contains("\"metadata\": {\"team\": \"ops\"}"), events::toString);
        assertTrue(events.get(1).contains("\"metadata\": {\"team\": \"risk\"}"), events::toString);
        assertTrue(events.get(2).contains("\"metadata\": null"), events::toString);
        assertTrue(events.get(3).contains("\"accountId\": \"" + id + "\""), events::toString);
    }

    @Test
    void shouldTakeARareMetadataMembersRowsFromTheGinIndexNotAWalkOfTheTenantsAccounts() throws Exception
    {
        try (Connection c = server.readModel().database().dataSource().getConnection())
        {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement())
            {
                // a tenant of 20,000 accounts, one in a thousand in the squad asked for; rolled back below, statistics included
                s.execute("INSERT INTO accounts (tenant_id, account_id, currency, sub_balances, debits_must_not_exceed_credits," +
                    " overdraft_limit_minor, journal_index, created_at, metadata) SELECT 99, g, 'TRY', 1, true, 0, 1, now()," +
                    " CASE WHEN g % 1000 = 0 THEN '{\"squad\": \"rare\"}'::jsonb END FROM generate_series(1, 20000) g");
                s.execute("ANALYZE accounts");
            }
            final StringBuilder plan = new StringBuilder();
            try (PreparedStatement s = c.prepareStatement("EXPLAIN " + LedgerReads.accountsSql(false, 1)))
            {
                s.setLong(1, 99L);
                s.setLong(2, 0L);
                s.setObject(3, "-infinity", Types.OTHER);
                s.setObject(4, "infinity", Types.OTHER);
                s.setString(5, "{\"squad\":\"rare\"}");
                s.setInt(6, 100);
                try (ResultSet rs = s.executeQuery())
                {
                    while (rs.next())
                    {
                        plan.append(rs.getString(1)).append('\n');
                    }
                }
            }
            c.rollback();
            assertTrue(plan.toString().contains("Bitmap Index Scan on accounts_metadata"), plan::toString);
        }
    }

    @Test
    void shouldTakeAndEchoMetadataWithoutAReadModelButNotGiveItBack(@TempDir final Path withoutReadModel) throws Exception
    {
        try (TallyServer bare = Servers.start(withoutReadModel))
        {
            final TallyClient journalOnly = Servers.client(bare);
            final Reply created = journalOnly.post("/v1/accounts", "bare-1", "{\"id\":1,\"currency\":\"TRY\",\"metadata\":{\"team\":\"ops\"}}");
            assertEquals(201, created.status(), created::toString);
            assertTrue(created.body().contains("\"metadata\":{\"team\":\"ops\"}"), created::toString);
            final Reply updated = put(journalOnly, 1, "bare-put", "{\"metadata\":{\"team\":\"risk\"}}");
            assertEquals(200, updated.status(), updated::toString);
            assertTrue(updated.body().contains("\"metadata\":{\"team\":\"risk\"}"), updated::toString);

            final Reply read = journalOnly.get("/v1/accounts/1");
            assertEquals(200, read.status(), read::toString);
            assertFalse(read.json().has("metadata"), "memory keeps only that it has some, and there is no read model to ask");
            assertEquals(503, journalOnly.get("/v1/accounts?metadata=team:risk").status(), "the listing needs the read model");
        }
    }

    private Reply created(final long id)
    {
        final Reply reply = client.createAccount(id, TRY, true);
        assertEquals(201, reply.status(), reply::toString);
        return reply;
    }

    private static String members(final int count)
    {
        final StringBuilder json = new StringBuilder("{");
        for (int i = 0; i < count; i++)
        {
            json.append(i == 0 ? "" : ",").append("\"m").append(i).append("\":\"v\"");
        }
        return json.append('}').toString();
    }

    /** @return the ids of the listing's first page for {@code query}. */
    private List<Long> listing(final String query)
    {
        final Reply reply = client.get("/v1/accounts?" + query);
        assertEquals(200, reply.status(), reply::toString);
        final Json accounts = reply.json().get("accounts");
        final List<Long> ids = new ArrayList<>();
        for (int i = 0; i < accounts.size(); i++)
        {
            ids.add(accounts.at(i).get("id").asId());
        }
        return ids;
    }

    /** @return the listing once it holds {@code count} accounts (the writer has caught up), or as it stands after the wait. */
    private List<Long> awaitListing(final String query, final int count) throws InterruptedException
    {
        final long deadline = System.currentTimeMillis() + WAIT_MS;
        List<Long> ids = listing(query);
        while (ids.size() != count && System.currentTimeMillis() < deadline)
        {
            Thread.sleep(50);
            ids = listing(query);
        }
        return ids;
    }
}
