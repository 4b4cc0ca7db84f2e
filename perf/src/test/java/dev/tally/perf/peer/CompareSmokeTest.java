package dev.tally.perf.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * CI smoke test of {@code tally-perf compare}: two short async rounds of {@code uniform} against Tally and
 * the peer, small accounts; both must pass their checks in both rounds, the second round must run the peer
 * first, and the run must leave its files.
 */
class CompareSmokeTest
{
    @Test
    void shouldCompareTallyAndThePeerWithBothChecksPassing(@TempDir final Path results) throws Exception
    {
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final int status = compare(captured, "--seconds", "3", "--durability", "async", "--peer-pool", "4", "--rounds", "2", "--results-dir",
            results.toString());
        final String text = captured.toString(StandardCharsets.UTF_8);
        assertEquals(java.util.List.of("-- tally, uniform, async-round1", "-- peer, uniform, async-round1", "-- peer, uniform, async-round2",
            "-- tally, uniform, async-round2"), text.lines().filter(l -> l.startsWith("-- ")).map(l -> l.substring(0, l.indexOf(" ("))).toList(),
            "the runs in order: Tally first in round 1, the peer first in round 2");
        assertEquals(2, text.lines().filter(l -> l.startsWith("ROUND ") && l.endsWith("check=ok")).count(), text);
        assertEquals(1, text.lines().filter(l -> l.startsWith("RESULT scenario=uniform mode=async")).count(), "one RESULT line per scenario and mode");
        final String line = text.lines().filter(l -> l.startsWith("RESULT scenario=uniform mode=async")).reduce((a, b) -> b)
            .orElseThrow(() -> new AssertionError("no RESULT line in:\n" + text));
        final Map<String, String> fields = CompareReport.fields(line);
        assertEquals("ok", fields.get("check"), line);
        assertTrue(Long.parseLong(fields.get("tally_tps")) > 0, line);
        assertTrue(Long.parseLong(fields.get("peer_tps")) > 0, line);
        assertEquals(0, status, "exit status");
        try (Stream<Path> files = Files.walk(results))
        {
            final long charts = files.filter(f -> f.toString().endsWith("compare-async.png")).count();
            assertEquals(1, charts, "one chart");
        }
    }

    @Test
    void shouldCountTallysPostgresqlWhenItsReadModelRuns(@TempDir final Path results) throws Exception
    {
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final int status = compare(captured, "--systems", "tally", "--tally-read-model", "on", "--seconds", "2", "--durability", "sync",
            "--results-dir", results.toString());
        final String text = captured.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, "exit status");
        assertTrue(text.contains("PostgreSQL read model on"), text);
        final String caughtUp = text.lines().filter(l -> l.contains("read model: PostgreSQL writer")).findFirst()
            .orElseThrow(() -> new AssertionError("no catch-up line in:\n" + text));
        assertTrue(caughtUp.contains("caught up in") && !caughtUp.contains("NOT"), caughtUp);
        final String cpu = text.lines().filter(l -> l.contains("cpu per transfer applied")).findFirst().orElseThrow();
        assertTrue(cpu.contains("+ PG "), "Tally's CPU must include its PostgreSQL: " + cpu);
    }

    /** Runs {@code compare} with small settings (one short uniform run, 1,000 accounts) plus {@code options}. */
    private static int compare(final ByteArrayOutputStream captured, final String... options) throws Exception
    {
        final PrintStream out = new PrintStream(new TeeStream(captured, System.out), true, StandardCharsets.UTF_8);
        final String[] small = {"compare", "--warmup-seconds", "1", "--scenario", "uniform", "--accounts", "1000", "--connections", "16",
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
