package dev.tally.perf.load;

import dev.tally.gateway.http.LeakDetection;
import java.io.PrintStream;
import java.util.List;
import picocli.CommandLine;

/**
 * The HTTP load generator's command line.
 *
 * <pre>
 *   java -cp perf/target/benchmarks.jar dev.tally.perf.load.LoadMain run --url http://127.0.0.1:8080 --api-key KEY \
 *        --scenario uniform --mode closed --connections 64 --seconds 30 --warmup-seconds 10
 *   java -cp perf/target/benchmarks.jar dev.tally.perf.load.LoadMain bench --scenario uniform,batch --durability sync
 * </pre>
 *
 * Exit status: 0 when every run passed its check, 2 when any failed, 1 when a run could not be made.
 */
@CommandLine.Command(name = "tally-load", mixinStandardHelpOptions = true, subcommands = {RunCommand.class, BenchCommand.class},
    description = "HTTP load generator for Tally: closed or open loop, latency with HdrHistogram, a correctness check after every run.")
public final class LoadMain implements Runnable
{
    /** Exit status of a run whose correctness check failed. */
    public static final int EXIT_CHECK_FAILED = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec commandSpec;

    public static void main(final String[] args)
    {
        // Before any Chronicle class loads (bench starts a server in this process).
        System.setProperty("chronicle.analytics.disable", "true");
        LeakDetection.disableUnlessSet();
        if (args.length > 0 && "bench".equals(args[0]) && !ChronicleOpens.present())
        {
            try
            {
                System.exit(ChronicleOpens.relaunch(args));
            }
            catch (final Exception ex)
            {
                System.err.println("bench: cannot start a JVM with the --add-opens Chronicle needs: " + ex);
                System.exit(1);
            }
        }
        System.exit(new CommandLine(new LoadMain()).setExecutionExceptionHandler(LoadMain::refuse).execute(args));
    }

    /** A limit or a setting out of range is a message, not a stack trace; anything else is a bug and shows one. */
    public static int refuse(final Exception ex, final CommandLine command, final CommandLine.ParseResult parsed) throws Exception
    {
        if (ex instanceof IllegalArgumentException)
        {
            command.getErr().println("tally-load: " + ex.getMessage());
            return 1;
        }
        throw ex;
    }

    @Override
    public void run()
    {
        commandSpec.commandLine().usage(System.out);
    }

    /** Prints every RESULT line again and returns the exit status. */
    static int summarise(final List<ScenarioRun.Outcome> outcomes, final PrintStream out)
    {
        boolean allOk = true;
        if (outcomes.size() > 1)
        {
            out.println("== summary ==");
            for (final ScenarioRun.Outcome outcome : outcomes)
            {
                out.println(outcome.resultLine());
            }
        }
        for (final ScenarioRun.Outcome outcome : outcomes)
        {
            allOk &= outcome.checkOk();
        }
        return allOk ? 0 : EXIT_CHECK_FAILED;
    }
}
