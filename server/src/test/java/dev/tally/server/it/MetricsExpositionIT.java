package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.server.metrics.PrometheusText;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} of a real server with every meter it can export, after a workload ({@link WorkloadScrape}), read
 * by a strict Prometheus text parser: each family has HELP and TYPE, exactly the counters end in {@code _total}, every
 * time is in seconds by name and by value, and the JVM's and the process's families are there. What
 * {@code promtool check metrics}, a dashboard's {@code rate()} and its units rely on.
 */
class MetricsExpositionIT
{
    /** Name parts that make a family a time: it must then be in seconds. */
    private static final Set<String> TIME_WORDS = Set.of("time", "duration", "latency", "age", "uptime", "busy", "pause", "elapsed",
        "delay", "wait");
    /** Name parts that are a time unit other than the second. */
    private static final Set<String> OTHER_TIME_UNITS = Set.of("ns", "nanos", "nanoseconds", "us", "micros", "microseconds", "ms",
        "millis", "milliseconds", "minutes", "hours", "days");
    private static final double SLACK_S = 1;

    @TempDir
    static Path dataDir;

    private static Map<String, PrometheusText.Family> families;
    private static double serverLifetimeS;
    private static double jvmUptimeS;

    @BeforeAll
    static void scrapeAServerAfterAWorkload() throws Exception
    {
        final WorkloadScrape scrape = WorkloadScrape.get(dataDir);
        serverLifetimeS = scrape.serverLifetimeS();
        jvmUptimeS = ManagementFactory.getRuntimeMXBean().getUptime() / 1e3;
        families = PrometheusText.parse(scrape.text());
    }

    @Test
    void shouldGiveEveryFamilyHelpTextAndAType()
    {
        final List<String> without = new ArrayList<>();
        families.values().forEach(family ->
        {
            if (family.help() == null || family.help().isBlank() || family.type() == null || family.type().equals("untyped"))
            {
                without.add(family.name() + " (HELP " + family.help() + ", TYPE " + family.type() + ")");
            }
        });
        assertEquals(List.of(), without, "families without HELP text or TYPE");
    }

    @Test
    void shouldEndTheNameOfEveryCounterAndOfNothingElseInTotal()
    {
        final List<String> wrong = new ArrayList<>();
        families.values().forEach(family ->
        {
            if (family.type() != null && family.type().equals("counter") != family.name().endsWith("_total"))
            {
                wrong.add(family.name() + " (" + family.type() + ")");
            }
        });
        assertEquals(List.of(), wrong, "a counter's name ends in _total, any other's does not");
        for (final String monotonic : List.of("tally_pg_writer_rows_total", "tally_pg_writer_batch_retries_total",
            "tally_business_busy_seconds_total", "tally_webhook_failures_total", "process_cpu_seconds_total"))
        {
            assertEquals("counter", family(monotonic).type(), monotonic + " only grows: a counter, so that rate() works");
        }
    }

    @Test
    void shouldExportEveryTimeInSeconds()
    {
        final List<String> wrong = new ArrayList<>();
        int times = 0;
        for (final PrometheusText.Family family : families.values())
        {
            final List<String> words = Arrays.asList(family.name().split("_"));
            final boolean seconds = isSeconds(family.name());
            if (words.stream().anyMatch(OTHER_TIME_UNITS::contains) || words.stream().anyMatch(TIME_WORDS::contains) && !seconds)
            {
                wrong.add(family.name() + ": a time not in seconds");
            }
            if (seconds)
            {
                times++;
                family.samples().forEach(sample -> checkPlausible(family, sample, wrong));
            }
        }
        assertEquals(List.of(), wrong, "times not in seconds (lifetime " + serverLifetimeS + " s, JVM uptime " + jvmUptimeS + " s)");
        assertTrue(times >= 15, "the server's and the JVM's times: " + times);
        assertTrue(family("tally_business_busy_seconds_total").samples().get(0).value() > 0, "the business thread applied the workload");
    }

    @Test
    void shouldExportTheJvmAndTheProcess()
    {
        final Set<String> expected = new TreeSet<>(List.of("jvm_memory_used_bytes", "jvm_memory_committed_bytes", "jvm_memory_max_bytes",
            "jvm_buffer_memory_used_bytes", "jvm_gc_memory_allocated_bytes_total", "jvm_gc_live_data_size_bytes",
            "jvm_threads_live_threads", "jvm_threads_states_threads", "jvm_classes_loaded_classes", "system_cpu_count",
            "process_cpu_usage", "process_cpu_seconds_total", "process_uptime_seconds", "process_start_time_seconds",
            "process_files_open_files", "process_files_max_files"));
        expected.removeAll(families.keySet());
        assertEquals(Set.of(), expected, "JVM and process families missing");
        assertTrue(family("jvm_memory_used_bytes").samples().stream().anyMatch(s -> "heap".equals(s.labels().get("area"))));
    }

    private static boolean isSeconds(final String name)
    {
        return name.endsWith("_seconds") || name.endsWith("_seconds_total") || name.endsWith("_seconds_max");
    }

    /**
     * A time of the server is at most its lifetime, one of the JVM's at most the JVM's uptime; a sum over threads or
     * requests (a counter, a summary's {@code _sum}) at most that once per processor. The start time is an epoch time.
     */
    private static void checkPlausible(final PrometheusText.Family family, final PrometheusText.Sample sample, final List<String> wrong)
    {
        if (sample.name().endsWith("_count"))
        {
            return;
        }
        final double value = sample.value();
        if (family.name().equals("process_start_time_seconds"))
        {
            final double startS = ManagementFactory.getRuntimeMXBean().getStartTime() / 1e3;
            if (Math.abs(value - startS) > SLACK_S)
            {
                wrong.add(sample.name() + " " + value + ": the JVM started at " + startS);
            }
            return;
        }
        final double span = family.name().startsWith("tally_") ? serverLifetimeS : jvmUptimeS;
        final boolean summed = family.type().equals("counter") || sample.name().endsWith("_sum");
        final double bound = (summed ? span * Runtime.getRuntime().availableProcessors() : span) + SLACK_S;
        if (!Double.isFinite(value) || value < 0 || value > bound)
        {
            wrong.add(sample.name() + sample.labels() + " " + value + " (at most " + bound + " s)");
        }
    }

    private static PrometheusText.Family family(final String name)
    {
        final PrometheusText.Family family = families.get(name);
        assertTrue(family != null, () -> "no family " + name + " in " + families.keySet());
        return family;
    }
}
