package dev.tally.perf.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CI smoke test of {@code tally-perf compare}, briefly (1,000 accounts, windows of 1 to 3 s), every check on: Tally's
 * request path against the peer in interleaved rounds, then latency at equal load in open loop; the whole system (Tally
 * with its read model) against the peer with its hot account in sub-rows and its batch as batch requests; and the
 * naive one-row peer, labelled.
 */
class CompareSmokeTest
{
    @Test
    void shouldRunEachSystemInInterleavedRoundsWithEveryCheckPassing(@TempDir final Path results) throws Exception
    {
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final int status = compare(captured, "--scenario", "uniform", "--seconds", "3", "--durability", "async", "--tally-read-model", "off",
            "--open-loop-seconds", "1", "--peer-pool", "4", "--rounds", "2", "--results-dir", results.toString());
        final String text = captured.toString(StandardCharsets.UTF_8);
        assertEquals(java.util.List.of("-- tally-request-path, uniform, async-round1", "-- peer, uniform, async-round1",
                "-- peer, uniform, async-round2", "-- tally-request-path, uniform, async-round2", "-- peer, uniform, async-open",
                "-- tally-request-path, uniform, async-open"),
            text.lines().filter(l -> l.startsWith("-- ")).map(l -> l.substring(0, l.indexOf(" ("))).toList(),
            "the runs in order: Tally first in round 1, the peer first in round 2, then both in open loop");
        assertEquals(2, text.lines().filter(l -> l.startsWith("ROUND ") && l.endsWith("check=ok")).count(), text);
        final java.util.List<String> results1 = resultLines(text, "RESULT scenario=uniform mode=async");
        assertEquals(1, results1.size(), "one RESULT line per scenario, mode and Tally variant");
        final Map<String, String> fields = CompareReport.fields(results1.get(0));
        assertEquals("ok", fields.get("check"), results1.get(0));
        assertEquals("off", fields.get("read_model"), results1.get(0));
        assertTrue(Long.parseLong(fields.get("tally_tps")) > 0, results1.get(0));
        assertTrue(Long.parseLong(fields.get("peer_tps")) > 0, results1.get(0));
        final java.util.List<String> latency = resultLines(text, "LATENCY scenario=uniform mode=async read_model=off");
        assertEquals(1, latency.size(), text);
        final Map<String, String> open = CompareReport.fields(latency.get(0));
        assertEquals("ok", open.get("check"), latency.get(0));
        assertEquals(Math.round(Long.parseLong(fields.get("peer_tps")) * 0.5), Long.parseLong(open.get("rate_tps")), 1.0,
            "the open loop offers half the peer's median throughput: " + latency.get(0));
        assertTrue(text.contains("open loop at "), "the load generator ran open loop: " + text);
        assertEquals(0, status, "exit status");
        try (Stream<Path> files = Files.walk(results))
        {
            final long charts = files.filter(f -> f.toString().endsWith("compare-async.png")).count();
            assertEquals(1, charts, "one chart");
        }
    }

