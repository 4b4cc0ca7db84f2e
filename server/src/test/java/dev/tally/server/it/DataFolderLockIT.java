package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.server.cli.TallyMain;
import dev.tally.gateway.http.HttpLimits;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.persistence.db.DataFolderInUseException;
import dev.tally.snapshotter.LedgerRulesFile;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One process per data folder: while {@code tally serve} runs, a second one on the same folder, a server in another
 * JVM, {@code tally verify} and {@code tally snapshot} are refused at once with a message naming the folder and the
 * holder, before touching the journal or PostgreSQL; the first keeps serving, with the PostgreSQL it started. Real
 * processes and real file locks.
 */
@Timeout(300)
class DataFolderLockIT
{
    private static final String TRY = TallyClient.TRY;

    @TempDir
    Path dataDir;

    @TempDir
    Path logDir;

    @Test
    void shouldRefuseEverySecondProcessOnTheFolderWhileTheFirstKeepsServing() throws Exception
    {
        final Path folder = dataDir.toRealPath();
        try (TallyProcess first = TallyProcess.start(dataDir, "async", logDir.resolve("first.log")))
        {
            final TallyClient client = first.client();
            assertEquals(201, client.createAccount(1, TRY, false).status());
            assertEquals(201, client.createAccount(2, TRY, false).status());
            final String postmaster = postmasterPid();
            final String inUse = "data folder " + folder + " is in use by another process (pid " + first.pid() + ", tally serve";

            final Path secondLog = logDir.resolve("second.log");
            final Process second = TallyProcess.spawn(dataDir, "async", secondLog, List.of(), List.of(), Map.of());
            assertTrue(second.waitFor(60, TimeUnit.SECONDS), "a second tally serve fails fast");
            assertEquals(TallyMain.EXIT_DATA_FOLDER_IN_USE, second.exitValue(), TallyProcess.read(secondLog));
            assertTrue(TallyProcess.read(secondLog).contains("tally serve: " + inUse), TallyProcess.read(secondLog));

            // This JVM is a third process: its lock attempts are real ones against the first's.
            final DataFolderInUseException refused = assertThrows(DataFolderInUseException.class,
                () -> new TallyServer(Servers.config(dataDir)).close());
            assertTrue(refused.getMessage().startsWith(inUse), refused.getMessage());
            for (final String command : List.of("verify", "snapshot"))
            {
                final TallyCli.Run run = TallyCli.run(command, "--data-dir", dataDir.toString());
                assertEquals(TallyMain.EXIT_DATA_FOLDER_IN_USE, run.exitCode(), run.output());
                assertTrue(run.output().contains("tally " + command + ": " + inUse), run.output());
            }
            final TallyCli.Run replay = TallyCli.run("replay", "--data-dir", dataDir.toString(), "--format", "json");
            assertEquals(0, replay.exitCode(), "replay only reads: it takes no lock\n" + replay.output());

            assertEquals(201, client.transfer("after-the-refusals", 1, 2, "1.00", TRY, null).status());
            first.awaitWriterCaughtUp();
            assertEquals(200, client.get("/v1/accounts/2/entries").status(), "its PostgreSQL still answers");
            assertEquals(postmaster, postmasterPid(), "and is the one it started");
            first.stop();
        }

        final TallyCli.Run verify = TallyCli.run("verify", "--data-dir", dataDir.toString());
        assertEquals(0, verify.exitCode(), "stopped, the folder is free again\n" + verify.output());
    }

    @Test
    void shouldRefuseASecondServerInTheSameProcess() throws Exception
    {
        try (TallyServer first = Servers.start(dataDir))
        {
            final DataFolderInUseException refused = assertThrows(DataFolderInUseException.class, () -> Servers.start(dataDir).close());
            assertTrue(refused.getMessage().startsWith("data folder " + dataDir.toRealPath() + " is in use by this process (tally serve)"),
                refused.getMessage());
            assertEquals(201, Servers.client(first).createAccount(1, TRY, false).status(), "the first keeps serving");
        }
        try (TallyServer again = Servers.start(dataDir))
        {
            assertEquals(200, Servers.client(again).account(1).status(), "released at close");
        }
    }

