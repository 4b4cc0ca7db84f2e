package dev.tally.server.it;

import dev.tally.gateway.ReactorFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * docs/grafana-tally.json queries only what {@code GET /metrics} really exports: a server with its
 * embedded PostgreSQL runs a workload that touches every panel ({@link WorkloadScrape}), and each selector of the
 * dashboard ({@code name{label="value",...}}) must match a sample of the scrape.
 */
class GrafanaDashboardIT
{
    private static final Pattern EXPR = Pattern.compile("\"expr\": \"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern SELECTOR = Pattern.compile("(tally_[a-z_]+)(\\{([^}]*)})?");
    private static final Pattern MATCHER = Pattern.compile("([a-z_]+)=\\\\?\"([^\"\\\\]*)\\\\?\"");

    @TempDir
    static Path dataDir;

    @Test
    void shouldQueryOnlyMetricsTheServerExports() throws Exception
    {
        final String dashboard = Files.readString(ReactorFiles.locate("docs/grafana-tally.json"));
        final String scrape = WorkloadScrape.get(dataDir).text();
        final List<String> missing = new ArrayList<>();
        final Matcher expr = EXPR.matcher(dashboard);
        int selectors = 0;
        while (expr.find())
        {
            final Matcher selector = SELECTOR.matcher(expr.group(1));
            while (selector.find())
            {
                selectors++;
                if (!exported(scrape, selector.group(1), selector.group(3)))
                {
                    missing.add(selector.group());
                }
            }
        }
        assertFalse(selectors == 0, "no selector found in the dashboard");
        assertEquals(List.of(), missing, "dashboard selectors without a sample in GET /metrics:\n" + scrape);
    }

    /** @return true when a sample of {@code name} carries every label matcher but {@code instance} (which Prometheus adds). */
    private static boolean exported(final String scrape, final String name, final String matchers)
    {
        final Matcher sample = Pattern.compile("(?m)^" + name + "(\\{[^}]*})? ").matcher(scrape);
        while (sample.find())
        {
            final String labels = sample.group(1) == null ? "" : sample.group(1);
            boolean all = true;
            final Matcher matcher = MATCHER.matcher(matchers == null ? "" : matchers);
            while (matcher.find())
            {
                if (!matcher.group(1).equals("instance") && !labels.contains(matcher.group(1) + "=\"" + matcher.group(2) + "\""))
                {
                    all = false;
                }
            }
            if (all)
            {
                return true;
            }
        }
        return false;
    }
}
