package dev.tally.perf.peer;

import dev.tally.server.GarbageCollector;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of a compare run: one row per scenario, durability and round, with both systems' throughput,
 * latency percentiles, errors and checks; rendered as tables, as RESULT lines and as CSV.
 *
 * <pre>
 *   RESULT scenario=uniform mode=sync tally_tps=51234 peer_tps=4100 ratio=12.5 tally_p99_us=1530 peer_p99_us=30000 check=ok
 * </pre>
 * {@code check=ok} only when both systems passed their checks; a failed run prints {@code failed} in
 * place of its figures and of the ratio.
 *
 * <p>With several rounds, each round's rows are kept (table, CSV, {@code ROUND} lines), and the RESULT
 * lines, the summary table and the chart give each figure's median over the rounds ({@link #medians}): on
 * a shared machine one run can meet a busy minute, and the median of runs taken side by side is the
 * figure that such a minute moves least. With one round the medians are that round's figures.
 */
final class CompareReport
{
    private final List<Row> rows;
    private final int rounds;

    /** @param rows every round's rows, in the order they ran. */
    CompareReport(final List<Row> rows, final int rounds)
    {
        this.rows = List.copyOf(rows);
        this.rounds = rounds;
    }

    /**
     * One system's measured run.
     *
     * @param checkOk whether the load generator's check (and for the peer, its SQL check) passed.
     * @param tps     transfers applied per second in the measured window.
     * @param p50Us   latency percentiles, microseconds.
     * @param errors  requests not answered as expected in the window.
     * @param cpu     CPU cost per applied transfer, from the end of setup to the end of the check.
     * @param load    the machine's 1-minute load average when the run started (2 cores: above 2 means sharing).
     * @param notes   what failed, if anything.
     */
    record Measured(boolean checkOk, long tps, long p50Us, long p99Us, long p999Us, long maxUs, long errors, CpuCost cpu, String load,
        List<String> notes)
    {
        /** @param resultLine the load generator's RESULT line ({@code tps=... p50_us=... check=ok}). */
        static Measured of(final String resultLine, final boolean checkOk, final CpuCost cpu, final String load, final List<String> notes)
        {
            final Map<String, String> fields = fields(resultLine);
            if (!checkOk || !"ok".equals(fields.get("check")))
            {
                return new Measured(false, -1, -1, -1, -1, -1, number(fields.get("errors")), cpu, load, List.copyOf(notes));
            }
            return new Measured(true, number(fields.get("tps")), number(fields.get("p50_us")), number(fields.get("p99_us")),
                number(fields.get("p999_us")), number(fields.get("max_us")), number(fields.get("errors")), cpu, load, List.copyOf(notes));
        }

        static Measured failed(final String load, final List<String> notes)
        {
            return new Measured(false, -1, -1, -1, -1, -1, -1, CpuCost.UNKNOWN, load, List.copyOf(notes));
        }

        /**
         * @return each figure's median over {@code runs} (percentile by percentile); failed when any run failed,
         *         with every run's notes; the errors summed, since one error in any round is one too many; null
         *         when the system did not run.
         */
        static Measured median(final List<Measured> runs)
        {
            if (runs.isEmpty() || runs.contains(null))
            {
                return null;
            }
            final List<String> notes = new ArrayList<>();
            final StringBuilder loads = new StringBuilder();
            boolean ok = true;
            long errors = 0;
            for (final Measured run : runs)
            {
                notes.addAll(run.notes());
                loads.append(loads.length() == 0 ? "" : ",").append(run.load());
                ok &= run.checkOk();
                errors += Math.max(0, run.errors());
            }
            if (!ok)
            {
                return new Measured(false, -1, -1, -1, -1, -1, errors, CpuCost.UNKNOWN, loads.toString(), notes);
            }
            final CpuCost cpu = new CpuCost(medianOf(runs, m -> m.cpu().jvmUs()), medianOf(runs, m -> m.cpu().postgresUs()),
                (long)medianOf(runs, m -> m.cpu().transfers()));
            return new Measured(true, (long)medianOf(runs, Measured::tps), (long)medianOf(runs, Measured::p50Us),
                (long)medianOf(runs, Measured::p99Us), (long)medianOf(runs, Measured::p999Us), (long)medianOf(runs, Measured::maxUs), errors,
                cpu, loads.toString(), notes);
        }

        String tpsText()
        {
            return checkOk ? Long.toString(tps) : "failed";
        }

        String p99Text()
        {
            return checkOk ? Long.toString(p99Us) : "failed";
        }
    }

