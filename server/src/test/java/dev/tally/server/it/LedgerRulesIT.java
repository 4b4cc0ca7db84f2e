package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.server.cli.TallyMain;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rules a journal was decided under travel with its data folder. A key reused after its retention window is a
 * new transfer; a restart, or an offline replay, under the default 24-hour window would decide the same journal
 * differently — the second transfer a replay of the first, acknowledged money gone from the balance. Real processes,
 * a real journal, the real command line: the first start records its rules, later starts and tools take them without
 * being told, and a start asking for other rules is refused before it touches anything.
 */
@Timeout(300)
class LedgerRulesIT
{
    private static final String TRY = TallyClient.TRY;
    private static final List<String> SHORT_KEYS = List.of("--key-retention-ms", "1000");

    @TempDir
    Path dataDir;

    @TempDir
    Path logDir;

    @Test
    void shouldDecideTheJournalUnderTheRulesItWasWrittenUnderAfterARestart() throws Exception
    {
        final String replayedHash;
        try (TallyProcess first = TallyProcess.start(dataDir, "sync", logDir.resolve("first.log"), SHORT_KEYS, Map.of()))
        {
            final TallyClient client = first.client();
            assertEquals(201, client.createAccount(1, TRY, false).status());
            assertEquals(201, client.createAccount(2, TRY, false).status());
            assertEquals(201, client.transfer("pay-1", 1, 2, "10.50", TRY, null).status());
            Thread.sleep(1_500);   // past the key's window: the same key is a new intent now
            // ... once it is forgotten: by a tick (one a second, so one may or may not have come in the window) or by
            // a unit start, which forgets the two oldest keys past their window. The accounts' keys are older than
            // pay-1's, so one more keyed command forgets them and the retry's own start reaches pay-1, tick or not.
            assertEquals(201, client.createAccount(3, TRY, false).status());
            final Reply again = client.transfer("pay-1", 1, 2, "10.50", TRY, null);
            assertEquals(201, again.status(), again.toString());
            assertTrue(again.header("Idempotent-Replayed") == null, "applied, not replayed: " + again);
            assertEquals("21.00", client.accountJson(2).get("posted").text());
            first.stop();
        }

        // An offline replay without the flag takes the recorded window, and agrees with the one told it.
        final TallyCli.Run recorded = TallyCli.run("replay", "--data-dir", dataDir.toString(), "--format", "json");
        assertEquals(0, recorded.exitCode(), recorded.output());
        final TallyCli.Run told = TallyCli.run("replay", "--data-dir", dataDir.toString(), "--format", "json", "--key-retention-ms", "1000");
        assertEquals(0, told.exitCode(), told.output());
        assertEquals(told.stateHash(), recorded.stateHash());
        replayedHash = recorded.stateHash();

        // Other rules are refused, by the tools and by serve, naming what differs; nothing is started.
        final TallyCli.Run otherReplay = TallyCli.run("replay", "--data-dir", dataDir.toString(), "--key-retention-ms", "86400000");
        assertEquals(TallyMain.EXIT_USAGE, otherReplay.exitCode(), otherReplay.output());
        assertTrue(otherReplay.output().contains("keyRetentionMs: 1000 recorded, 86400000 asked"), otherReplay.output());
        final Path refusedLog = logDir.resolve("refused.log");
        final Process refused = TallyProcess.spawn(dataDir, "sync", refusedLog, List.of(), List.of("--reversal-window-ms", "5000"), Map.of());
        assertTrue(refused.waitFor(60, TimeUnit.SECONDS), "refused at once");
        assertEquals(TallyMain.EXIT_USAGE, refused.exitValue(), TallyProcess.read(refusedLog));
        assertTrue(TallyProcess.read(refusedLog).contains("reversalWindowMs: 1000 recorded, 5000 asked"), TallyProcess.read(refusedLog));

        // A restart without the flag decides under the recorded window: both transfers are still there.
        try (TallyProcess second = TallyProcess.start(dataDir, "sync", logDir.resolve("second.log")))
        {
            final TallyClient client = second.client();
            assertEquals("21.00", client.accountJson(2).get("posted").text(), "the acknowledged second transfer survives the restart");
            final Matcher started = Pattern.compile("state hash ([0-9a-f]+)").matcher(second.log());
            assertTrue(started.find(), second.log());
            assertEquals(Long.parseUnsignedLong(replayedHash, 16), Long.parseUnsignedLong(started.group(1), 16),
                "the server rebuilt what the offline replay did");
            second.stop();
        }
        assertEquals(0, TallyProcess.verify(dataDir, logDir.resolve("verify.log")), TallyProcess.read(logDir.resolve("verify.log")));
    }
}
