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
 * The figures of a compare run: one row per scenario, durability and round, with the three systems' throughput,
 * latency percentiles, errors, CPU and checks: Tally as a whole (its PostgreSQL read model on), Tally's request path
 * (read model off) and the peer. Rendered as tables, as RESULT lines (one per Tally variant) and as CSV.
 *
 * <pre>
 *   RESULT scenario=uniform mode=sync read_model=on peer=sub-rows-16 tally_tps=20000 peer_tps=2500 ratio=8.0 tally_p99_us=9000
 *          peer_p99_us=60000 tally_request_tps=24000 catch_up_s=3.3 check=ok
 *   RESULT scenario=uniform mode=sync read_model=off peer=sub-rows-16 tally_tps=50000 peer_tps=2500 ratio=20.0 ... check=ok
 *   LATENCY scenario=uniform mode=sync read_model=on peer=sub-rows-16 rate_tps=1250 tally_p50_us=800 tally_p99_us=2100
 *          peer_p50_us=9000 peer_p99_us=40000 kept_up=yes check=ok
 * </pre>
 * {@code check=ok} only when both systems of the line passed their checks; a failed run prints {@code failed} in
 * place of its figures and of the ratio. With the read model on, {@code tally_tps} is the whole system's rate:
 * transfers applied in the window over the window plus the time the PostgreSQL writer then took to hold them
 * ({@code catch_up_s}); {@code tally_request_tps} is the rate the HTTP clients saw in the window.
 * {@code batch_size=B} marks the batch scenario: both systems got B transfers per request. LATENCY lines are the
 * open-loop runs at one offered rate for all systems ({@code rate_tps}, transfers/s).
 *
 * <p>With several rounds, each round's rows are kept (table, CSV, {@code ROUND} lines), and the RESULT lines, the
 * summary table and the chart give each figure's median over the rounds ({@link #medians}): on a shared machine one
 * run can meet a busy minute, and the median of runs taken side by side is the figure that such a minute moves least.
 */
final class CompareReport
{
    private final List<Row> rows;
    private final List<LatencyRow> latencyRows;
    private final int rounds;

    /**
     * @param rows        every round's closed-loop rows, in the order they ran.
     * @param latencyRows the open-loop rows at equal load, one per scenario and mode.
     */
    CompareReport(final List<Row> rows, final List<LatencyRow> latencyRows, final int rounds)
    {
        this.rows = List.copyOf(rows);
        this.latencyRows = List.copyOf(latencyRows);
        this.rounds = rounds;
    }

    CompareReport(final List<Row> rows, final int rounds)
    {
        this(rows, List.of(), rounds);
    }

