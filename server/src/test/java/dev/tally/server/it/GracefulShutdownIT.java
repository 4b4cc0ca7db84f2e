package dev.tally.server.it;

import dev.tally.gateway.http.HttpLimits;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.LedgerLimits;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.db.EmbeddedDatabase;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGTERM with requests in flight, on a real {@code tally serve} process with its embedded PostgreSQL:
 * the process stops reading, answers what it took, closes the journal and the database and exits 0.
 * After a restart every acknowledged transfer is there, and {@code tally verify} finds PostgreSQL equal
 * to the journal. A second SIGTERM during the stop exits at once (143) and loses nothing acknowledged
 * either. In process, a graceful stop leaves PostgreSQL caught up with the journal by itself: the writer is
 * drained before the database closes, not left for the next start's replay or {@code tally verify} to finish.
 */
class GracefulShutdownIT
{
    private static final String TRY = TallyClient.TRY;
    private static final long FUNDING = 1;
    private static final long FIRST_CUSTOMER = 2;
    private static final int CUSTOMERS = 4;
    private static final int LOAD_THREADS = 3;
    private static final int ACKS_BEFORE_STOP = 200;
    private static final long LOAD_TIMEOUT_MS = 60_000;

    @TempDir
    Path dataDir;

    @TempDir
    Path logDir;

    /** An acknowledged transfer: its key and the 201 body. */
    private record Acknowledged(String key, Json body)
    {
    }

