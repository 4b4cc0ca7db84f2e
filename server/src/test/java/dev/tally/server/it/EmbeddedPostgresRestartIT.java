package dev.tally.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGKILL of the embedded PostgreSQL's postmaster under load, on a real {@code tally serve} process: transfers keep being
 * acknowledged, {@code /ready} answers 503 naming the read model while it is down ({@code /health} stays 200), the
 * database comes back by itself on the same port, the writer catches up, and after a stop {@code tally verify} finds
 * PostgreSQL equal to the journal.
 */
class EmbeddedPostgresRestartIT
{
    private static final String TRY = TallyClient.TRY;
    private static final int ACKS_BEFORE_KILL = 100;
    private static final int ACKS_AFTER_RESTART = 100;
    private static final long NOT_READY_WAIT_MS = 10_000;
    private static final long BACK_WAIT_MS = 30_000;
    /** Between two transfers of the load: a steady few hundred a second, leaving the two cores to the restart. */
    private static final long LOAD_PAUSE_MS = 2;

    @TempDir
    Path dataDir;

    @TempDir
    Path logDir;

    private final AtomicBoolean loading = new AtomicBoolean(true);
    private final AtomicInteger acknowledged = new AtomicInteger();
    private final Queue<String> unexpected = new ConcurrentLinkedQueue<>();

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void shouldRestartAKilledEmbeddedPostgresAndConvergeWhileTakingWrites() throws Exception
    {
        try (TallyProcess tally = TallyProcess.start(dataDir, "async", logDir.resolve("serve.log")))
        {
            final TallyClient client = tally.client();
            assertEquals(201, client.createAccount(1, TRY, false).status());
            assertEquals(201, client.createAccount(2, TRY, true).status());
            final Thread load = new Thread(() -> load(tally.client()), "load");
            load.start();
            try
            {
                awaitAcknowledged(ACKS_BEFORE_KILL, tally);
                final long killedPid = postmasterPid();
                ProcessHandle.of(killedPid).orElseThrow().destroyForcibly();   // SIGKILL, as kill -9
                final int acknowledgedAtKill = acknowledged.get();

                final Reply notReady = awaitReady(client, 503, NOT_READY_WAIT_MS, tally);
                assertEquals("service-unavailable", notReady.problemSlug(), notReady::toString);
                assertTrue(notReady.json().get("detail").text().contains("PostgreSQL read model is down"), notReady::toString);
                assertEquals(200, client.get("/health").status(), "liveness stays: restarting Tally would not help");

                awaitReady(client, 200, BACK_WAIT_MS, tally);
                assertNotEquals(killedPid, postmasterPid(), "a new postmaster");
                assertTrue(ProcessHandle.of(postmasterPid()).map(ProcessHandle::isAlive).orElse(false));
                assertTrue(client.get("/health").body().contains("\"readModel\":\"UP\""));
                awaitAcknowledged(acknowledgedAtKill + ACKS_AFTER_RESTART, tally);
                assertTrue(acknowledged.get() > acknowledgedAtKill, "writes were acknowledged across the outage");

                final String metrics = client.get("/metrics").body();
                assertEquals(1.0, TallyProcess.gauge(metrics, "tally_pg_embedded_deaths_total"), metrics);
                assertEquals(1.0, TallyProcess.gauge(metrics, "tally_pg_embedded_restarts_total"), metrics);
                assertEquals(1.0, TallyProcess.gauge(metrics, "tally_pg_embedded_up"), metrics);
            }
            finally
            {
                loading.set(false);
                load.join();
            }
            assertTrue(unexpected.isEmpty(), () -> "every transfer acknowledged with 201: " + unexpected);
            tally.awaitWriterCaughtUp();
            tally.stop();
            assertTrue(tally.log().contains("embedded PostgreSQL restarted"), tally.logTail());
        }
        final Path verifyLog = logDir.resolve("verify.log");
        assertEquals(0, TallyProcess.verify(dataDir, verifyLog), () -> "tally verify: " + TallyProcess.read(verifyLog));
    }

    /** Transfers of 1.00 from account 1 to account 2 until told to stop, each with its own key. */
    private void load(final TallyClient client)
    {
        for (int i = 0; loading.get(); i++)
        {
            try
            {
                final Reply reply = client.transfer("restart-" + i, 1, 2, "1.00", TRY, null);
                if (reply.status() == 201)
                {
                    acknowledged.incrementAndGet();
                }
                else
                {
                    unexpected.add(reply.toString());
                }
                Thread.sleep(LOAD_PAUSE_MS);
            }
            catch (final UncheckedIOException | InterruptedException ex)
            {
                unexpected.add(ex.toString());
                return;
            }
        }
    }

    private void awaitAcknowledged(final int count, final TallyProcess tally) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (acknowledged.get() < count)
        {
            assertTrue(unexpected.isEmpty(), () -> "unexpected replies: " + unexpected);
            assertTrue(System.nanoTime() < deadlineNs, () -> "only " + acknowledged + " of " + count + " acknowledged\n" + tally.logTail());
            Thread.sleep(10);
        }
    }

    private static Reply awaitReady(final TallyClient client, final int status, final long waitMs, final TallyProcess tally)
        throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        Reply last = client.get("/ready");
        while (last.status() != status)
        {
            final Reply seen = last;
            assertTrue(System.nanoTime() < deadlineNs, () -> "/ready did not answer " + status + " within " + waitMs + " ms (last " +
                seen + ")\n" + tally.logTail());
            Thread.sleep(10);
            last = client.get("/ready");
        }
        return last;
    }

    /** @return the pid of the embedded postmaster: the first line of {@code postmaster.pid} in its data directory. */
    private long postmasterPid()
    {
        try
        {
            return Long.parseLong(Files.readAllLines(dataDir.resolve("pg").resolve("postmaster.pid"), StandardCharsets.US_ASCII).get(0).trim());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
