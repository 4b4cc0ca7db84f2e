package dev.tally.perf.load;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import dev.tally.server.cli.TransportConverter;
import dev.tally.gateway.http.NettyTransport;
import picocli.CommandLine;

/** The options {@code run} and {@code bench} share: what load to send and how to check it. */
final class LoadOptions
{
    /** When this process started: names the folder of its histogram files. */
    private static final String STARTED = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));

    @CommandLine.Option(names = "--scenario", defaultValue = "uniform", split = ",",
        description = "uniform, hotCredit, hotDebit, retries, coldRetries or batch; a comma-separated list runs each in turn (default: ${DEFAULT-VALUE}).")
    List<String> scenarios = new ArrayList<>();

    @CommandLine.Option(names = "--transport", defaultValue = "auto", converter = TransportConverter.class,
        description = "Netty transport of the load client (and of bench's server): auto (io_uring where the kernel offers it, " +
            "else nio), nio or io_uring (default: ${DEFAULT-VALUE}).")
    NettyTransport transport;

    @CommandLine.Option(names = "--mode", defaultValue = "closed", description = "closed or open loop (default: ${DEFAULT-VALUE}).")
    String mode;

    @CommandLine.Option(names = "--connections", defaultValue = "64", description = "Keep-alive connections (default: ${DEFAULT-VALUE}).")
    int connections;

    @CommandLine.Option(names = "--depth", defaultValue = "1",
        description = "Requests in flight per connection; above 1 is HTTP/1.1 pipelining (default: ${DEFAULT-VALUE}).")
    int depth;

    @CommandLine.Option(names = "--rate", defaultValue = "20000", description = "Open loop: requests per second (default: ${DEFAULT-VALUE}).")
    int rate;

    @CommandLine.Option(names = "--seconds", defaultValue = "30", description = "Measured seconds (default: ${DEFAULT-VALUE}).")
    int seconds;

    @CommandLine.Option(names = "--warmup-seconds", defaultValue = "10", description = "Unmeasured warmup seconds (default: ${DEFAULT-VALUE}).")
    int warmupSeconds;

    @CommandLine.Option(names = "--accounts",
        description = "Accounts the run creates, funding and hot included (default: 1000000 for uniform and batch, 100000 otherwise).")
    Integer accounts;

    @CommandLine.Option(names = "--batch-size", defaultValue = "100", description = "Transfers per batch request (default: ${DEFAULT-VALUE}).")
    int batchSize;

    @CommandLine.Option(names = "--hot-sub-balances", defaultValue = "16", description = "Sub-balances of the hot account (default: ${DEFAULT-VALUE}).")
    int hotSubBalances;

    @CommandLine.Option(names = "--hot-debit-account", defaultValue = "constrained",
        description = "hotDebit: 'constrained' (funded with a huge balance) or 'funding' (unconstrained) (default: ${DEFAULT-VALUE}).")
    String hotDebitAccount;

    @CommandLine.Option(names = "--check-sample", defaultValue = "1000",
        description = "Customer accounts read back by the check; all when there are fewer (default: ${DEFAULT-VALUE}).")
    int checkSample;

    @CommandLine.Option(names = "--drain-seconds", defaultValue = "10",
        description = "After the run, how long to wait for replies in flight (default: ${DEFAULT-VALUE}).")
    int drainSeconds;

    @CommandLine.Option(names = "--client-threads", defaultValue = "1", description = "Client event-loop threads (default: ${DEFAULT-VALUE}).")
    int clientThreads;

    @CommandLine.Option(names = "--references",
        description = "Every transfer carries a unique reference (the server checks references older than it remembers against PostgreSQL).")
    boolean references;

    @CommandLine.Option(names = "--metadata",
        description = "Every transfer carries the same metadata object (3 members, 59 bytes canonical), as payment traffic usually does.")
    boolean metadata;

    @CommandLine.Option(names = "--pause-after-503-ms", defaultValue = "" + LoadSpec.PAUSE_AFTER_503_MS_DEFAULT,
        description = "Closed loop: a connection answered 503 waits this long before its next request, as a client honouring " +
            "Retry-After: 1 does; 0 sends at once, spending the server's CPU on refusals (default: ${DEFAULT-VALUE}).")
    int pauseAfter503Ms;

    @CommandLine.Option(names = "--seed", defaultValue = "42", description = "Seed of the random choices (default: ${DEFAULT-VALUE}).")
    long seed;

    @CommandLine.Option(names = "--results-dir",
        description = "Where .hgrm files go, in a load-<date>-<time> folder (default: perf/results from the repository root, else results).")
    Path resultsDir;

    /** @return one validated spec per scenario asked for. */
    List<LoadSpec> specs()
    {
        if (!"constrained".equals(hotDebitAccount) && !"funding".equals(hotDebitAccount))
        {
            throw new IllegalArgumentException("--hot-debit-account must be constrained or funding, was " + hotDebitAccount);
        }
        final List<LoadSpec> specs = new ArrayList<>();
        for (final String name : scenarios)
        {
            final Scenario scenario = Scenario.parse(name);
            specs.add(new LoadSpec(scenario, Mode.parse(mode), connections, depth, rate, seconds, warmupSeconds,
                accounts != null ? accounts : scenario.accountsDefault(), batchSize, hotSubBalances, "constrained".equals(hotDebitAccount),
                checkSample, drainSeconds, clientThreads, seed, references, metadata, pauseAfter503Ms));
        }
        return specs;
    }

    /** @return the folder for this invocation's histogram files: {@code load-<date>-<time>} under the results folder. */
    Path resultsDir()
    {
        final Path base = resultsDir != null ? resultsDir :
            Files.isDirectory(Path.of("perf", "src")) ? Path.of("perf", "results") : Path.of("results");
        return base.resolve("load-" + STARTED);
    }

}