    /**
     * One system's measured run.
     *
     * @param checkOk     whether the load generator's check (and for the peer, its SQL check) passed.
     * @param tps         transfers per second: applied in the window, over the window plus the read model's catch-up when
     *                    the system has one.
     * @param requestTps  transfers answered 201 per second in the window (what the clients saw); equal to {@code tps}
     *                    without a read model.
     * @param catchUpS    seconds from the end of the window until PostgreSQL held every command applied in it; NaN without
     *                    a read model.
     * @param p50Us       latency percentiles, microseconds.
     * @param errors      requests not answered as expected in the window (503 refusals included).
     * @param keptUp      open loop: the system answered the offered rate (fewer than 0.1 % of the requests left unsent).
     * @param cpu         CPU cost per applied transfer, from the end of setup to the end of the check (or of the catch-up).
     * @param load        the machine's 1-minute load average when the run started (2 cores: above 2 means sharing).
     * @param notes       what failed, if anything.
     */
    record Measured(boolean checkOk, long tps, long requestTps, double catchUpS, long p50Us, long p99Us, long p999Us, long maxUs, long errors,
        boolean keptUp, CpuCost cpu, String load, List<String> notes)
    {
        /** @param resultLine the load generator's RESULT line ({@code tps=... p50_us=... check=ok}). */
        static Measured of(final String resultLine, final boolean checkOk, final CpuCost cpu, final String load, final List<String> notes)
        {
            return of(resultLine, checkOk, Double.NaN, 0, true, cpu, load, notes);
        }

        /**
         * @param catchUpS       the read model's catch-up after the window, s; NaN without a read model.
         * @param windowSeconds  the measured window.
         * @param keptUp         whether an open-loop run answered its rate.
         */
        static Measured of(final String resultLine, final boolean checkOk, final double catchUpS, final int windowSeconds, final boolean keptUp,
            final CpuCost cpu, final String load, final List<String> notes)
        {
            final Map<String, String> fields = fields(resultLine);
            if (!checkOk || !"ok".equals(fields.get("check")))
            {
                return new Measured(false, -1, -1, catchUpS, -1, -1, -1, -1, number(fields.get("errors")), keptUp, cpu, load, List.copyOf(notes));
            }
            final long requestTps = number(fields.get("tps"));
            final long tps = Double.isNaN(catchUpS) ? requestTps : Math.round(requestTps * windowSeconds / (windowSeconds + catchUpS));
            return new Measured(true, tps, requestTps, catchUpS, number(fields.get("p50_us")), number(fields.get("p99_us")),
                number(fields.get("p999_us")), number(fields.get("max_us")), number(fields.get("errors")), keptUp, cpu, load, List.copyOf(notes));
        }

        static Measured failed(final String load, final List<String> notes)
        {
            return new Measured(false, -1, -1, Double.NaN, -1, -1, -1, -1, -1, true, CpuCost.UNKNOWN, load, List.copyOf(notes));
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
            boolean keptUp = true;
            long errors = 0;
            for (final Measured run : runs)
            {
                notes.addAll(run.notes());
                loads.append(loads.length() == 0 ? "" : ",").append(run.load());
                ok &= run.checkOk();
                keptUp &= run.keptUp();
                errors += Math.max(0, run.errors());
            }
            if (!ok)
            {
                return new Measured(false, -1, -1, Double.NaN, -1, -1, -1, -1, errors, keptUp, CpuCost.UNKNOWN, loads.toString(), notes);
            }
            final CpuCost cpu = new CpuCost(medianOf(runs, m -> m.cpu().jvmUs()), medianOf(runs, m -> m.cpu().postgresUs()),
                (long)medianOf(runs, m -> m.cpu().transfers()));
            return new Measured(true, (long)medianOf(runs, Measured::tps), (long)medianOf(runs, Measured::requestTps),
                medianOf(runs, Measured::catchUpS), (long)medianOf(runs, Measured::p50Us), (long)medianOf(runs, Measured::p99Us),
                (long)medianOf(runs, Measured::p999Us), (long)medianOf(runs, Measured::maxUs), errors, keptUp, cpu, loads.toString(), notes);
        }

        boolean hasReadModel()
        {
            return !Double.isNaN(catchUpS);
        }

        String tpsText()
        {
            return checkOk ? Long.toString(tps) : "failed";
        }

        String p99Text()
        {
            return checkOk ? Long.toString(p99Us) : "failed";
        }

        String p50Text()
        {
            return checkOk ? Long.toString(p50Us) : "failed";
        }
    }

