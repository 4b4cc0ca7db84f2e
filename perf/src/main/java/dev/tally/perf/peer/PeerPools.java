package dev.tally.perf.peer;

import dev.tally.perf.load.Scenario;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * The peer's pool size (HikariCP connections = JDBC threads) per scenario, as {@code compare --peer-pool} takes it:
 * one number for every scenario ({@code 8}) or {@code scenario=size} pairs over the defaults ({@code batch=4,hotDebit=16}).
 *
 * <p>The defaults come from the sweep of docs/benchmarks/history/2026-12-07-peer-pool-sweep.md ({@code
 * perf/scripts/peer-pool-sweep.sh}: sync, sub-rows, one transaction per batch request, pools 2 to 32, three rounds on
 * this 2-core machine): for each scenario the pool of the highest median throughput, or, among the pools within 5 % of
 * it (closer than the machine's noise), the one of the lowest median CPU per transfer.
 */
public final class PeerPools
{
    /**
     * The best pool of each scenario in {@code 2026-12-07-peer-pool-sweep.md}, as {@code --peer-pool} takes it;
     * {@code coldRetries}, uniform's load with 1 % retries, takes uniform's (not swept on its own).
     */
    public static final String DEFAULTS_TEXT = "uniform=2,hotCredit=8,hotDebit=4,retries=4,coldRetries=2,batch=8";
    private static final Map<Scenario, Integer> DEFAULTS = defaults();

    private final Map<Scenario, Integer> sizes;

    private PeerPools(final Map<Scenario, Integer> sizes)
    {
        this.sizes = Collections.unmodifiableMap(new EnumMap<>(sizes));
    }

    private static Map<Scenario, Integer> defaults()
    {
        final Map<Scenario, Integer> sizes = new EnumMap<>(Scenario.class);
        for (final String pair : DEFAULTS_TEXT.split(","))
        {
            final String[] parts = pair.split("=");
            sizes.put(Scenario.parse(parts[0]), Integer.parseInt(parts[1]));
        }
        return sizes;
    }

    /** @return the defaults. */
    public static PeerPools defaultSizes()
    {
        return new PeerPools(DEFAULTS);
    }

    /**
     * @param text one size for every scenario, or comma-separated {@code scenario=size} pairs that override the defaults.
     * @return the sizes, each checked against {@link PeerConfig#POOL_SIZE_MAX}.
     */
    public static PeerPools parse(final String text)
    {
        final Map<Scenario, Integer> sizes = new EnumMap<>(DEFAULTS);
        final String trimmed = text.trim();
        if (!trimmed.contains("="))
        {
            final int size = checked(Integer.parseInt(trimmed));
            sizes.replaceAll((scenario, old) -> size);
            return new PeerPools(sizes);
        }
        for (final String pair : trimmed.split(","))
        {
            final String[] parts = pair.split("=");
            if (parts.length != 2)
            {
                throw new IllegalArgumentException("expected scenario=size, was " + pair);
            }
            sizes.put(Scenario.parse(parts[0]), checked(Integer.parseInt(parts[1].trim())));
        }
        return new PeerPools(sizes);
    }

    private static int checked(final int size)
    {
        if (size < 1 || size > PeerConfig.POOL_SIZE_MAX)
        {
            throw new IllegalArgumentException("pool size must be 1.." + PeerConfig.POOL_SIZE_MAX + ", was " + size);
        }
        return size;
    }

    /** @return the pool of {@code scenario}. */
    public int of(final Scenario scenario)
    {
        return sizes.get(scenario);
    }

    /** @return the largest pool of any scenario: what the peer's PostgreSQL must accept connections for. */
    public int max()
    {
        return Collections.max(sizes.values());
    }

    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder();
        sizes.forEach((scenario, size) -> text.append(text.length() == 0 ? "" : ",").append(scenario.cliName()).append('=').append(size));
        return text.toString();
    }
}
