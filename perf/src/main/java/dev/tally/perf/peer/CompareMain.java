package dev.tally.perf.peer;

import dev.tally.gateway.http.LeakDetection;
import dev.tally.perf.load.LoadMain;
import java.io.PrintStream;
import picocli.CommandLine;

/**
 * {@code java -jar perf/target/tally-perf.jar}: Tally against the PostgreSQL-per-request design, and the load generator.
 *
 * <pre>
 *   java -jar perf/target/tally-perf.jar compare --seconds 30 [--scenario uniform,hotCredit] [--durability sync]
 *   java -jar perf/target/tally-perf.jar peer --port 8081 --api-key demo:demo-secret-key [--synchronous-commit off]
 *   java -jar perf/target/tally-perf.jar load bench --scenario uniform,batch --durability sync     (a Tally in this JVM)
 *   java -jar perf/target/tally-perf.jar load run --url http://127.0.0.1:8080 --api-key KEY      (a running server)
 * </pre>
 *
 * A word that is not a command (e.g. {@code tally-perf bench}) is an error, exit status 2, even beside {@code --help}.
 *
 * Chronicle's analytics call-home is switched off, AWT is made headless (the chart is drawn into an
 * image) and Netty's buffer leak detector is switched off unless the JVM sets its level ({@link LeakDetection}:
 * it fills a stack trace for one buffer in 128, on both sides of the measurement) here, before anything else loads.
 */
@CommandLine.Command(name = "tally-perf", mixinStandardHelpOptions = true, version = "tally-perf 0.1.0",
    subcommands = {CompareCommand.class, PeerCommand.class},
    description = "Tally vs the PostgreSQL-per-request peer, on loopback, in one process; load: the HTTP load generator.")
public final class CompareMain implements Runnable
{
    static
    {
        System.setProperty("chronicle.analytics.disable", "true");
        System.setProperty("java.awt.headless", "true");
        LeakDetection.disableUnlessSet();
    }

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(final String[] args)
    {
        System.exit(run(args, System.out));
    }

    /** Runs a command line, printing to {@code out}; returns the exit status (0 when every check passed). */
    public static int run(final String[] args, final PrintStream out)
    {
        final CommandLine commandLine = new CommandLine(new CompareMain());
        commandLine.addSubcommand("load", new CommandLine(new LoadMain()).setCommandName("load"));
        commandLine.setOut(new java.io.PrintWriter(out, true));
        commandLine.setExecutionExceptionHandler(LoadMain::refuse);
        commandLine.setExecutionStrategy(parsed ->
        {
            final CommandLine.ParseResult unknown = firstWithUnmatched(parsed);
            if (unknown != null)
            {
                final CommandLine command = unknown.commandSpec().commandLine();
                command.getErr().println("Unknown command or argument: " + String.join(" ", unknown.unmatched()));
                command.usage(command.getErr());
                return command.getCommandSpec().exitCodeOnInvalidInput();
            }
            for (final CommandLine command : parsed.asCommandLineList())
            {
                if (command.getCommand() instanceof CompareCommand)
                {
                    ((CompareCommand)command.getCommand()).out = out;
                }
            }
            return new CommandLine.RunLast().execute(parsed);
        });
        return commandLine.execute(args);
    }

    /** @return the innermost parsed command that was given words it does not know (picocli ignores them beside --help); null for none. */
    private static CommandLine.ParseResult firstWithUnmatched(final CommandLine.ParseResult parsed)
    {
        CommandLine.ParseResult found = null;
        for (CommandLine.ParseResult result = parsed; result != null; result = result.subcommand())
        {
            if (!result.unmatched().isEmpty())
            {
                found = result;
            }
        }
        return found;
    }

    @Override
    public void run()
    {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Quiets the embedded PostgreSQL's log lines (zonky logs each server line at INFO) and the pool's. */
    static void quietLogs()
    {
        for (final String name : new String[] {"io.zonky", "com.zaxxer.hikari", "dev.tally"})
        {
            final org.slf4j.Logger logger = org.slf4j.LoggerFactory.getLogger(name);
            if (logger instanceof ch.qos.logback.classic.Logger)
            {
                ((ch.qos.logback.classic.Logger)logger).setLevel(ch.qos.logback.classic.Level.WARN);
            }
        }
    }
}
