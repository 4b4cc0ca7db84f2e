package dev.tally.perf.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a compare run's rounds become its RESULT lines: each figure's median over the rounds, failed if any round failed,
 * one line per Tally variant (read model on and off), the whole system's rate counting the read model's catch-up.
 */
class CompareReportTest
{
    private static final String PEER = "sub-rows-16";
    private static final int WINDOW_SECONDS = 20;

    private static CompareReport.Measured ok(final long tps, final long p99Us)
    {
        return CompareReport.Measured.of(resultLine(tps, p99Us), true, new CompareReport.CpuCost(tps / 1000.0, 0, tps), "1.0", List.of());
    }

    /** Tally with its read model: {@code requestTps} in the window, then {@code catchUpS} until PostgreSQL held it. */
    private static CompareReport.Measured whole(final long requestTps, final long p99Us, final double catchUpS)
    {
        return CompareReport.Measured.of(resultLine(requestTps, p99Us), true, catchUpS, WINDOW_SECONDS, true,
            new CompareReport.CpuCost(50, 40, requestTps), "1.0", List.of());
    }

    private static String resultLine(final long tps, final long p99Us)
    {
        return "RESULT scenario=uniform mode=closed tps=" + tps + " p50_us=" + p99Us / 4 + " p99_us=" + p99Us + " p999_us=" + p99Us * 2 +
            " max_us=" + p99Us * 3 + " errors=0 check=ok";
    }

    private static CompareReport.Row row(final String scenario, final int round, final CompareReport.Measured whole,
        final CompareReport.Measured requestPath, final CompareReport.Measured peer)
    {
        return new CompareReport.Row(scenario, "sync", round, whole, requestPath, peer, PEER, "batch".equals(scenario) ? 100 : 0);
    }

    @Test
    void shouldCountTheReadModelsCatchUpInTheWholeSystemsRate()
    {
        final CompareReport.Measured measured = whole(25_000, 3_000, 5.0);

        assertEquals(20_000, measured.tps(), "25,000/s for 20 s, held by PostgreSQL 5 s later: 500,000 in 25 s");
        assertEquals(25_000, measured.requestTps());
        assertEquals(ok(25_000, 3_000).tps(), ok(25_000, 3_000).requestTps(), "without a read model the two rates are one");
    }

    @Test
    void shouldGiveTheMedianOfEachFigureAndTheRatioOfTheMediansForBothTallyVariants()
    {
        final CompareReport report = new CompareReport(List.of(
            row("uniform", 1, whole(24_000, 3_000, 0), ok(40_000, 3_000), ok(5_000, 20_000)),
            row("uniform", 2, whole(30_000, 2_000, 5.0), ok(50_000, 2_000), ok(4_000, 30_000)),
            row("uniform", 3, whole(20_000, 9_000, 0), ok(30_000, 9_000), ok(6_000, 25_000))), 3);

        final List<CompareReport.Row> medians = report.medians("sync");

        assertEquals(1, medians.size());
        final CompareReport.Row median = medians.get(0);
        assertEquals(24_000, median.tally().tps(), "24,000, 24,000 (30,000 over 25 s) and 20,000");
        assertEquals(40_000, median.requestPath().tps());
        assertEquals(5_000, median.peer().tps());
        assertEquals(25_000, median.peer().p99Us());
        assertEquals(4.8, median.ratio(), 1e-9);
        assertEquals(8.0, median.requestPathRatio(), 1e-9);
        final List<String> lines = median.resultLines();
        assertEquals(2, lines.size(), "one line per Tally variant: " + lines);
        assertEquals(Map.ofEntries(Map.entry("scenario", "uniform"), Map.entry("mode", "sync"), Map.entry("read_model", "on"),
            Map.entry("peer", PEER), Map.entry("tally_tps", "24000"), Map.entry("peer_tps", "5000"), Map.entry("ratio", "4.8"),
            Map.entry("tally_p99_us", "3000"), Map.entry("peer_p99_us", "25000"), Map.entry("tally_request_tps", "24000"),
            Map.entry("catch_up_s", "0.0"), Map.entry("check", "ok")), CompareReport.fields(lines.get(0)));
        assertEquals(Map.of("scenario", "uniform", "mode", "sync", "read_model", "off", "peer", PEER, "tally_tps", "40000", "peer_tps", "5000",
            "ratio", "8.0", "tally_p99_us", "3000", "peer_p99_us", "25000", "check", "ok"), CompareReport.fields(lines.get(1)));
        assertTrue(lines.get(0).startsWith("RESULT "), lines.get(0));
        assertTrue(report.ratiosByRound().contains("uniform sync read model off: 8.0, 12.5, 5.0"), report.ratiosByRound());
        assertTrue(report.ratiosByRound().contains("uniform sync read model on: 4.8, 6.0, 3.3"), report.ratiosByRound());
    }

