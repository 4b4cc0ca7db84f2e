package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.gateway.http.ApiKeys;
import dev.tally.gateway.http.HttpLimits;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import dev.tally.snapshotter.SnapshotConfig;
import dev.tally.snapshotter.SnapshotDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /admin/snapshot} through the real server: only the admin key takes a snapshot (a tenant's key,
 * no key or a wrong one gets 401 and nothing is written), the admin key opens no tenant route, a server
 * without an admin key answers 404, one without snapshots 409; and the snapshot meters of {@code /metrics}
 * move with the snapshot the request caused.
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
    void shouldTakeASnapshotForTheAdminKeyOnlyAndExportItsMeters() throws Exception
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
            assertEquals(0, metric(tenant, "tally_snapshots_written_total"));
            assertEquals(0, metric(tenant, "tally_snapshot_last_index"));

            final Reply accepted = admin.post("/admin/snapshot", null, "");
            assertEquals(202, accepted.status(), accepted::toString);
            assertTrue(accepted.json().get("requested").asBoolean());
            assertEquals(0, accepted.json().get("lastSnapshotIndex").asLong());
            final long appliedIndex = accepted.json().get("appliedIndex").asLong();
            assertTrue(appliedIndex >= 3, accepted::toString);

            final long snapshotIndex = awaitMetricAbove(tenant, "tally_snapshot_last_index", appliedIndex);
            final List<SnapshotDirectory.SnapshotFile> files = snapshots();
            assertEquals(1, files.size());
            assertEquals(snapshotIndex, files.get(0).journalIndex());
            assertEquals(1, metric(tenant, "tally_snapshots_written_total"));
            assertEquals(0, metric(tenant, "tally_snapshots_skipped_total"));
            assertEquals(0, metric(tenant, "tally_snapshots_failed_total"));
            assertEquals(Files.size(files.get(0).path()), metric(tenant, "tally_snapshot_last_size_bytes"));
            assertTrue(metric(tenant, "tally_snapshot_last_write_duration_seconds") > 0);
            assertTrue(metric(tenant, "tally_snapshot_last_copy_duration_seconds") > 0);
            assertEquals(1, metric(tenant, "tally_http_requests_seconds_count\\{method=\"POST\",route=\"/admin/snapshot\",status=\"202\"}"));

            assertEquals(201, tenant.transfer("a-3", 1, 2, "5.00", TRY, null).status(), "the server keeps serving");
            final Reply again = admin.post("/admin/snapshot", null, "");
            assertEquals(202, again.status());
            assertEquals(snapshotIndex, again.json().get("lastSnapshotIndex").asLong());
            assertTrue(awaitMetricAbove(tenant, "tally_snapshot_last_index", again.json().get("appliedIndex").asLong()) > snapshotIndex);
            assertEquals(2, metric(tenant, "tally_snapshots_written_total"));
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
            assertTrue(Servers.client(server).get("/metrics").body().lines().noneMatch(l -> l.startsWith("tally_snapshot")),
                "no snapshot meters without snapshots");
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

    /** Polls {@code name} until it exceeds {@code floor} (10 s at most): the snapshot is written on its own thread. */
    private static long awaitMetricAbove(final TallyClient client, final String name, final long floor) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + 10_000_000_000L;
        double value = metric(client, name);
        while (value <= floor && System.nanoTime() < deadlineNs)
        {
            Thread.sleep(10);
            value = metric(client, name);
        }
        assertTrue(value > floor, name + " still " + value + " after 10 s, expected above " + floor);
        return (long)value;
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