    /**
     * A taken port is found before anything slow starts (the embedded PostgreSQL's initdb, migrations, the journal's
     * replay): the operator is told in one line at once, and the folder is left as it was.
     */
    @Test
    void shouldRefuseATakenPortBeforeStartingAnything() throws Exception
    {
        final Set<Long> threadsBefore = liveThreadIds();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final TallyCli.Run serve = TallyCli.run("serve", "--host", "127.0.0.1", "--port", Integer.toString(taken.getLocalPort()),
                "--data-dir", dataDir.toString(), "--api-key", "t:" + Servers.TENANT_KEY, "--tick-interval-ms", "60000");
            assertEquals(1, serve.exitCode(), serve.output());
            assertTrue(serve.output().contains("tally serve: cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": Address already in use"),
                serve.output());
        }
        assertTrue(Files.notExists(dataDir.resolve("pg")), "no PostgreSQL was set up for a start that could not listen");
        assertTrue(Files.notExists(dataDir.resolve("journal")), "nor a journal opened");
        assertNoServerThreadsLeft(threadsBefore);
    }

    /**
     * A start that fails half-way — here PostgreSQL, started to read its watermark, holds commands the journal does not
     * (the journal was deleted) — must undo the steps before it: the embedded PostgreSQL stopped (not left running as an
     * orphan that holds the folder's database), the stage and event-loop threads ended, the folder's lock released, and
     * the operator told why.
     */
    @Test
    void shouldUndoAStartRefusedAfterItsPostgresqlStarted() throws Exception
    {
        try (TallyServer first = Servers.start(dataDir))
        {
            assertEquals(201, Servers.client(first).createAccount(1, TRY, false).status());
        }
        try (java.util.stream.Stream<Path> journal = Files.walk(dataDir.resolve("journal")))
        {
            journal.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        Files.delete(LedgerRulesFile.inDataDir(dataDir));   // with its rules: this start asks for the test processes' capacities
        final Set<Long> threadsBefore = liveThreadIds();
        final TallyCli.Run serve = TallyCli.run("serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir.toString(),
            "--api-key", "t:" + Servers.TENANT_KEY, "--tick-interval-ms", "60000");
        assertEquals(TallyMain.EXIT_JOURNAL_DAMAGED, serve.exitCode(), serve.output());
        assertTrue(serve.output().contains("but the journal can be read only up to index 0"), serve.output());
        assertTrue(Files.notExists(dataDir.resolve("pg").resolve("postmaster.pid")), "PostgreSQL was started, and stopped again");
        assertNoServerThreadsLeft(threadsBefore);
        try (dev.tally.persistence.db.DataFolderLock released = dev.tally.persistence.db.DataFolderLock.acquire(dataDir, "test"))
        {
            assertTrue(released != null, "the folder's lock was released");
        }
    }

    private static void assertNoServerThreadsLeft(final Set<Long> threadsBefore) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Set<String> leftOver = threadsStartedSince(threadsBefore);
        while (!leftOver.isEmpty() && System.nanoTime() < deadline)
        {
            Thread.sleep(50);
            leftOver = threadsStartedSince(threadsBefore);
        }
        assertTrue(leftOver.isEmpty(), "threads the failed start left running: " + leftOver);
    }

    /**
     * A start that fails before its ledger is built (here its snapshot folder cannot be opened; a heap too small for
     * the tables it asked for fails there too) records no ledger rules: the next start, with other rules, is not
     * refused for them.
     */
    @Test
    void shouldRecordNoRulesForAStartThatFailsBeforeItsLedgerIsBuilt() throws Exception
    {
        final Path snapshots = dataDir.resolve("snapshots");
        Files.writeString(snapshots, "not a folder");
        final ServerConfig big = Servers.config(dataDir);
        assertThrows(Exception.class, () -> new TallyServer(big).close());
        assertTrue(Files.notExists(LedgerRulesFile.inDataDir(dataDir)), "no rules recorded by the failed start");

        Files.delete(snapshots);
        final ServerConfig other = new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, Servers.apiKeys(), Servers.IO_THREADS,
            big.ledger().withRetention(5_000, 5_000, 5_000), Servers.withoutTicks(), HttpLimits.defaults());
        try (TallyServer again = new TallyServer(other))
        {
            assertEquals(other.ledger(), again.ledger().config());
            assertEquals(other.ledger(), LedgerRulesFile.read(dataDir), "the rules of the start that succeeded");
        }
    }

    private static Set<Long> liveThreadIds()
    {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getId).collect(Collectors.toSet());
    }

    /** Threads of a server's own (stages, event loops, PostgreSQL pools and readers) started after {@code before}. */
    private static Set<String> threadsStartedSince(final Set<Long> before)
    {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.isAlive() && !before.contains(t.getId()))
            .map(Thread::getName)
            .filter(name -> name.startsWith("tally-") || name.contains("EventLoopGroup") || name.startsWith("HikariPool"))
            .collect(Collectors.toSet());
    }

    private String postmasterPid() throws Exception
    {
        return Files.readAllLines(dataDir.resolve("pg").resolve("postmaster.pid"), StandardCharsets.US_ASCII).get(0).trim();
    }
}