    /**
     * CPU time per transfer applied (warmup, window and drain; the check's reads included), µs: the JVM
     * (the server under test and the load generator, which both systems share) and, for the peer, its
     * PostgreSQL processes. On 2 cores, {@code 2,000,000 / totalUs()} is the throughput an otherwise idle
     * machine would allow: the figure a noisy machine distorts least.
     *
     * @param jvmUs      this JVM's CPU per transfer.
     * @param postgresUs the peer's PostgreSQL CPU per transfer (0 for Tally).
     * @param transfers  transfers applied over the interval.
     */
    record CpuCost(double jvmUs, double postgresUs, long transfers)
    {
        static final CpuCost UNKNOWN = new CpuCost(Double.NaN, Double.NaN, 0);

        double totalUs()
        {
            return jvmUs + postgresUs;
        }

        String text()
        {
            if (Double.isNaN(totalUs()))
            {
                return "-";
            }
            return postgresUs > 0 ? String.format(Locale.ROOT, "%.0f (%.0f + PG %.0f)", totalUs(), jvmUs, postgresUs) :
                String.format(Locale.ROOT, "%.0f", totalUs());
        }
    }

    /**
     * One scenario in one durability mode, in one round (from 1; 0 for the median over the rounds); either side
     * may be null when only one system ran.
     */
    record Row(String scenario, String mode, int round, Measured tally, Measured peer)
    {
        boolean ok()
        {
            return (tally == null || tally.checkOk()) && (peer == null || peer.checkOk());
        }

        /** @return Tally's throughput over the peer's, or NaN when either is missing or failed. */
        double ratio()
        {
            if (tally == null || peer == null || !tally.checkOk() || !peer.checkOk() || peer.tps() <= 0)
            {
                return Double.NaN;
            }
            return tally.tps() / (double)peer.tps();
        }

        /** @return the peer's CPU per transfer over Tally's, or NaN when either is missing or failed. */
        double cpuRatio()
        {
            if (tally == null || peer == null || !tally.checkOk() || !peer.checkOk())
            {
                return Double.NaN;
            }
            return peer.cpu().totalUs() / tally.cpu().totalUs();
        }

        /** @return the RESULT line of a median row, or the ROUND line of one round's row. */
        String resultLine()
        {
            final double ratio = ratio();
            return (round == 0 ? "RESULT" : "ROUND " + round) + " scenario=" + scenario + " mode=" + mode +
                " tally_tps=" + (tally == null ? "n/a" : tally.tpsText()) +
                " peer_tps=" + (peer == null ? "n/a" : peer.tpsText()) +
                " ratio=" + (Double.isNaN(ratio) ? (ok() ? "n/a" : "failed") : String.format(Locale.ROOT, "%.1f", ratio)) +
                " tally_p99_us=" + (tally == null ? "n/a" : tally.p99Text()) +
                " peer_p99_us=" + (peer == null ? "n/a" : peer.p99Text()) +
                " check=" + (ok() ? "ok" : "failed");
        }
    }

    /** @return one row per scenario of {@code mode}, in the order they ran: each figure's median over the rounds. */
    List<Row> medians(final String mode)
    {
        final Map<String, List<Row>> byScenario = new LinkedHashMap<>();
        for (final Row row : rows)
        {
            if (row.mode().equals(mode))
            {
                byScenario.computeIfAbsent(row.scenario(), s -> new ArrayList<>()).add(row);
            }
        }
        final List<Row> medians = new ArrayList<>();
        for (final Map.Entry<String, List<Row>> scenario : byScenario.entrySet())
        {
            final List<Measured> tally = new ArrayList<>();
            final List<Measured> peer = new ArrayList<>();
            for (final Row row : scenario.getValue())
            {
                tally.add(row.tally());
                peer.add(row.peer());
            }
            medians.add(new Row(scenario.getKey(), mode, 0, Measured.median(tally), Measured.median(peer)));
        }
        return medians;
    }