    /**
     * CPU time per transfer applied (warmup, window and drain; the check's reads included), µs: the JVM (the server
     * under test and the load generator, which both systems share) and the system's PostgreSQL processes (the peer's,
     * or Tally's read model). On 2 cores, {@code 2,000,000 / totalUs()} is the throughput an otherwise idle machine
     * would allow: the figure a noisy machine distorts least.
     *
     * @param jvmUs      this JVM's CPU per transfer.
     * @param postgresUs the system's PostgreSQL CPU per transfer (0 without one).
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
     * One scenario in one durability mode, in one round (from 1; 0 for the median over the rounds); any system may be
     * null when it did not run.
     *
     * @param tally       Tally as a whole: its PostgreSQL read model on.
     * @param requestPath Tally's request path: read model off.
     * @param peer        the peer.
     * @param peerVariant the peer's hot-account design ({@link HotRows#label}).
     * @param batchSize   transfers per request of the batch scenario; 0 for single transfers.
     */
    record Row(String scenario, String mode, int round, Measured tally, Measured requestPath, Measured peer, String peerVariant,
        int batchSize)
    {
        boolean ok()
        {
            return ok(tally) && ok(requestPath) && ok(peer);
        }

        private static boolean ok(final Measured m)
        {
            return m == null || m.checkOk();
        }

        /** @return Tally's (whole system) throughput over the peer's, or NaN when either is missing or failed. */
        double ratio()
        {
            return ratio(tally);
        }

        /** @return Tally's request-path throughput over the peer's, or NaN when either is missing or failed. */
        double requestPathRatio()
        {
            return ratio(requestPath);
        }

        double ratio(final Measured tallyVariant)
        {
            if (tallyVariant == null || peer == null || !tallyVariant.checkOk() || !peer.checkOk() || peer.tps() <= 0)
            {
                return Double.NaN;
            }
            return tallyVariant.tps() / (double)peer.tps();
        }

        /** @return the RESULT lines of a median row, or the ROUND lines of one round's row: one per Tally variant that ran. */
        List<String> resultLines()
        {
            final List<String> lines = new ArrayList<>();
            if (tally != null)
            {
                lines.add(line("on", tally));
            }
            if (requestPath != null)
            {
                lines.add(line("off", requestPath));
            }
            if (lines.isEmpty())
            {
                lines.add(line("n/a", null));
            }
            return lines;
        }

        private String line(final String readModel, final Measured t)
        {
            final double ratio = ratio(t);
            final boolean ok = ok(t) && ok(peer);
            final StringBuilder line = new StringBuilder(round == 0 ? "RESULT" : "ROUND " + round).append(" scenario=").append(scenario)
                .append(" mode=").append(mode).append(" read_model=").append(readModel).append(" peer=").append(peer == null ? "n/a" : peerVariant);
            if (batchSize > 0)
            {
                line.append(" batch_size=").append(batchSize);
            }
            line.append(" tally_tps=").append(t == null ? "n/a" : t.tpsText())
                .append(" peer_tps=").append(peer == null ? "n/a" : peer.tpsText())
                .append(" ratio=").append(Double.isNaN(ratio) ? (ok ? "n/a" : "failed") : String.format(Locale.ROOT, "%.1f", ratio))
                .append(" tally_p99_us=").append(t == null ? "n/a" : t.p99Text())
                .append(" peer_p99_us=").append(peer == null ? "n/a" : peer.p99Text());
            if (t != null && t.hasReadModel())
            {
                line.append(" tally_request_tps=").append(t.checkOk() ? Long.toString(t.requestTps()) : "failed")
                    .append(String.format(Locale.ROOT, " catch_up_s=%.1f", t.catchUpS()));
            }
            return line.append(" check=").append(ok ? "ok" : "failed").toString();
        }
    }

    /**
     * One scenario in one mode run open loop at one offered rate against every system: latency at equal load.
     *
     * @param rateTps     the offered rate in transfers/s (requests/s x transfers per request).
     */
    record LatencyRow(String scenario, String mode, long rateTps, Measured tally, Measured requestPath, Measured peer, String peerVariant,
        int batchSize)
    {
        boolean ok()
        {
            return Row.ok(tally) && Row.ok(requestPath) && Row.ok(peer);
        }

        List<String> latencyLines()
        {
            final List<String> lines = new ArrayList<>();
            if (tally != null)
            {
                lines.add(line("on", tally));
            }
            if (requestPath != null)
            {
                lines.add(line("off", requestPath));
            }
            return lines;
        }

        private String line(final String readModel, final Measured t)
        {
            final boolean ok = Row.ok(t) && Row.ok(peer);
            final StringBuilder line = new StringBuilder("LATENCY scenario=").append(scenario).append(" mode=").append(mode)
                .append(" read_model=").append(readModel).append(" peer=").append(peer == null ? "n/a" : peerVariant);
            if (batchSize > 0)
            {
                line.append(" batch_size=").append(batchSize);
            }
            line.append(" rate_tps=").append(rateTps)
                .append(" tally_p50_us=").append(t.p50Text()).append(" tally_p99_us=").append(t.p99Text())
                .append(" peer_p50_us=").append(peer == null ? "n/a" : peer.p50Text())
                .append(" peer_p99_us=").append(peer == null ? "n/a" : peer.p99Text())
                .append(" kept_up=").append(t.keptUp() && (peer == null || peer.keptUp()) ? "yes" : "no");
            return line.append(" check=").append(ok ? "ok" : "failed").toString();
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
            final List<Measured> requestPath = new ArrayList<>();
            final List<Measured> peer = new ArrayList<>();
            for (final Row row : scenario.getValue())
            {
                tally.add(row.tally());
                requestPath.add(row.requestPath());
                peer.add(row.peer());
            }
            final Row first = scenario.getValue().get(0);
            medians.add(new Row(scenario.getKey(), mode, 0, Measured.median(tally), Measured.median(requestPath), Measured.median(peer),
                first.peerVariant(), first.batchSize()));
        }
        return medians;
    }

    /** @return the open-loop rows of {@code mode}. */
    List<LatencyRow> latencies(final String mode)
    {
        final List<LatencyRow> ofMode = new ArrayList<>();
        for (final LatencyRow row : latencyRows)
        {
            if (row.mode().equals(mode))
            {
                ofMode.add(row);
            }
        }
        return ofMode;
    }

