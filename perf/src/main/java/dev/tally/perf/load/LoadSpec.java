package dev.tally.perf.load;

/**
 * One load run, validated once when built: every limit is named and checked here.
 *
 * @param scenario            what is sent.
 * @param mode                closed or open loop.
 * @param connections         keep-alive connections to the server.
 * @param depth               requests in flight per connection (HTTP/1.1 pipelining when above 1).
 * @param rateRps             open loop: requests per second (ignored in closed loop).
 * @param seconds             measured duration.
 * @param warmupSeconds       unmeasured load before the measured window (same load, nothing recorded).
 * @param accounts            accounts the run creates, funding and hot accounts included.
 * @param batchSize           transfers per request of the {@code batch} scenario.
 * @param hotSubBalances      sub-balances of the hot account ({@code hotCredit}, {@code hotDebit}).
 * @param hotDebitConstrained {@code hotDebit}: the hot account is constrained (funded with a huge balance)
 *                            rather than an unconstrained funding account.
 * @param checkSample         customer accounts read back by the check (all of them when there are fewer).
 * @param drainSeconds        after the run, how long replies to requests in flight are awaited.
 * @param clientThreads       Netty event-loop threads of the client.
 * @param seed                seed of every random choice (accounts, retries, samples).
 * @param references          every transfer carries a unique {@code reference} (derived from its key).
 * @param metadata            every transfer carries {@link RequestTemplate#METADATA} as its {@code metadata}.
 * @param pauseAfter503Ms     closed loop: a connection answered 503 waits this long before its next request, as a
 *                            client honouring Tally's {@code Retry-After: 1} does; 0 sends at once, which spends the
 *                            server's CPU on refusals while it sheds load.
 */
public record LoadSpec(
    Scenario scenario,
    Mode mode,
    int connections,
    int depth,
    int rateRps,
    int seconds,
    int warmupSeconds,
    int accounts,
    int batchSize,
    int hotSubBalances,
    boolean hotDebitConstrained,
    int checkSample,
    int drainSeconds,
    int clientThreads,
    long seed,
    boolean references,
    boolean metadata,
    int pauseAfter503Ms)
{
    /** What Tally's 503 replies ask for ({@code Retry-After: 1}). */
    public static final int PAUSE_AFTER_503_MS_DEFAULT = 1_000;
    public static final int CONNECTIONS_MAX = 4_096;
    public static final int DEPTH_MAX = 256;
    public static final int RATE_MAX_RPS = 5_000_000;
    public static final int SECONDS_MAX = 3_600;
    public static final int ACCOUNTS_MIN = 4;
    public static final int ACCOUNTS_MAX = 100_000_000;
    /** The server's batch limit ({@code LedgerLimits.BATCH_OPERATIONS_MAX}). */
    public static final int BATCH_SIZE_MAX = 8_190;
    public static final int SUB_BALANCES_MAX = 64;
    public static final int CLIENT_THREADS_MAX = 16;

    /** Transfers without references or metadata. */
    public LoadSpec(
        final Scenario scenario, final Mode mode, final int connections, final int depth, final int rateRps, final int seconds,
        final int warmupSeconds, final int accounts, final int batchSize, final int hotSubBalances, final boolean hotDebitConstrained,
        final int checkSample, final int drainSeconds, final int clientThreads, final long seed)
    {
        this(scenario, mode, connections, depth, rateRps, seconds, warmupSeconds, accounts, batchSize, hotSubBalances,
            hotDebitConstrained, checkSample, drainSeconds, clientThreads, seed, false, false, PAUSE_AFTER_503_MS_DEFAULT);
    }

    /** Checks every limit, with a message that names it. */
    public LoadSpec
    {
        requireRange("connections", connections, 1, CONNECTIONS_MAX);
        requireRange("depth", depth, 1, DEPTH_MAX);
        if (mode == Mode.OPEN)
        {
            requireRange("rate", rateRps, 1, RATE_MAX_RPS);
        }
        requireRange("seconds", seconds, 1, SECONDS_MAX);
        requireRange("warmup seconds", warmupSeconds, 0, SECONDS_MAX);
        requireRange("accounts", accounts, ACCOUNTS_MIN, ACCOUNTS_MAX);
        requireRange("batch size", batchSize, 1, BATCH_SIZE_MAX);
        requireRange("hot sub-balances", hotSubBalances, 1, SUB_BALANCES_MAX);
        requireRange("check sample", checkSample, 0, ACCOUNTS_MAX);
        requireRange("drain seconds", drainSeconds, 1, 600);
        requireRange("client threads", clientThreads, 1, CLIENT_THREADS_MAX);
        requireRange("pause after 503 ms", pauseAfter503Ms, 0, 60_000);
        if (clientThreads > connections)
        {
            throw new IllegalArgumentException("client threads (" + clientThreads + ") must not exceed connections (" + connections + ")");
        }
    }

    /** @return ledger operations carried by one request. */
    public int operationsPerRequest()
    {
        return scenario == Scenario.BATCH ? batchSize : 1;
    }

    private static void requireRange(final String name, final long value, final long min, final long max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(name + " must be " + min + ".." + max + ", was " + value);
        }
    }
}
