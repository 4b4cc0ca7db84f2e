package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.gateway.http.HttpLimits;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.db.EmbeddedDatabase;
import dev.tally.snapshotter.SnapshotConfig;
import dev.tally.snapshotter.SnapshotDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snapshots through the real server and command line: a snapshot taken on request while serving, a
 * restart that starts from it and replays stored replies byte for byte, {@code tally replay} from scratch
 * and from the snapshot printing the same state hash, and {@code tally snapshot} offline.
 */
class SnapshotIT
{
    private static final String TRY = TallyClient.TRY;
    /** The command line's ledger: the snapshot is only valid for the same. */
    private static final LedgerConfig LEDGER = Servers.COMMAND_LINE_LEDGER;
    /** No snapshot at stop either: these tests restart from the one taken in the middle. */
    private static final SnapshotConfig ON_REQUEST_ONLY = new SnapshotConfig(true, Long.MAX_VALUE, Long.MAX_VALUE / 2_000_000, 3, false);
    private static final SnapshotConfig ON_REQUEST_AND_AT_STOP = new SnapshotConfig(true, Long.MAX_VALUE, Long.MAX_VALUE / 2_000_000, 3, true);

    @TempDir
    Path dataDir;

    private final Map<String, Reply> stored = new LinkedHashMap<>();
    private final Map<String, String> bodies = new LinkedHashMap<>();

    @Test
    void shouldRestartFromASnapshotIntoTheSameStateAndReplayEveryStoredReplyByteForByte() throws Exception
    {
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, Servers.apiKeys(), Servers.IO_THREADS,
            LEDGER, Servers.withoutTicks(), HttpLimits.defaults());
        final long snapshotIndex = runWithASnapshotInTheMiddle(config, 20);

        final TallyCli.Run fromScratch = TallyCli.run("replay", "--data-dir", dataDir.toString(), "--format", "json");
        final TallyCli.Run fromSnapshot = TallyCli.run("replay", "--data-dir", dataDir.toString(), "--format", "json", "--from-snapshot");
        assertEquals(0, fromScratch.exitCode(), fromScratch.output());
        assertEquals(0, fromScratch.snapshotIndex());
        assertEquals(snapshotIndex, fromSnapshot.snapshotIndex(), fromSnapshot.output());
        assertEquals(fromScratch.stateHash(), fromSnapshot.stateHash(), "replay from scratch and from the snapshot");

        try (TallyServer second = new TallyServer(config, ON_REQUEST_ONLY))
        {
            assertEquals(snapshotIndex, second.snapshotter().writtenIndex(), "started from the snapshot");
            assertEquals(22, second.replayResult().deliveredCount(), "the snapshot's own record, then the 21 commands after it");
            final TallyClient client = Servers.client(second);
            for (final Map.Entry<String, Reply> first : stored.entrySet())
            {
                final Reply retry = client.post("/v1/transfers", first.getKey(), bodies.get(first.getKey()));
                assertEquals(first.getValue().status(), retry.status(), first.getKey());
                assertTrue(retry.replayed(), () -> first.getKey() + " replayed after the restart: " + retry);
                assertEquals(first.getValue().body(), retry.body(), () -> first.getKey() + " replays byte for byte");
            }
            assertEquals(201, client.transfer("new-after-restart", 1, 2, "1.00", TRY, null).status());
        }