    private final Queue<Acknowledged> acknowledged = new ConcurrentLinkedQueue<>();
    private final Queue<String> unexpected = new ConcurrentLinkedQueue<>();
    private final AtomicInteger inFlightAtStop = new AtomicInteger();

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldDrainOnSigtermSoThatEveryAcknowledgedTransferSurvivesInTheJournalAndPostgres() throws Exception
    {
        final String log = loadThenSigterm("graceful", 1);
        assertTrue(log.contains("tally stopped at journal index"), log);
        restartAndCheckEveryAcknowledgedTransfer("after-graceful");
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldExitAtOnceOnASecondSigtermAndStillKeepEveryAcknowledgedTransfer() throws Exception
    {
        final String log = loadThenSigterm("forced", 2);
        assertTrue(log.contains("second stop signal"), log);
        restartAndCheckEveryAcknowledgedTransfer("after-forced");
    }

    /**
     * A burst of transfers (two of the largest batches, applied and answered just before the stop), then
     * {@link TallyServer#close()}. The writer is still busy with them when the stop begins (and under async durability
     * takes only what a force made stable, the last force being the stop's own), so they reach PostgreSQL during the stop
     * or not at all. PostgreSQL is then opened directly: no restart and no {@code tally verify} has caught it up from
     * the journal.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldDrainThePostgresWriterOnAGracefulStop() throws Exception
    {
        final int batches = 2;
        final int perBatch = LedgerLimits.BATCH_OPERATIONS_MAX;
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, Servers.apiKeys(), Servers.IO_THREADS,
            LedgerConfig.small(), Servers.withoutTicks(), HttpLimits.defaults(), null, true);
        final TallyServer server = new TallyServer(config);
        try (server)
        {
            final TallyClient client = Servers.client(server);
            openAccounts(client);
            for (int b = 0; b < batches; b++)
            {
                final StringBuilder batch = new StringBuilder("{\"operations\":[");
                for (int i = 0; i < perBatch; i++)
                {
                    batch.append(i == 0 ? "" : ",").append("{\"op\":\"transfer\",\"idempotencyKey\":\"burst-").append(b).append('-')
                        .append(i).append("\",\"body\":").append(TallyClient.transferJson(FUNDING, FIRST_CUSTOMER + i % CUSTOMERS, "1.00", TRY, null))
                        .append('}');
                }
                final Reply burst = client.batch(batch.append("]}").toString());
                assertEquals(200, burst.status(), burst::toString);
                assertEquals(perBatch, burst.body().split("\"status\":201", -1).length - 1, "every transfer of the batch applied");
            }
        }
        final long lastIndex = server.ledger().lastJournalIndex();   // stopped: no thread touches the ledger any more

        try (EmbeddedDatabase pg = EmbeddedDatabase.start(dataDir.resolve("pg"));
             Database database = Database.connect(pg);
             java.sql.Connection connection = database.dataSource().getConnection();
             java.sql.Statement query = connection.createStatement())
        {
            try (java.sql.ResultSet watermark = query.executeQuery("SELECT journal_index FROM ledger_watermark"))
            {
                assertTrue(watermark.next());
                assertEquals(lastIndex, watermark.getLong(1), "the watermark reached the journal's last index at the stop");
            }
            try (java.sql.ResultSet count = query.executeQuery("SELECT count(*) FROM transfers"))
            {
                assertTrue(count.next());
                assertEquals((long)batches * perBatch, count.getLong(1), "every transfer of the burst is in PostgreSQL");
            }
        }
    }

    /**
     * Starts a server, loads it, sends {@code signals} SIGTERMs once enough transfers are acknowledged and
     * checks the exit status: 0 for a graceful stop, 143 when a second signal cut it short.
     *
     * @return the process's output.
     */
    private String loadThenSigterm(final String name, final int signals) throws Exception
    {
        try (TallyProcess process = TallyProcess.start(dataDir, "async", logDir.resolve(name + ".log")))
        {
            openAccounts(process.client());
            final List<Thread> load = startLoad(process.client(), name);
            awaitAcks(process);
            process.signalTerm();
            if (signals == 2)
            {
                Thread.sleep(20); // the stop is under way: stopping the embedded PostgreSQL alone takes far longer
                process.signalTerm();
            }
            final int status = process.awaitExit();
            joinLoad(load);
            assertEquals(signals == 1 ? 0 : 143, status, () -> "exit status after " + signals + " SIGTERM\n" + process.logTail());
            assertTrue(unexpected.isEmpty(), () -> "unexpected replies: " + unexpected);
            return process.log();
        }
    }

    private void restartAndCheckEveryAcknowledgedTransfer(final String name) throws Exception
    {
        try (TallyProcess restarted = TallyProcess.start(dataDir, "async", logDir.resolve(name + ".log")))
        {
            final TallyClient client = restarted.client();
            assertFalse(acknowledged.isEmpty());
            for (final Acknowledged ack : acknowledged)
            {
                final Reply read = client.transferById(ack.body().get("id").text());
                assertEquals(200, read.status(), () -> "acknowledged transfer " + ack.key() + " lost: " + read);
                assertEquals(ack.body().get("amount").text(), read.json().get("amount").text(), ack.key());
            }
            restarted.stop();
        }
        final Path verifyLog = logDir.resolve(name + "-verify.log");
        final int verified = TallyProcess.verify(dataDir, verifyLog);
        assertEquals(0, verified, () -> "tally verify: PostgreSQL differs from the journal\n" + read(verifyLog));
        System.out.printf("%s: %d transfers acknowledged, %d requests cut off by the stop%n", name, acknowledged.size(), inFlightAtStop.get());
    }

    private static void openAccounts(final TallyClient client)
    {
        assertEquals(201, client.createAccount(FUNDING, TRY, false).status());
        for (long id = FIRST_CUSTOMER; id < FIRST_CUSTOMER + CUSTOMERS; id++)
        {
            assertEquals(201, client.createAccount(id, TRY, true).status());
        }
    }

    /** Transfers from the funding account (they always succeed) until the server stops answering. */
    private List<Thread> startLoad(final TallyClient client, final String prefix)
    {
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < LOAD_THREADS; t++)
        {
            final String keyPrefix = prefix + "-" + t;
            final long customer = FIRST_CUSTOMER + t % CUSTOMERS;
            threads.add(new Thread(() ->
            {
                for (int n = 0; n < 1_000_000; n++)
                {
                    final String key = keyPrefix + "-" + n;
                    final Reply reply;
                    try
                    {
                        reply = client.transfer(key, FUNDING, customer, "1.00", TRY, "ref-" + key);
                    }
                    catch (final UncheckedIOException ex)
                    {
                        inFlightAtStop.incrementAndGet();
                        return;
                    }
                    if (reply.status() != 201)
                    {
                        unexpected.add(key + ": " + reply);
                        return;
                    }
                    acknowledged.add(new Acknowledged(key, reply.json()));
                }
            }, "load-" + keyPrefix));
        }
        threads.forEach(Thread::start);
        return threads;
    }

    private void awaitAcks(final TallyProcess process) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LOAD_TIMEOUT_MS);
        while (acknowledged.size() < ACKS_BEFORE_STOP)
        {
            if (System.nanoTime() > deadlineNs || !unexpected.isEmpty())
            {
                throw new AssertionError("only " + acknowledged.size() + " acknowledged; unexpected " + unexpected + "\n" + process.logTail());
            }
            Thread.sleep(5);
        }
    }

    private static void joinLoad(final List<Thread> load) throws InterruptedException
    {
        for (final Thread thread : load)
        {
            thread.join(TallyClient.REQUEST_TIMEOUT.toMillis() + 5_000);
            assertFalse(thread.isAlive(), thread.getName() + " did not stop after the server did");
        }
    }

    private static String read(final Path log)
    {
        try
        {
            return Files.readString(log);
        }
        catch (final java.io.IOException ex)
        {
            return "(no log: " + ex + ")";
        }
    }
}
