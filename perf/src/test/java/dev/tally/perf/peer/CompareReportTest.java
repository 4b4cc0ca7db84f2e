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

/** How a compare run's rounds become its RESULT lines: each figure's median over the rounds, and failed if any round failed. */
class CompareReportTest
{
    private static CompareReport.Measured ok(final long tps, final long p99Us)
    {
        return CompareReport.Measured.of("RESULT scenario=uniform mode=closed tps=" + tps + " p50_us=" + p99Us / 4 + " p99_us=" + p99Us +
            " p999_us=" + p99Us * 2 + " max_us=" + p99Us * 3 + " errors=0 check=ok", true, new CompareReport.CpuCost(tps / 1000.0, 0, tps), "1.0",
            List.of());
    }

    @Test
    void shouldGiveTheMedianOfEachFigureAndTheRatioOfTheMedians()
    {
        final CompareReport report = new CompareReport(List.of(
            new CompareReport.Row("uniform", "sync", 1, ok(40_000, 3_000), ok(5_000, 20_000)),
            new CompareReport.Row("uniform", "sync", 2, ok(50_000, 2_000), ok(4_000, 30_000)),
            new CompareReport.Row("uniform", "sync", 3, ok(30_000, 9_000), ok(6_000, 25_000))), 3);

        final List<CompareReport.Row> medians = report.medians("sync");

        assertEquals(1, medians.size());
        final CompareReport.Row median = medians.get(0);
        assertEquals(40_000, median.tally().tps());
        assertEquals(3_000, median.tally().p99Us());
        assertEquals(5_000, median.peer().tps());
        assertEquals(25_000, median.peer().p99Us());
        assertEquals(8.0, median.ratio(), 1e-9);
        assertEquals(Map.of("scenario", "uniform", "mode", "sync", "tally_tps", "40000", "peer_tps", "5000", "ratio", "8.0",
            "tally_p99_us", "3000", "peer_p99_us", "25000", "check", "ok"), CompareReport.fields(median.resultLine()));
        assertTrue(median.resultLine().startsWith("RESULT "), median.resultLine());
        assertTrue(report.ratiosByRound().contains("uniform sync: 8.0, 12.5, 5.0"), report.ratiosByRound());
    }

    @Test
    void shouldAverageTheTwoMiddleRunsOfAnEvenNumber()
    {
        final CompareReport report = new CompareReport(List.of(
            new CompareReport.Row("batch", "sync", 1, ok(100_000, 20_000), null),
            new CompareReport.Row("batch", "sync", 2, ok(120_000, 10_000), null)), 2);

        final CompareReport.Row median = report.medians("sync").get(0);

        assertEquals(110_000, median.tally().tps());
        assertEquals(15_000, median.tally().p99Us());
        assertNull(median.peer(), "the peer did not run");
        assertEquals("n/a", CompareReport.fields(median.resultLine()).get("peer_tps"));
    }

    @Test
    void shouldReportTheScenarioFailedWhenAnyRoundFailedItsCheck()
    {
        final CompareReport.Measured failed = CompareReport.Measured.failed("2.0", List.of("money not conserved"));
        final CompareReport report = new CompareReport(List.of(
            new CompareReport.Row("hotCredit", "sync", 1, ok(40_000, 3_000), ok(3_000, 30_000)),
            new CompareReport.Row("hotCredit", "sync", 2, failed, ok(3_100, 31_000)),
            new CompareReport.Row("hotCredit", "sync", 3, ok(42_000, 3_100), ok(2_900, 29_000))), 3);

        final CompareReport.Row median = report.medians("sync").get(0);

        assertFalse(median.ok());
        assertFalse(report.allOk());
        assertEquals(List.of("money not conserved"), median.tally().notes());
        final Map<String, String> fields = CompareReport.fields(median.resultLine());
        assertEquals("failed", fields.get("tally_tps"));
        assertEquals("failed", fields.get("ratio"));
        assertEquals("failed", fields.get("check"));
    }

    @Test
    void shouldPrintEachRoundAndOneResultLinePerScenarioAndMode(@TempDir final Path runDir) throws Exception
    {
        final CompareReport report = new CompareReport(List.of(
            new CompareReport.Row("uniform", "sync", 1, ok(40_000, 3_000), ok(5_000, 20_000)),
            new CompareReport.Row("batch", "sync", 1, ok(300_000, 9_000), ok(5_000, 20_000)),
            new CompareReport.Row("uniform", "sync", 2, ok(44_000, 3_000), ok(5_500, 20_000)),
            new CompareReport.Row("batch", "sync", 2, ok(310_000, 9_000), ok(5_100, 20_000))), 2);
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();

        report.print(new PrintStream(printed, true, StandardCharsets.UTF_8));
        report.write(runDir);

        final String text = printed.toString(StandardCharsets.UTF_8);
        assertEquals(List.of("RESULT scenario=uniform", "RESULT scenario=batch"),
            text.lines().filter(l -> l.startsWith("RESULT")).map(l -> l.substring(0, l.indexOf(" mode"))).toList());
        assertTrue(text.contains("round 1 of 2:") && text.contains("round 2 of 2:") && text.contains("median of 2 rounds"), text);
        final List<String> csv = Files.readAllLines(runDir.resolve("results.csv"));
        assertEquals(1 + 8, csv.size(), "a header and one line per round, scenario and system");
        assertTrue(csv.contains("uniform,sync,2,peer,ok,5500,5000,20000,40000,60000,0,5.5,0.0"), csv.toString());
        assertEquals(text.strip(), Files.readString(runDir.resolve("summary.md")).lines().skip(2).reduce((a, b) -> a + "\n" + b).orElse("").strip());
    }
}