        final TallyCli.Run offline = TallyCli.run("snapshot", "--data-dir", dataDir.toString());
        assertEquals(0, offline.exitCode(), offline.output());
        final TallyCli.Run scratch = TallyCli.run("replay", "--data-dir", dataDir.toString(), "--format", "json");
        final TallyCli.Run snapshot = TallyCli.run("replay", "--data-dir", dataDir.toString(), "--format", "json", "--from-snapshot");
        assertEquals(scratch.stateHash(), snapshot.stateHash(), "after an offline snapshot");
        assertTrue(snapshot.snapshotIndex() > snapshotIndex, "replay starts from the offline snapshot: " + snapshot.output());
    }

    @Test
    void shouldRestartFromASnapshotWithThePostgresReadModelAndVerifyFromIt() throws Exception
    {
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, Servers.apiKeys(), Servers.IO_THREADS,
            LEDGER, Servers.withoutTicks(), HttpLimits.defaults(), null, true);
        final long snapshotIndex = runWithASnapshotInTheMiddle(config, 10);
        try (TallyServer second = new TallyServer(config, ON_REQUEST_ONLY))
        {
            // The writer drained at close, so its watermark is past the snapshot: the snapshot is usable.
            assertEquals(snapshotIndex, second.snapshotter().writtenIndex(), "started from the snapshot");
            transfers(Servers.client(second), "second-", 5);
        }
        final TallyCli.Run verify = TallyCli.run("verify", "--data-dir", dataDir.toString(), "--from-snapshot");
        assertEquals(0, verify.exitCode(), verify.output());
        assertTrue(verify.output().contains("started from the snapshot at journal index " + snapshotIndex), verify.output());

        // Pruning is allowed while PostgreSQL holds everything up to a kept snapshot...
        final TallyCli.Run prune = TallyCli.run("snapshot", "--data-dir", dataDir.toString(), "--prune-journal");
        assertEquals(0, prune.exitCode(), prune.output());

        // Retention keeps the newest snapshot a start may load: with the watermark back at the middle snapshot (a
        // writer stalled there), an offline snapshot keeping one keeps that one too, or the pruned journal could not
        // bring the next start anywhere.
        try (TallyServer third = new TallyServer(config, ON_REQUEST_ONLY))
        {
            transfers(Servers.client(third), "third-", 3);
        }
        setWatermark(snapshotIndex);
        final TallyCli.Run retained = TallyCli.run("snapshot", "--data-dir", dataDir.toString(), "--snapshots-retained", "1");
        assertEquals(0, retained.exitCode(), retained.output());
        final java.util.List<SnapshotDirectory.SnapshotFile> kept =
            SnapshotDirectory.forReading(SnapshotDirectory.inDataDir(dataDir)).list();
        assertEquals(2, kept.size(), kept::toString);
        assertEquals(snapshotIndex, kept.get(1).journalIndex(), "the snapshot at the watermark is kept");

        // ... and pruning is refused once the watermark is below every kept snapshot (say, a database restored from
        // an older backup): the next start could use no snapshot and would need the journal from its start.
        setWatermark(1);
        final TallyCli.Run refused = TallyCli.run("snapshot", "--data-dir", dataDir.toString(), "--prune-journal");
        assertEquals(4, refused.exitCode(), refused.output());
        assertTrue(refused.output().contains("journal NOT pruned"), refused.output());
    }

    /** Moves the stopped server's PostgreSQL watermark, as a stalled writer or a restored backup would leave it. */
    private void setWatermark(final long journalIndex) throws Exception
    {
        try (EmbeddedDatabase pg = EmbeddedDatabase.start(dataDir.resolve("pg"));
             Database database = Database.connect(pg);
             java.sql.Connection c = database.dataSource().getConnection();
             java.sql.Statement update = c.createStatement())
        {
            update.executeUpdate("UPDATE ledger_watermark SET journal_index = " + journalIndex);
        }
    }

    @Test
    void shouldWriteALastSnapshotAtAGracefulStopSoTheNextStartReplaysNothingAfterIt() throws Exception
    {
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, Servers.apiKeys(), Servers.IO_THREADS,
            LEDGER, Servers.withoutTicks(), HttpLimits.defaults());
        final TallyServer server = new TallyServer(config, ON_REQUEST_AND_AT_STOP);
        try (server)
        {
            final TallyClient client = Servers.client(server);
            assertEquals(201, client.createAccount(1, TRY, false).status());
            assertEquals(201, client.createAccount(2, TRY, true).status());
            assertEquals(201, client.createAccount(3, TRY, true).status());
            transfers(client, "stop-", 10);
        }
        // Stopped: the ledger is no longer touched by any thread.
        final long stateHash = server.ledger().stateHash();
        final long lastIndex = server.ledger().lastJournalIndex();

        try (TallyServer second = new TallyServer(config, ON_REQUEST_AND_AT_STOP))
        {
            assertEquals(lastIndex, second.snapshotter().writtenIndex(), "started from the snapshot written at stop");
            assertEquals(1, second.replayResult().deliveredCount(), "only the snapshot's own record is read back");
            assertEquals(stateHash, second.ledger().stateHash());
            assertEquals(409, send(Servers.client(second), "stop-again", TallyClient.transferJson(1, 2, "1.00", TRY, "stop-ref-0")).status(),
                "the references of the first run came back with the snapshot");
        }
    }

    /**
     * Three accounts and {@code transfers} transfers, a snapshot on request, then as many transfers again
     * and a stored rejection (the restart must replay these from the journal); the server then closes.
     *
     * @return the snapshot's journal index.
     */
    private long runWithASnapshotInTheMiddle(final ServerConfig config, final int transfers) throws Exception
    {
        try (TallyServer server = new TallyServer(config, ON_REQUEST_ONLY))
        {
            final TallyClient client = Servers.client(server);
            assertEquals(201, client.createAccount(1, TRY, false).status());
            assertEquals(201, client.createAccount(2, TRY, true).status());
            assertEquals(201, client.createAccount(3, TRY, true).status());
            transfers(client, "before-", transfers);
            server.snapshotter().requestNow();
            final long snapshotIndex = awaitSnapshot(server);
            transfers(client, "after-", transfers);
            assertEquals(422, send(client, "overdraw", TallyClient.transferJson(2, 3, "1000000.00", TRY, null)).status());
            return snapshotIndex;
        }
    }

    private void transfers(final TallyClient client, final String prefix, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            final Reply reply = send(client, prefix + i, TallyClient.transferJson(1, 2 + i % 2, (i + 1) + ".50", TRY, prefix + "ref-" + i));
            assertEquals(201, reply.status(), reply::toString);
        }
    }

    private Reply send(final TallyClient client, final String key, final String body)
    {
        final Reply reply = client.post("/v1/transfers", key, body);
        stored.put(key, reply);
        bodies.put(key, body);
        return reply;
    }

    private long awaitSnapshot(final TallyServer server) throws IOException, InterruptedException
    {
        final SnapshotDirectory snapshots = SnapshotDirectory.forReading(SnapshotDirectory.inDataDir(dataDir));
        final long deadlineNs = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadlineNs)
        {
            if (!snapshots.list().isEmpty())
            {
                return snapshots.list().get(0).journalIndex();
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no snapshot written within 10 s, snapshotter at " + server.snapshotter().writtenIndex());
    }
}