    @Test
    void shouldAverageTheTwoMiddleRunsOfAnEvenNumber()
    {
        final CompareReport report = new CompareReport(List.of(
            row("batch", 1, null, ok(100_000, 20_000), null),
            row("batch", 2, null, ok(120_000, 10_000), null)), 2);

        final CompareReport.Row median = report.medians("sync").get(0);

        assertEquals(110_000, median.requestPath().tps());
        assertEquals(15_000, median.requestPath().p99Us());
        assertNull(median.peer(), "the peer did not run");
        final Map<String, String> fields = CompareReport.fields(median.resultLines().get(0));
        assertEquals("n/a", fields.get("peer_tps"));
        assertEquals("100", fields.get("batch_size"), "the batch scenario says how many transfers a request carried");
    }

    @Test
    void shouldReportTheScenarioFailedWhenAnyRoundFailedItsCheck()
    {
        final CompareReport.Measured failed = CompareReport.Measured.failed("2.0", List.of("money not conserved"));
        final CompareReport report = new CompareReport(List.of(
            row("hotCredit", 1, null, ok(40_000, 3_000), ok(3_000, 30_000)),
            row("hotCredit", 2, null, failed, ok(3_100, 31_000)),
            row("hotCredit", 3, null, ok(42_000, 3_100), ok(2_900, 29_000))), 3);

        final CompareReport.Row median = report.medians("sync").get(0);

        assertFalse(median.ok());
        assertFalse(report.allOk());
        assertEquals(List.of("money not conserved"), median.requestPath().notes());
        final Map<String, String> fields = CompareReport.fields(median.resultLines().get(0));
        assertEquals("failed", fields.get("tally_tps"));
        assertEquals("failed", fields.get("ratio"));
        assertEquals("failed", fields.get("check"));
    }

    @Test
    void shouldPrintEachRoundTheRatiosAndTheLatencyAtEqualLoad(@TempDir final Path runDir) throws Exception
    {
        final CompareReport report = new CompareReport(List.of(
            row("uniform", 1, whole(20_000, 3_000, 1.0), ok(40_000, 3_000), ok(5_000, 20_000)),
            row("batch", 1, whole(30_000, 9_000, 2.0), ok(300_000, 9_000), ok(20_000, 20_000)),
            row("uniform", 2, whole(21_000, 3_000, 1.0), ok(44_000, 3_000), ok(5_500, 20_000)),
            row("batch", 2, whole(31_000, 9_000, 2.0), ok(310_000, 9_000), ok(21_000, 20_000))),
            List.of(new CompareReport.LatencyRow("uniform", "sync", 2_600, ok(2_600, 900), ok(2_600, 700), ok(2_600, 9_000), PEER, 0)), 2);
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();

        report.print(new PrintStream(printed, true, StandardCharsets.UTF_8));
        report.write(runDir);

        final String text = printed.toString(StandardCharsets.UTF_8);
        assertEquals(List.of("RESULT scenario=uniform mode=sync read_model=on", "RESULT scenario=uniform mode=sync read_model=off",
                "RESULT scenario=batch mode=sync read_model=on", "RESULT scenario=batch mode=sync read_model=off"),
            text.lines().filter(l -> l.startsWith("RESULT")).map(l -> l.substring(0, l.indexOf(" peer="))).toList());
        assertTrue(text.contains("round 1 of 2:") && text.contains("round 2 of 2:") && text.contains("median of 2 rounds"), text);
        final String latency = text.lines().filter(l -> l.startsWith("LATENCY") && l.contains("read_model=on")).findFirst().orElseThrow();
        assertEquals(Map.ofEntries(Map.entry("scenario", "uniform"), Map.entry("mode", "sync"), Map.entry("read_model", "on"),
            Map.entry("peer", PEER), Map.entry("rate_tps", "2600"), Map.entry("tally_p50_us", "225"), Map.entry("tally_p99_us", "900"),
            Map.entry("peer_p50_us", "2250"), Map.entry("peer_p99_us", "9000"), Map.entry("kept_up", "yes"), Map.entry("check", "ok")),
            CompareReport.fields(latency));
        final List<String> csv = Files.readAllLines(runDir.resolve("results.csv"));
        assertEquals(1 + 12 + 3, csv.size(), "a header, one line per round, scenario and system, and one per open-loop run");
        assertTrue(csv.contains("uniform,sync,2,closed,peer,,sub-rows-16,0,ok,5500,5500,,5000,20000,40000,60000,0,yes,5.5,0.0"), csv.toString());
        assertTrue(csv.contains("batch,sync,1,closed,tally,on,sub-rows-16,100,ok,27273,30000,2.0,2250,9000,18000,27000,0,yes,50.0,40.0"),
            csv.toString());
        assertEquals(text.strip(), Files.readString(runDir.resolve("summary.md")).lines().skip(2).reduce((a, b) -> a + "\n" + b).orElse("").strip());
    }
}
