package dev.tally.server.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The test-side reader of the Prometheus text format takes what the format allows and refuses the rest. */
class PrometheusTextTest
{
    private static final String VALID = """
        # HELP requests_seconds Time per request, with a \\\\ and a\\nnewline
        # TYPE requests_seconds summary
        requests_seconds{route="/v1/a",quantile="0.5"} 0.25
        requests_seconds{route="/v1/a",quantile="0.99"} NaN
        requests_seconds_count{route="/v1/a"} 3
        requests_seconds_sum{route="/v1/a"} 1.5e-1
        # a comment
        # HELP up 1 when up
        # TYPE up gauge
        up{path="C:\\\\dir",quote="say \\"hi\\"",line="a\\nb",} +Inf 1700000000000
        # TYPE rows_total counter
        # HELP rows_total Rows written
        rows_total 7

        # TYPE latency histogram
        latency_bucket{le="0.1"} 1
        latency_bucket{le="+Inf"} 2
        latency_sum 0.3
        latency_count 2
        unannounced 1
        """;

    @Test
    void shouldReadFamiliesWithTheirHelpTypeAndSamples()
    {
        final Map<String, PrometheusText.Family> families = PrometheusText.parse(VALID);
        assertEquals(List.of("requests_seconds", "up", "rows_total", "latency", "unannounced"), List.copyOf(families.keySet()));
        final PrometheusText.Family requests = families.get("requests_seconds");
        assertEquals("Time per request, with a \\ and a\nnewline", requests.help());
        assertEquals("summary", requests.type());
        assertEquals(4, requests.samples().size());
        assertTrue(Double.isNaN(requests.samples().get(1).value()));
        assertEquals(0.15, requests.samples().get(3).value());
        final PrometheusText.Sample up = families.get("up").samples().get(0);
        assertEquals(Map.of("path", "C:\\dir", "quote", "say \"hi\"", "line", "a\nb"), up.labels());
        assertEquals(Double.POSITIVE_INFINITY, up.value());
        assertEquals("Rows written", families.get("rows_total").help());
        assertEquals(4, families.get("latency").samples().size());
        assertEquals(null, families.get("unannounced").type(), "a sample without TYPE is an untyped family of its own");
    }

    @Test
    void shouldRefuseWhatPrometheusRefuses()
    {
        refuse("# TYPE a gauge\na 1", "does not end in a newline");
        refuse("a 1\n# TYPE a gauge\n", "TYPE for a after its first sample");
        refuse("# TYPE a gauge\n# TYPE a counter\n", "a second TYPE");
        refuse("# HELP a x\n# HELP a y\n", "a second HELP");
        refuse("# TYPE a meter\n", "unknown TYPE");
        refuse("a 1\nb 1\na 2\n", "not together");
        refuse("a{x=\"1\"} 1\na{x=\"1\"} 2\n", "the same sample twice");
        refuse("a{x=\"1\",x=\"2\"} 1\n", "given twice");
        refuse("a{x=\"\\t\"} 1\n", "invalid escape");
        refuse("a{x=1} 1\n", "not quoted");
        refuse("a{x=\"1\" 1\n", "expected , or }");
        refuse("a{0x=\"1\"} 1\n", "invalid label name");
        refuse("0a 1\n", "invalid metric name");
        refuse("a\n", "no value");
        refuse("a one\n", "invalid value");
        refuse("a 1 2 3\n", "at most a timestamp");
        refuse("a 1 1.5\n", "invalid timestamp");
        refuse("# TYPE s summary\ns 1\n", "without a quantile");
        refuse("# TYPE h histogram\nh_bucket 1\n", "without an le");
    }

    private static void refuse(final String text, final String problem)
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> PrometheusText.parse(text), text);
        assertTrue(refused.getMessage().contains(problem), () -> text + " -> " + refused.getMessage());
    }
}