    @Test
    void shouldRunTheWholeSystemAgainstTheSubRowPeerAndItsBatch(@TempDir final Path results) throws Exception
    {
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final int status = compare(captured, "--scenario", "hotCredit,batch", "--tally-read-model", "on", "--seconds", "2", "--durability",
            "sync", "--batch-connections", "4", "--open-loop-fraction", "0", "--results-dir", results.toString());
        final String text = captured.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, "exit status");
        for (final String scenario : new String[] {"hotCredit", "batch"})
        {
            for (final String readModel : new String[] {"on"})
            {
                final java.util.List<String> lines = resultLines(text, "RESULT scenario=" + scenario + " mode=sync read_model=" + readModel);
                assertEquals(1, lines.size(), scenario + " read model " + readModel + ":\n" + text);
                final Map<String, String> fields = CompareReport.fields(lines.get(0));
                assertEquals("ok", fields.get("check"), lines.get(0));
                assertEquals("sub-rows-16", fields.get("peer"), lines.get(0));
                assertTrue(Long.parseLong(fields.get("tally_tps")) > 0 && Long.parseLong(fields.get("peer_tps")) > 0, lines.get(0));
                assertTrue(fields.containsKey("catch_up_s") && fields.containsKey("tally_request_tps"), lines.get(0));
                assertEquals("batch".equals(scenario) ? "100" : null, fields.get("batch_size"), lines.get(0));
            }
        }
        assertTrue(text.contains("PostgreSQL read model on"), text);
        final String caughtUp = text.lines().filter(l -> l.contains("read model: at the end of the window")).findFirst()
            .orElseThrow(() -> new AssertionError("no catch-up line in:\n" + text));
        assertFalse(caughtUp.contains("NOT"), caughtUp);
        final String wholeCpu = after(text, "-- tally-whole, hotCredit, sync").lines().filter(l -> l.contains("cpu per transfer applied"))
            .findFirst().orElseThrow();
        assertTrue(wholeCpu.contains("+ PG "), "the whole system's CPU includes its PostgreSQL: " + wholeCpu);
        final String peerHot = after(text, "-- peer, hotCredit, sync");
        assertTrue(peerHot.contains("peer SQL check ok  credits spread over the rows of the 1 accounts of several rows"), peerHot);
        final String peerBatch = after(text, "-- peer, batch, sync");
        assertTrue(peerBatch.contains("100 transfers per request"), "the peer's batch is batch requests: " + peerBatch);
    }

    @Test
    void shouldLabelTheNaiveOneRowPeer(@TempDir final Path results) throws Exception
    {
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final int status = compare(captured, "--systems", "peer", "--scenario", "hotCredit", "--peer-hot-rows", "1", "--seconds", "1",
            "--durability", "sync", "--open-loop-fraction", "0", "--results-dir", results.toString());
        final String text = captured.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, "exit status");
        final java.util.List<String> lines = resultLines(text, "RESULT scenario=hotCredit mode=sync");
        assertEquals(1, lines.size(), text);
        assertEquals("one-row", CompareReport.fields(lines.get(0)).get("peer"), lines.get(0));
        assertFalse(text.contains("accounts of several rows"), "no account has several rows: " + text);
    }

    private static java.util.List<String> resultLines(final String text, final String prefix)
    {
        return text.lines().filter(l -> l.startsWith(prefix + " ")).toList();
    }

    /** @return the output from the line starting with {@code heading} up to the next run's heading. */
    private static String after(final String text, final String heading)
    {
        final int from = text.indexOf(heading);
        assertTrue(from >= 0, "no run " + heading + " in:\n" + text);
        final int to = text.indexOf("\n-- ", from + heading.length());
        return text.substring(from, to < 0 ? text.length() : to);
    }

    /** Runs {@code compare} with small settings (one short uniform run, 1,000 accounts) plus {@code options}. */
    private static int compare(final ByteArrayOutputStream captured, final String... options) throws Exception
    {
        final PrintStream out = new PrintStream(new TeeStream(captured, System.out), true, StandardCharsets.UTF_8);
        final String[] small = {"compare", "--warmup-seconds", "1", "--accounts", "1000", "--connections", "16",
            "--warmup-run-seconds", "0", "--tally-keys-max", "200000"};
        final String[] args = java.util.Arrays.copyOf(small, small.length + options.length);
        System.arraycopy(options, 0, args, small.length, options.length);
        return CompareMain.run(args, out);
    }

    /** Writes to two streams: the captured copy and the console. */
    private static final class TeeStream extends java.io.OutputStream
    {
        private final java.io.OutputStream first;
        private final java.io.OutputStream second;

        TeeStream(final java.io.OutputStream first, final java.io.OutputStream second)
        {
            this.first = first;
            this.second = second;
        }

        @Override
        public void write(final int b) throws java.io.IOException
        {
            first.write(b);
            second.write(b);
        }

        @Override
        public void write(final byte[] bytes, final int offset, final int length) throws java.io.IOException
        {
            first.write(bytes, offset, length);
            second.write(bytes, offset, length);
        }
    }
}
