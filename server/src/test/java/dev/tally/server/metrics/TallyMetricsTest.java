package dev.tally.server.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TallyMetricsTest
{
    @Test
    void shouldExportTheBusinessThreadsBusyTimeInSeconds()
    {
        final TallyMetrics metrics = new TallyMetrics();
        metrics.businessBatch(1_000_000_000L);
        metrics.businessBatch(500_000_000L);

        final PrometheusText.Family busy = PrometheusText.parse(metrics.scrape()).get("tally_business_busy_seconds_total");
        assertEquals("counter", busy.type());
        assertEquals(1.5, busy.samples().get(0).value(), "1.5 s of batches");
    }
}
