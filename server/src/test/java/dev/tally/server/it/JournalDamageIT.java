package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A damaged journal never starts a server that serves less than it acknowledged: {@code tally serve --durability sync} in
 * its own JVM, acknowledged transfers, {@code kill -9}, bytes of the journal's cycle file damaged on disk, and a restart.
 * Damage before the end (a zeroed page, or a last record a witness holds) refuses the start with exit status 65 and says
 * what is missing; a tear no witness contradicts is cut, and the cut is logged, counted and shown in {@code /health}.
 */
class JournalDamageIT
{
    private static final String TRY = TallyClient.TRY;
    private static final int PAGE_BYTES = 4096;
    private static final int EXIT_JOURNAL_DAMAGED = 65;
    private static final List<String> NO_READ_MODEL = List.of("--no-read-model");
    /**
     * The first run of a test that damages its last record: no tick is journaled after it (the first would come a minute
     * after the start), so the damaged record is the journal's last whatever the machine's speed.
     */
    private static final List<String> NO_TICKS = List.of("--tick-interval-ms", "60000");
    private static final List<String> NO_READ_MODEL_NO_TICKS = List.of("--no-read-model", "--tick-interval-ms", "60000");

    @TempDir
    Path dataDir;

    @TempDir
    Path logDir;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldRefuseToStartWhenAPageInTheMiddleOfASyncJournalIsZeroed() throws Exception
    {
        final int transfers = 400;
        // The witness here is the journal's own (Chronicle's header): no PostgreSQL needed, and none started
        try (TallyProcess first = TallyProcess.start(dataDir, "sync", logDir.resolve("first.log"), NO_READ_MODEL_NO_TICKS, java.util.Map.of()))
        {
            final TallyClient client = first.client();
            openAccounts(client);
            for (int i = 1; i <= transfers; i++)
            {
                final String reference = i == transfers / 2 ? "damage-mark" : "ref-" + i;
                assertEquals(201, client.transfer("pay-" + i, 1, 2, "1.00", TRY, reference).status());
            }
            first.kill();
        }
        zeroPagesAround(cycleFileHolding("damage-mark"), "damage-mark");

        final Path log = logDir.resolve("restart.log");
        final int exit = startAndAwaitExit(log, NO_READ_MODEL);
        final String output = Files.readString(log);
        assertEquals(EXIT_JOURNAL_DAMAGED, exit, output);
        assertTrue(output.contains("the journal is damaged"), output);
        assertTrue(output.contains("past the last one it can read"), output);
        assertTrue(output.contains("docs/OPERATIONS.md"), output);

        final TallyCli.Run replay = TallyCli.run("replay", "--data-dir", dataDir.toString(), "--no-accounts");
        assertEquals(2, replay.exitCode(), replay.output());
        assertTrue(replay.output().contains("CORRUPT"), replay.output());
        assertTrue(!replay.output().contains("COMPLETE"), replay.output());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldRefuseToCutALastRecordThatPostgresqlAlreadyHolds() throws Exception
    {
        try (TallyProcess first = TallyProcess.start(dataDir, "sync", logDir.resolve("first.log"), NO_TICKS, java.util.Map.of()))
        {
            final TallyClient client = first.client();
            openAccounts(client);
            assertEquals(201, client.transfer("pay-1", 1, 2, "1.00", TRY, "ref-1").status());
            assertEquals(201, client.transfer("pay-last", 1, 2, "1.00", TRY, "last-mark").status());
            first.awaitWriterCaughtUp();
            first.kill();
        }
        flipByteOf(cycleFileHolding("last-mark"), "last-mark");

        final Path log = logDir.resolve("restart.log");
        final int exit = startAndAwaitExit(log, List.of());
        final String output = Files.readString(log);
        assertEquals(EXIT_JOURNAL_DAMAGED, exit, output);
        assertTrue(output.contains("PostgreSQL's watermark"), output);
        assertTrue(output.contains("would drop what a witness holds"), output);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldCutATornLastRecordNoWitnessHoldsAndSaySoInTheLogHealthAndMetrics() throws Exception
    {
        try (TallyProcess first = TallyProcess.start(dataDir, "sync", logDir.resolve("first.log"), NO_READ_MODEL_NO_TICKS, java.util.Map.of()))
        {
            final TallyClient client = first.client();
            openAccounts(client);
            assertEquals(201, client.transfer("pay-1", 1, 2, "1.00", TRY, "ref-1").status());
            assertEquals(201, client.transfer("pay-last", 1, 2, "1.00", TRY, "last-mark").status());
            first.kill();
        }
        flipByteOf(cycleFileHolding("last-mark"), "last-mark");

        try (TallyProcess restarted = TallyProcess.start(dataDir, "sync", logDir.resolve("restart.log"), NO_READ_MODEL, java.util.Map.of()))
        {
            final Json cut = restarted.client().get("/health").json().get("journal").get("tailCut");
            assertEquals(1, cut.get("records").asLong(), cut.toString());
            final String log = restarted.log();
            assertTrue(log.contains("WARN") && log.contains("cut 1 unreadable record(s), " + cut.get("bytes").asLong() + " bytes, after " +
                "journal index " + cut.get("afterIndex").asLong()), log);

            final String metrics = restarted.client().get("/metrics").body();
            assertTrue(metrics.contains("tally_journal_tail_cut_records_total 1.0"), metrics);
            assertTrue(metrics.lines().anyMatch(l -> l.startsWith("tally_journal_tail_cut_bytes_total ") && !l.endsWith(" 0.0")), metrics);

            assertEquals("1.00", restarted.client().accountJson(2).get("posted").text(), "the torn transfer is gone, the first is kept");
            restarted.stop();
        }
    }

    private static void openAccounts(final TallyClient client)
    {
        assertEquals(201, client.createAccount(1, TRY, false).status());
        assertEquals(201, client.createAccount(2, TRY, true).status());
    }

    private int startAndAwaitExit(final Path log, final List<String> serveArgs) throws InterruptedException
    {
        final Process restart = TallyProcess.spawn(dataDir, "sync", log, List.of(), serveArgs, java.util.Map.of());
        if (!restart.waitFor(TallyProcess.START_TIMEOUT_MS, TimeUnit.MILLISECONDS))
        {
            restart.destroyForcibly();
            throw new AssertionError("a server on a damaged journal is still running (it must refuse to start)");
        }
        return restart.exitValue();
    }

    /** Zeroes the 4 KiB pages from a little before {@code text} (its record's document header) to just after it. */
    private static void zeroPagesAround(final Path file, final String text) throws IOException
    {
        final long at = find(file, text);
        final long from = (at - 160) & -PAGE_BYTES;
        final long to = (at + text.length() + PAGE_BYTES - 1) & -PAGE_BYTES;
        write(file, from, new byte[(int)(to - from)]);
    }

    /** Flips every bit of the first byte of {@code text}: the record's checksum no longer matches. */
    private static void flipByteOf(final Path file, final String text) throws IOException
    {
        final long at = find(file, text);
        write(file, at, new byte[]{(byte)~text.charAt(0)});
    }

    private Path cycleFileHolding(final String text) throws IOException
    {
        try (Stream<Path> files = Files.list(dataDir.resolve("journal")))
        {
            for (final Path file : files.filter(p -> p.toString().endsWith(".cq4")).sorted().collect(Collectors.toList()))
            {
                if (find(file, text) >= 0)
                {
                    return file;
                }
            }
        }
        throw new AssertionError("'" + text + "' is in no cycle file");
    }

    private static long find(final Path file, final String text) throws IOException
    {
        final byte[] bytes = Files.readAllBytes(file);
        final byte[] pattern = text.getBytes(StandardCharsets.US_ASCII);
        outer:
        for (int i = 0; i <= bytes.length - pattern.length; i++)
        {
            for (int j = 0; j < pattern.length; j++)
            {
                if (bytes[i + j] != pattern[j])
                {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static void write(final Path file, final long at, final byte[] bytes) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            channel.write(ByteBuffer.wrap(bytes), at);
            channel.force(true);
        }
    }
}
