package dev.tally.server.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code tally serve} in a separate JVM, started from the test class path, so that it can be killed
 * with SIGKILL ({@link Process#destroyForcibly()}) like a real crash. It binds port 0 on loopback and
 * the test reads the port it printed; output goes to a log file that failures quote.
 */
final class TallyProcess implements AutoCloseable
{
    static final String TENANT_KEY = "tenant-key-1";
    static final long START_TIMEOUT_MS = 60_000;
    static final long EXIT_TIMEOUT_MS = 30_000;
    private static final long POLL_INTERVAL_MS = 50;
    /** How Netty's detector starts a leak report ({@code ResourceLeakDetector}, logged at ERROR). */
    static final String LEAK_REPORT = "LEAK: ";
    private static final int LEAK_EXCERPT_CHARS = 4000;
    private static final Pattern LISTENING = Pattern.compile("tally listening on http://127\\.0\\.0\\.1:(\\d+)");

    /**
     * What Chronicle needs on JDK 17+: a copy of the parent pom's {@code tally.jvm.opens}, used only when
     * the test JVM itself was started without them (the flags it was started with are preferred, so the
     * two cannot drift apart under Maven).
     */
    private static final List<String> JVM_OPENS_FALLBACK = List.of(
        "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
        "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED");

    private final Process process;
    private final Path log;
    private final int port;

    private TallyProcess(final Process process, final Path log, final int port)
    {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /**
     * Starts {@code tally serve} on {@code dataDir} and waits until {@code /ready} answers 200.
     *
     * @param durability {@code async} or {@code sync}.
     * @param log        file receiving the process's stdout and stderr.
     */
    /** The ledger capacities every process of a test uses: replay and verify must match the server's. */
    static final List<String> CAPACITIES = List.of(
        "--accounts-max", "1000", "--sub-balances-max", "4000", "--keys-max", "200000", "--transfers-max", "200000",
        "--holds-max", "1000");

    /**
     * Runs {@code tally verify} on a stopped server's data folder (journal vs its embedded PostgreSQL).
     *
     * @return the exit status; the output goes to {@code log}.
     */
    static int verify(final Path dataDir, final Path log) throws InterruptedException, IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx512m");
        command.add("-Dchronicle.analytics.disable=true");
        command.addAll(jvmOpens());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("dev.tally.server.cli.TallyMain");
        command.addAll(List.of("verify", "--data-dir", dataDir.toString()));
        command.addAll(CAPACITIES);
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!process.waitFor(120, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new IllegalStateException("tally verify did not finish in 120 s");
        }
        return process.exitValue();
    }

    static TallyProcess start(final Path dataDir, final String durability, final Path log) throws InterruptedException
    {
        return start(dataDir, durability, log, List.of(), List.of(), java.util.Map.of());
    }

    /** As above, with more {@code serve} flags and environment variables (e.g. a secret kept off the command line). */
    static TallyProcess start(final Path dataDir, final String durability, final Path log, final List<String> serveArgs,
                              final java.util.Map<String, String> environment) throws InterruptedException
    {
        return start(dataDir, durability, log, List.of(), serveArgs, environment);
    }

    /** As below, without extra environment variables. */
    static TallyProcess start(final Path dataDir, final String durability, final Path log, final List<String> jvmArgs,
        final List<String> serveArgs) throws InterruptedException
    {
        return start(dataDir, durability, log, jvmArgs, serveArgs, java.util.Map.of());
    }

    /**
     * @param jvmArgs     more JVM arguments (system properties for fault injection).
     * @param serveArgs   more {@code tally serve} options.
     * @param environment more environment variables of the child.
     */
    static TallyProcess start(final Path dataDir, final String durability, final Path log, final List<String> jvmArgs,
        final List<String> serveArgs, final java.util.Map<String, String> environment) throws InterruptedException
    {
        final Process process = spawn(dataDir, durability, log, jvmArgs, serveArgs, environment);
        final TallyProcess tally = new TallyProcess(process, log, awaitPort(process, log));
        tally.awaitReady();
        return tally;
    }

    /** Starts {@code tally serve} without waiting for anything: for a test that kills it during start-up. */
    static Process spawn(final Path dataDir, final String durability, final Path log, final List<String> jvmArgs,
        final List<String> serveArgs, final java.util.Map<String, String> environment)
    {
        return spawn(dataDir, durability, log, jvmArgs, CAPACITIES, serveArgs, environment);
    }

    /** As {@link #start(Path, String, Path, List, List)}, with other ledger capacities than {@link #CAPACITIES}. */
    static TallyProcess startWithCapacities(final Path dataDir, final String durability, final Path log, final List<String> capacities,
        final List<String> serveArgs) throws InterruptedException
    {
        final Process process = spawn(dataDir, durability, log, List.of(), capacities, serveArgs, java.util.Map.of());
        final TallyProcess tally = new TallyProcess(process, log, awaitPort(process, log));
        tally.awaitReady();
        return tally;
    }

    private static Process spawn(final Path dataDir, final String durability, final Path log, final List<String> jvmArgs,
        final List<String> capacities, final List<String> serveArgs, final java.util.Map<String, String> environment)
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx512m");
        command.add("-Dchronicle.analytics.disable=true");
        command.add("-Dio.netty.leakDetection.level=paranoid");   // as in the test JVMs: close() fails on a logged leak
        command.addAll(jvmArgs);
        command.addAll(jvmOpens());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("dev.tally.server.cli.TallyMain");
        command.addAll(List.of("serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir.toString(),
            "--api-key", "t:" + TENANT_KEY, "--durability", durability, "--io-threads", "2"));
        // small tables: the ledger allocates them at full size on start
        command.addAll(capacities);
        command.addAll(serveArgs);
        try
        {
            final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            builder.environment().putAll(environment);
            return builder.start();
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    int port()
    {
        return port;
    }

    long pid()
    {
        return process.pid();
    }

    /**
     * Waits until PostgreSQL has every command journaled before this call (the writer's watermark reaches the
     * journal index read first; under async that takes up to a force interval, as the writer takes only forced
     * commands); fails after 10 s.
     */
    void awaitWriterCaughtUp() throws InterruptedException
    {
        awaitWatermark("tally_pg_writer_watermark", "the writer");
    }

    /** Waits until the cold index holds every command journaled before this call; fails after 10 s. */
    void awaitColdIndexCaughtUp() throws InterruptedException
    {
        awaitWatermark("tally_cold_watermark", "the cold index");
    }

    /** Waits until the gauge {@code watermark} reaches the journal index read first; fails after 10 s. */
    private void awaitWatermark(final String watermark, final String whose) throws InterruptedException
    {
        final TallyClient client = client();
        final long journaled = (long)gauge(client.get("/metrics").body(), "tally_journal_index");
        for (int i = 0; i < 200; i++)
        {
            if (gauge(client.get("/metrics").body(), watermark) >= journaled)
            {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError(whose + " did not reach journal index " + journaled + " in 10 s\n" + logTail());
    }

    /** @return the value of the sample {@code name} (no labels) in a {@code /metrics} scrape. */
    static double gauge(final String scrape, final String name)
    {
        for (final String line : scrape.split("\n"))
        {
            if (line.startsWith(name + " "))
            {
                return Double.parseDouble(line.substring(name.length() + 1).trim());
            }
        }
        throw new AssertionError("no " + name + " in /metrics");
    }

    /** @return a client of tenant {@code t} on this process. */
    TallyClient client()
    {
        return new TallyClient(port, TENANT_KEY);
    }

    /** SIGKILL: no shutdown hook, no flush, no close; then waits for the process to be gone. */
    void kill() throws InterruptedException
    {
        process.destroyForcibly();
        if (!process.waitFor(EXIT_TIMEOUT_MS, TimeUnit.MILLISECONDS))
        {
            throw new AssertionError("process " + process.pid() + " survived SIGKILL for " + EXIT_TIMEOUT_MS + " ms");
        }
    }

    /** SIGTERM: the shutdown hook closes the server; SIGKILL if it does not exit in time. */
    void stop() throws InterruptedException
    {
        process.destroy();
        if (!process.waitFor(EXIT_TIMEOUT_MS, TimeUnit.MILLISECONDS))
        {
            kill();
            throw new AssertionError("process did not stop on SIGTERM within " + EXIT_TIMEOUT_MS + " ms\n" + logTail());
        }
    }

    /** SIGTERM without waiting (a second call sends a second SIGTERM). */
    void signalTerm()
    {
        process.destroy();
    }

    /** Waits for the process to exit; @return its exit status. */
    int awaitExit() throws InterruptedException
    {
        if (!process.waitFor(EXIT_TIMEOUT_MS, TimeUnit.MILLISECONDS))
        {
            kill();
            throw new AssertionError("process did not exit within " + EXIT_TIMEOUT_MS + " ms\n" + logTail());
        }
        return process.exitValue();
    }

    /** @return everything the process wrote so far. */
    String log()
    {
        return read(log);
    }

    /**
     * Kills the process if it is still running (a test that failed half-way must not leak it), then fails if
     * its log reports a leaked Netty buffer: the server runs the detector at {@code paranoid}, which only logs.
     */
    @Override
    public void close()
    {
        if (process.isAlive())
        {
            process.destroyForcibly();
            try
            {
                process.waitFor(EXIT_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
        final String leak = leakReport(read(log));
        if (leak != null)
        {
            throw new AssertionError("the server reported a leaked Netty buffer (" + log + "):\n" + leak);
        }
    }

    /** @return the first leak report in a server's output and what follows it (its access records), or null. */
    static String leakReport(final String output)
    {
        final int at = output.indexOf(LEAK_REPORT);
        return at < 0 ? null : output.substring(at, Math.min(output.length(), at + LEAK_EXCERPT_CHARS));
    }

    /** @return the last lines the process wrote, for failure messages. */
    String logTail()
    {
        try
        {
            final List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            final List<String> last = lines.subList(Math.max(0, lines.size() - 200), lines.size()).stream()
                .filter(l -> !l.contains("EmbeddedPostgres")).collect(java.util.stream.Collectors.toList());
            return "---- " + log + " (last lines) ----\n" + String.join("\n", last);
        }
        catch (final IOException e)
        {
            return "(no log: " + e + ")";
        }
    }

    private static int awaitPort(final Process process, final Path log) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        while (System.nanoTime() < deadlineNs)
        {
            final String output = read(log);
            final Matcher matcher = LISTENING.matcher(output);
            if (matcher.find())
            {
                return Integer.parseInt(matcher.group(1));
            }
            if (!process.isAlive())
            {
                throw new AssertionError("tally exited with " + process.exitValue() + " before listening:\n" + output);
            }
            Thread.sleep(POLL_INTERVAL_MS);
        }
        process.destroyForcibly();
        throw new AssertionError("tally did not listen within " + START_TIMEOUT_MS + " ms:\n" + read(log));
    }

    private void awaitReady() throws InterruptedException
    {
        final TallyClient probe = new TallyClient(port, null);
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        Reply last = null;
        while (System.nanoTime() < deadlineNs && process.isAlive())
        {
            try
            {
                last = probe.get("/ready");
                if (last.status() == 200)
                {
                    return;
                }
            }
            catch (final UncheckedIOException e)
            {
                // not accepting yet
            }
            Thread.sleep(POLL_INTERVAL_MS);
        }
        process.destroyForcibly();
        throw new AssertionError("tally was not ready within " + START_TIMEOUT_MS + " ms (last " + last + ")\n" + logTail());
    }

    private static List<String> jvmOpens()
    {
        final List<String> opens = new ArrayList<>();
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports"))
            {
                opens.add(argument);
            }
        }
        return opens.isEmpty() ? JVM_OPENS_FALLBACK : opens;
    }

    static String read(final Path log)
    {
        try
        {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        }
        catch (final IOException e)
        {
            return "";
        }
    }
}