    private List<Row> medians()
    {
        final List<String> modes = new ArrayList<>();
        for (final Row row : rows)
        {
            if (!modes.contains(row.mode()))
            {
                modes.add(row.mode());
            }
        }
        final List<Row> medians = new ArrayList<>();
        for (final String mode : modes)
        {
            medians.addAll(medians(mode));
        }
        return medians;
    }

    /** @return per scenario and mode, the ratio each round measured ({@code uniform sync: 8.1, 8.8, 9.0}). */
    String ratiosByRound()
    {
        final Map<String, StringBuilder> lines = new LinkedHashMap<>();
        for (final Row row : rows)
        {
            final double ratio = row.ratio();
            final StringBuilder line = lines.computeIfAbsent(row.scenario() + " " + row.mode(), k -> new StringBuilder());
            line.append(line.length() == 0 ? "" : ", ").append(Double.isNaN(ratio) ? "-" : String.format(Locale.ROOT, "%.1f", ratio));
        }
        final StringBuilder text = new StringBuilder("ratio in each round:");
        lines.forEach((key, line) -> text.append("\n  ").append(key).append(": ").append(line));
        return text.toString();
    }

    boolean allOk()
    {
        for (final Row row : rows)
        {
            if (!row.ok())
            {
                return false;
            }
        }
        return true;
    }

    /** Prints the tables (each round's, when there are several, then the medians), then every RESULT line. */
    void print(final PrintStream out)
    {
        out.println();
        out.println(summary());
    }

    /** Writes {@code summary.md} (tables and RESULT lines) and {@code results.csv} (every round's rows) into the run's folder. */
    void write(final Path runDir) throws IOException
    {
        Files.writeString(runDir.resolve("summary.md"), machine() + "\n\n" + summary(), StandardCharsets.UTF_8);
        final StringBuilder csv = new StringBuilder(
            "scenario,mode,round,system,check,tps,p50_us,p99_us,p999_us,max_us,errors,cpu_jvm_us_per_transfer,cpu_postgres_us_per_transfer\n");
        for (final Row row : rows)
        {
            csvLine(csv, row, "tally", row.tally());
            csvLine(csv, row, "peer", row.peer());
        }
        Files.writeString(runDir.resolve("results.csv"), csv, StandardCharsets.UTF_8);
    }

    private String summary()
    {
        final StringBuilder text = new StringBuilder();
        final List<Row> medians = medians();
        if (rounds > 1)
        {
            for (int round = 1; round <= rounds; round++)
            {
                final List<Row> ofRound = new ArrayList<>();
                for (final Row row : rows)
                {
                    if (row.round() == round)
                    {
                        ofRound.add(row);
                    }
                }
                text.append("round ").append(round).append(" of ").append(rounds).append(":\n").append(table(ofRound)).append('\n');
            }
            text.append("median of ").append(rounds).append(" rounds (each figure separately; the ratio is that of the medians):\n");
        }
        text.append(table(medians)).append('\n');
        if (rounds > 1)
        {
            text.append(ratiosByRound()).append("\n\n");
        }
        for (final Row row : medians)
        {
            text.append(row.resultLine()).append('\n');
        }
        return text.toString();
    }

