package dev.tally.gateway.cli;

import dev.tally.gateway.config.SettingSources;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine;

/**
 * The {@code tally} command line. Chronicle's analytics call-home is switched off here, before any
 * Chronicle class can load, in every process the jar starts.
 */
@CommandLine.Command(
    name = "tally",
    mixinStandardHelpOptions = true,
    version = "tally 0.1.0",
    description = "A single-writer payment ledger.",
    subcommands = {ServeCommand.class, ReplayCommand.class, VerifyCommand.class, SnapshotCommand.class, KeysCommand.class,
        DemoCommand.class})
public final class TallyMain implements Runnable
{
    /** Picocli's exit status for invalid input (a bad flag, environment variable or config file). */
    public static final int EXIT_USAGE = 2;

    static
    {
        System.setProperty("chronicle.analytics.disable", "true");
    }

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(final String[] args)
    {
        System.exit(execute(args, System.getenv(), new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /**
     * Parses and runs a command with settings from {@code args}, then {@code env}, then the config file.
     *
     * @return the exit status: 0 done, 1 a failure, 2 an invalid setting.
     */
    static int execute(final String[] arguments, final Map<String, String> env, final PrintWriter out, final PrintWriter err)
    {
        final CommandLine commandLine = commandLine();
        final String[] args = withDefaultCommand(arguments);
        commandLine.setOut(out).setErr(err);
        try
        {
            final SettingSources sources = SettingSources.from(args, env);
            sources.checkFileKeys(commandLine);
            commandLine.setDefaultValueProvider(sources);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println(ex.getMessage());
            return EXIT_USAGE;
        }
        return commandLine.execute(args);
    }

    /**
     * {@code serve} is the default command (SPEC: "{@code tally serve} (default)"): {@code tally --port 8080 ...}
     * and a bare {@code tally} serve. A first argument that is not an option (a command), or asks for help or
     * the version, is left as it is.
     */
    static String[] withDefaultCommand(final String[] args)
    {
        if (args.length > 0 && (!args[0].startsWith("-") || java.util.List.of("-h", "--help", "-V", "--version").contains(args[0])))
        {
            return args;   // a command (or a mistyped one, which picocli then names with a suggestion), or help
        }
        final String[] withServe = new String[args.length + 1];
        withServe[0] = "serve";
        System.arraycopy(args, 0, withServe, 1, args.length);
        return withServe;
    }

    /** @return the command tree, without settings sources (tests add their own). */
    static CommandLine commandLine()
    {
        return new CommandLine(new TallyMain()).setCaseInsensitiveEnumValuesAllowed(true);
    }

    /** Reached only through {@code commandLine()} directly (tests): {@link #execute} always names a command. */
    @Override
    public void run()
    {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
