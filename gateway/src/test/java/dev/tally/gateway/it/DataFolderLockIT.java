package dev.tally.gateway.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.gateway.cli.TallyMain;
import dev.tally.gateway.server.TallyServer;
import dev.tally.persistence.db.DataFolderInUseException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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

    private String postmasterPid() throws Exception
    {
        return Files.readAllLines(dataDir.resolve("pg").resolve("postmaster.pid"), StandardCharsets.US_ASCII).get(0).trim();
    }
}