    private List<String> modes()
    {
        final List<String> modes = new ArrayList<>();
        for (final Row row : rows)
        {
            if (!modes.contains(row.mode()))
            {
                modes.add(row.mode());
            }
        }
        return modes;
    }

    private List<Row> medians()
    {
        final List<Row> medians = new ArrayList<>();
        for (final String mode : modes())
        {
            medians.addAll(medians(mode));
        }
        return medians;
    }

    /** @return per scenario, mode and Tally variant, the ratio each round measured ({@code uniform sync read model on: 8.1, 8.8, 9.0}). */
    String ratiosByRound()
    {
        final Map<String, StringBuilder> lines = new LinkedHashMap<>();
        for (final Row row : rows)
        {
            if (row.tally() != null)
            {
                ratioOfRound(lines, row.scenario() + " " + row.mode() + " read model on", row.ratio());
            }
            if (row.requestPath() != null)
            {
                ratioOfRound(lines, row.scenario() + " " + row.mode() + " read model off", row.requestPathRatio());
            }
        }
        final StringBuilder text = new StringBuilder("ratio in each round:");
        lines.forEach((key, line) -> text.append("\n  ").append(key).append(": ").append(line));
        return text.toString();
    }

    private static void ratioOfRound(final Map<String, StringBuilder> lines, final String key, final double ratio)
    {
        final StringBuilder line = lines.computeIfAbsent(key, k -> new StringBuilder());
        line.append(line.length() == 0 ? "" : ", ").append(Double.isNaN(ratio) ? "-" : String.format(Locale.ROOT, "%.1f", ratio));
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
        for (final LatencyRow row : latencyRows)
        {
            if (!row.ok())
            {
                return false;
            }
        }
        return true;
    }

    /** Prints the tables (each round's, when there are several, then the medians, then latency at equal load), then every RESULT line. */
    void print(final PrintStream out)
    {
        out.println();
        out.println(summary());
    }

    /** Writes {@code summary.md} (tables and RESULT lines) and {@code results.csv} (every run) into the run's folder. */
    void write(final Path runDir) throws IOException
    {
        Files.writeString(runDir.resolve("summary.md"), machine() + "\n\n" + summary(), StandardCharsets.UTF_8);
        final StringBuilder csv = new StringBuilder("scenario,mode,round,loop,system,read_model,peer_variant,batch_size,check,tps,request_tps," +
            "catch_up_s,p50_us,p99_us,p999_us,max_us,errors,kept_up,cpu_jvm_us_per_transfer,cpu_postgres_us_per_transfer\n");
        for (final Row row : rows)
        {
            csvLine(csv, row.scenario(), row.mode(), Integer.toString(row.round()), "closed", "tally", "on", row.peerVariant(), row.batchSize(),
                row.tally());
            csvLine(csv, row.scenario(), row.mode(), Integer.toString(row.round()), "closed", "tally", "off", row.peerVariant(),
                row.batchSize(), row.requestPath());
            csvLine(csv, row.scenario(), row.mode(), Integer.toString(row.round()), "closed", "peer", "", row.peerVariant(), row.batchSize(),
                row.peer());
        }
        for (final LatencyRow row : latencyRows)
        {
            csvLine(csv, row.scenario(), row.mode(), "", "open@" + row.rateTps(), "tally", "on", row.peerVariant(), row.batchSize(), row.tally());
            csvLine(csv, row.scenario(), row.mode(), "", "open@" + row.rateTps(), "tally", "off", row.peerVariant(), row.batchSize(),
                row.requestPath());
            csvLine(csv, row.scenario(), row.mode(), "", "open@" + row.rateTps(), "peer", "", row.peerVariant(), row.batchSize(), row.peer());
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
        if (!latencyRows.isEmpty())
        {
            text.append("latency at equal load (open loop, every system at the same offered rate; latency from the intended send time):\n")
                .append(latencyTable(latencyRows)).append('\n');
        }
        for (final Row row : medians)
        {
            for (final String line : row.resultLines())
            {
                text.append(line).append('\n');
            }
        }
        for (final LatencyRow row : latencyRows)
        {
            for (final String line : row.latencyLines())
            {
                text.append(line).append('\n');
            }
        }
        return text.toString();
    }

    /** @return the Markdown table of {@code rows}: one line per row. */
    static String table(final List<Row> rows)
    {
        final StringBuilder table = new StringBuilder(
            "| mode | scenario | peer | Tally whole system (read model on) transfers/s | Tally request path (read model off) transfers/s | " +
            "peer transfers/s | ratio whole system | ratio request path | read model catch-up s | Tally whole p50 / p99 / p99.9 (us) | " +
            "Tally request path p50 / p99 / p99.9 (us) | peer p50 / p99 / p99.9 (us) | errors whole / request path / peer | " +
            "CPU us per transfer, whole (JVM + PG) | CPU us per transfer, request path | CPU us per transfer, peer (JVM + PG) | " +
            "load avg whole / request path / peer | check |\n" +
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (final Row row : rows)
        {
            table.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s / %s | %s | %s | %s | %s / %s / %s | %s |%n",
                row.mode(), row.scenario() + (row.batchSize() > 0 ? " (" + row.batchSize() + " per request)" : ""), row.peerVariant(),
                tps(row.tally()), tps(row.requestPath()), tps(row.peer()), ratioText(row.ratio()), ratioText(row.requestPathRatio()),
                row.tally() == null || !row.tally().checkOk() ? "-" : String.format(Locale.ROOT, "%.1f", row.tally().catchUpS()),
                latency(row.tally()), latency(row.requestPath()), latency(row.peer()), errors(row.tally()), errors(row.requestPath()),
                errors(row.peer()), cpu(row.tally()), cpu(row.requestPath()), cpu(row.peer()), load(row.tally()), load(row.requestPath()),
                load(row.peer()), row.ok() ? "ok" : "FAILED"));
        }
        return table.toString();
    }

