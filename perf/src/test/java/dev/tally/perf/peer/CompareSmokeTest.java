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
 * CI smoke test of {@code tally-perf compare}: one short async run of {@code uniform} against Tally and
 * the peer, small accounts; both must pass their checks and the run must leave its files.
 */
class CompareSmokeTest
{
    @Test
    void shouldCompareTallyAndThePeerWithBothChecksPassing(@TempDir final Path results) throws Exception
    {
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(new TeeStream(captured, System.out), true, StandardCharsets.UTF_8);
        final int status = CompareMain.run(new String[] {"compare", "--seconds", "3", "--warmup-seconds", "1", "--scenario", "uniform",
            "--durability", "async", "--accounts", "1000", "--connections", "16", "--warmup-run-seconds", "0", "--peer-pool", "4",
            "--tally-keys-max", "200000", "--results-dir", results.toString()}, out);
        final String text = captured.toString(StandardCharsets.UTF_8);
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
