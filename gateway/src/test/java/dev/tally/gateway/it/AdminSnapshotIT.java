package dev.tally.gateway.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.gateway.http.ApiKeys;
import dev.tally.gateway.http.HttpLimits;
import dev.tally.gateway.server.ServerConfig;
import dev.tally.gateway.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import dev.tally.snapshotter.SnapshotConfig;
import dev.tally.snapshotter.SnapshotDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /admin/snapshot} through the real server: only the admin key takes a snapshot (a tenant's key,
 * no key or a wrong one gets 401 and nothing is written), the admin key opens no tenant route, a server
 * without an admin key answers 404, one without snapshots 409.
 */
class AdminSnapshotIT
{
    private static final String TRY = TallyClient.TRY;
    private static final String ADMIN_KEY = "admin-key-for-the-it-0123";
    /** Nothing but requests takes a snapshot: no schedule, none at stop. */
    private static final SnapshotConfig ON_REQUEST_ONLY = new SnapshotConfig(true, Long.MAX_VALUE, Long.MAX_VALUE / 2_000_000, 3, false);

    @TempDir
    Path dataDir;

    @Test
    void shouldTakeASnapshotForTheAdminKeyOnly() throws Exception
    {
        try (TallyServer server = new TallyServer(config(Servers.apiKeys().withAdminKey(ADMIN_KEY)), ON_REQUEST_ONLY))
        {
            final TallyClient tenant = Servers.client(server);
            final TallyClient admin = tenant.withApiKey(ADMIN_KEY);
            assertEquals(201, tenant.createAccount(1, TRY, false).status());
            assertEquals(201, tenant.createAccount(2, TRY, true).status());
            assertEquals(201, tenant.transfer("a-1", 1, 2, "5.00", TRY, null).status());

            for (final TallyClient refused : List.of(tenant, tenant.withApiKey(null), tenant.withApiKey(ADMIN_KEY + "x"),
                tenant.withApiKey(Servers.OTHER_TENANT_KEY)))
            {
                final Reply reply = refused.post("/admin/snapshot", null, "");
                assertEquals(401, reply.status(), reply::toString);
                assertEquals("unauthorized", reply.problemSlug());
            }
            assertEquals(401, admin.transfer("a-2", 1, 2, "5.00", TRY, null).status(), "the admin key opens no tenant route");
            assertEquals(401, admin.account(1).status());
            Thread.sleep(300);   // the snapshotter polls every millisecond: a request that got through would show by now
            assertTrue(snapshots().isEmpty(), "no snapshot without the admin key");

            final Reply accepted = admin.post("/admin/snapshot", null, "");
            assertEquals(202, accepted.status(), accepted::toString);
            assertTrue(accepted.json().get("requested").asBoolean());
            assertEquals(0, accepted.json().get("lastSnapshotIndex").asLong());
            final long appliedIndex = accepted.json().get("appliedIndex").asLong();
            assertTrue(appliedIndex >= 3, accepted::toString);

            final long snapshotIndex = awaitSnapshotAbove(appliedIndex);
            assertEquals(1, snapshots().size());
            assertEquals(1, metric(tenant, "tally_http_requests_seconds_count\\{method=\"POST\",route=\"/admin/snapshot\",status=\"202\"}"));

            assertEquals(201, tenant.transfer("a-3", 1, 2, "5.00", TRY, null).status(), "the server keeps serving");
            final Reply again = admin.post("/admin/snapshot", null, "");
            assertEquals(202, again.status());
            assertEquals(snapshotIndex, again.json().get("lastSnapshotIndex").asLong());
            assertTrue(awaitSnapshotAbove(again.json().get("appliedIndex").asLong()) > snapshotIndex);
            assertEquals(2, snapshots().size());
        }
    }

    @Test
    void shouldAnswer404WithoutAnAdminKeyAnd409WithoutSnapshots() throws Exception
    {
        try (TallyServer server = new TallyServer(config(Servers.apiKeys()), ON_REQUEST_ONLY))
        {
            final TallyClient tenant = Servers.client(server);
            for (final TallyClient client : List.of(tenant, tenant.withApiKey(null), tenant.withApiKey(ADMIN_KEY)))
            {
                final Reply reply = client.post("/admin/snapshot", null, "");
                assertEquals(404, reply.status(), reply::toString);
                assertEquals("not-found", reply.problemSlug());
                assertEquals(tenant.post("/admin/nothing", null, "").body().replace("nothing", "snapshot"), reply.body(),
                    "the same reply as an unknown path");
            }
            Thread.sleep(300);
            assertTrue(snapshots().isEmpty());
            assertEquals(201, tenant.createAccount(1, TRY, false).status(), "the server keeps serving");
        }
        try (TallyServer server = new TallyServer(config(Servers.apiKeys().withAdminKey(ADMIN_KEY)), SnapshotConfig.disabled()))
        {
            final Reply reply = Servers.client(server).withApiKey(ADMIN_KEY).post("/admin/snapshot", null, "");
            assertEquals(409, reply.status(), reply::toString);
            assertEquals("snapshots-disabled", reply.problemSlug());
        }
    }

    private ServerConfig config(final ApiKeys keys)
    {
        return new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, keys, Servers.IO_THREADS, LedgerConfig.small(),
            Servers.withoutTicks(), HttpLimits.defaults());
    }

    private List<SnapshotDirectory.SnapshotFile> snapshots() throws IOException
    {
        return SnapshotDirectory.forReading(SnapshotDirectory.inDataDir(dataDir)).list();
    }

    /** @return the newest snapshot's index once one past {@code floor} is on disk (10 s at most): it is written on its own thread. */
    private long awaitSnapshotAbove(final long floor) throws IOException, InterruptedException
    {
        final long deadlineNs = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadlineNs)
        {
            final List<SnapshotDirectory.SnapshotFile> files = snapshots();
            if (!files.isEmpty() && files.get(0).journalIndex() > floor)
            {
                return files.get(0).journalIndex();
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no snapshot past journal index " + floor + " within 10 s");
    }

    private static double metric(final TallyClient client, final String sampleRegex)
    {
        final Reply reply = client.get("/metrics");
        assertEquals(200, reply.status());
        final Matcher m = Pattern.compile("(?m)^" + sampleRegex + " ([0-9.eE+-]+)$").matcher(reply.body());
        assertTrue(m.find(), () -> "no sample " + sampleRegex + " in\n" + reply.body());
        return Double.parseDouble(m.group(1));
    }
}