    /** @return the Markdown table of the open-loop rows. */
    static String latencyTable(final List<LatencyRow> rows)
    {
        final StringBuilder table = new StringBuilder(
            "| mode | scenario | peer | offered transfers/s | Tally whole p50 / p99 / p99.9 (us) | Tally request path p50 / p99 / p99.9 (us) | " +
            "peer p50 / p99 / p99.9 (us) | kept up whole / request path / peer | check |\n|---|---|---|---|---|---|---|---|---|\n");
        for (final LatencyRow row : rows)
        {
            table.append(String.format(Locale.ROOT, "| %s | %s | %s | %,d | %s | %s | %s | %s / %s / %s | %s |%n", row.mode(),
                row.scenario() + (row.batchSize() > 0 ? " (" + row.batchSize() + " per request)" : ""), row.peerVariant(), row.rateTps(),
                latency(row.tally()), latency(row.requestPath()), latency(row.peer()), keptUp(row.tally()), keptUp(row.requestPath()),
                keptUp(row.peer()), row.ok() ? "ok" : "FAILED"));
        }
        return table.toString();
    }

    private static void csvLine(final StringBuilder csv, final String scenario, final String mode, final String round, final String loop,
        final String system, final String readModel, final String peerVariant, final int batchSize, final Measured m)
    {
        if (m == null)
        {
            return;
        }
        csv.append(String.format(Locale.ROOT, "%s,%s,%s,%s,%s,%s,%s,%d,%s,%d,%d,%s,%d,%d,%d,%d,%d,%s,%.1f,%.1f%n", scenario, mode, round, loop,
            system, readModel, peerVariant, batchSize, m.checkOk() ? "ok" : "failed", m.tps(), m.requestTps(),
            m.hasReadModel() ? String.format(Locale.ROOT, "%.1f", m.catchUpS()) : "", m.p50Us(), m.p99Us(), m.p999Us(), m.maxUs(), m.errors(),
            m.keptUp() ? "yes" : "no", m.cpu().jvmUs(), m.cpu().postgresUs()));
    }

    private static String ratioText(final double ratio)
    {
        return Double.isNaN(ratio) ? "-" : String.format(Locale.ROOT, "**%.1fx**", ratio);
    }

    private static String tps(final Measured m)
    {
        if (m == null)
        {
            return "-";
        }
        if (!m.checkOk())
        {
            return "FAILED";
        }
        return m.hasReadModel() ? String.format(Locale.ROOT, "%,d (requests %,d)", m.tps(), m.requestTps()) : String.format(Locale.ROOT, "%,d", m.tps());
    }

    private static String latency(final Measured m)
    {
        return m == null ? "-" : m.checkOk() ? String.format(Locale.ROOT, "%,d / %,d / %,d", m.p50Us(), m.p99Us(), m.p999Us()) : "FAILED";
    }

    private static String keptUp(final Measured m)
    {
        return m == null ? "-" : m.keptUp() ? "yes" : "NO";
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