    /** @return the Markdown table of {@code rows}: one line per row. */
    static String table(final List<Row> rows)
    {
        final StringBuilder table = new StringBuilder(
            "| mode | scenario | Tally transfers/s | peer transfers/s | ratio | Tally p50 / p99 / p99.9 (us) | peer p50 / p99 / p99.9 (us) | " +
            "errors Tally / peer | CPU us per transfer, Tally | CPU us per transfer, peer (JVM + PG) | CPU ratio | load avg Tally / peer | check |\n" +
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (final Row row : rows)
        {
            final double ratio = row.ratio();
            final double cpuRatio = row.cpuRatio();
            table.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %s | %s / %s | %s |%n", row.mode(),
                row.scenario(), tps(row.tally()), tps(row.peer()), Double.isNaN(ratio) ? "-" : String.format(Locale.ROOT, "%.1fx", ratio),
                latency(row.tally()), latency(row.peer()), errors(row.tally()), errors(row.peer()), cpu(row.tally()), cpu(row.peer()),
                Double.isNaN(cpuRatio) ? "-" : String.format(Locale.ROOT, "%.1fx", cpuRatio), load(row.tally()), load(row.peer()),
                row.ok() ? "ok" : "FAILED"));
        }
        return table.toString();
    }

    private static void csvLine(final StringBuilder csv, final Row row, final String system, final Measured m)
    {
        if (m == null)
        {
            return;
        }
        csv.append(String.format(Locale.ROOT, "%s,%s,%d,%s,%s,%d,%d,%d,%d,%d,%d,%.1f,%.1f%n", row.scenario(), row.mode(), row.round(), system,
            m.checkOk() ? "ok" : "failed", m.tps(), m.p50Us(), m.p99Us(), m.p999Us(), m.maxUs(), m.errors(), m.cpu().jvmUs(), m.cpu().postgresUs()));
    }

    private static String tps(final Measured m)
    {
        return m == null ? "-" : m.checkOk() ? String.format(Locale.ROOT, "%,d", m.tps()) : "FAILED";
    }

    private static String latency(final Measured m)
    {
        return m == null ? "-" : m.checkOk() ? String.format(Locale.ROOT, "%,d / %,d / %,d", m.p50Us(), m.p99Us(), m.p999Us()) : "FAILED";
    }

    private static String load(final Measured m)
    {
        return m == null ? "-" : m.load();
    }

    private static String cpu(final Measured m)
    {
        return m == null ? "-" : m.cpu().text();
    }

    private static String errors(final Measured m)
    {
        return m == null ? "-" : String.format(Locale.ROOT, "%,d", m.errors());
    }

    private static double medianOf(final List<Measured> runs, final java.util.function.ToDoubleFunction<Measured> figure)
    {
        final double[] values = runs.stream().mapToDouble(figure).sorted().toArray();
        final int middle = values.length / 2;
        return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }

    /** @return {@code key=value} pairs of a RESULT line. */
    static Map<String, String> fields(final String line)
    {
        final Map<String, String> fields = new LinkedHashMap<>();
        for (final String part : line.trim().split("\\s+"))
        {
            final int equals = part.indexOf('=');
            if (equals > 0)
            {
                fields.put(part.substring(0, equals), part.substring(equals + 1));
            }
        }
        return fields;
    }

    private static long number(final String text)
    {
        try
        {
            return text == null ? -1 : Long.parseLong(text);
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    /** @return the machine: cores, memory, JVM, load average now. */
    static String machine()
    {
        final Runtime runtime = Runtime.getRuntime();
        return String.format(Locale.ROOT, "machine: %d cores, JVM %s, collector %s, max heap %,d MB, load average %s",
            runtime.availableProcessors(), System.getProperty("java.version"), GarbageCollector.names(), runtime.maxMemory() >> 20,
            loadAverage());
    }

    /** @return the 1-minute load average ({@code /proc/loadavg}), or "?" where there is none. */
    static String loadAverage()
    {
        try
        {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        }
        catch (final IOException | RuntimeException ex)
        {
            return "?";
        }
    }

    /**
     * @return a stream that writes to {@code out} with every line indented by {@code "  | "}, so the load
     *         generator's own tables (and its RESULT lines) read as detail under the compare's lines; each
     *         complete line also goes to {@code lines}. Closing it flushes and leaves {@code out} open.
     */
    static PrintStream indented(final PrintStream out, final java.util.function.Consumer<String> lines)
    {
        return new PrintStream(new FilterOutputStream(out)
        {
            private final java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
            private boolean lineStart = true;

            @Override
            public void write(final int b) throws IOException
            {
                if (lineStart)
                {
                    out.write(new byte[] {' ', ' ', '|', ' '});
                }
                out.write(b);
                lineStart = b == '\n';
                if (lineStart)
                {
                    lines.accept(line.toString(StandardCharsets.UTF_8));
                    line.reset();
                }
                else
                {
                    line.write(b);
                }
            }

            @Override
            public void write(final byte[] bytes, final int offset, final int length) throws IOException
            {
                for (int i = offset; i < offset + length; i++)
                {
                    write(bytes[i]);
                }
            }

            @Override
            public void close() throws IOException
            {
                out.flush();
            }
        }, true, StandardCharsets.UTF_8);
    }
}
