package dev.tally.gateway.cli;

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
    subcommands = {ServeCommand.class, ReplayCommand.class, VerifyCommand.class, SnapshotCommand.class, DemoCommand.class})
public final class TallyMain implements Runnable
{
    static
    {
        System.setProperty("chronicle.analytics.disable", "true");
    }

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new TallyMain()).execute(args));
    }

    @Override
    public void run()
    {
        spec.commandLine().usage(System.out);
    }
}
