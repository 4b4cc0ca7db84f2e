package dev.tally.server.cli;

import dev.tally.server.config.SettingSources;
import dev.tally.gateway.http.LeakDetection;
import dev.tally.journal.JournalCorruptedException;
import dev.tally.persistence.db.DataFolderInUseException;
import dev.tally.persistence.db.DataFolderLock;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine;

/**
 * The {@code tally} command line. Chronicle's analytics call-home is switched off here, before any
 * Chronicle class can load, in every process the jar starts, and so is Netty's buffer leak detector unless
 * the JVM sets its level ({@link LeakDetection}).
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
    /**
     * The data folder is in use by another process ({@code DataFolderLock}): {@code serve}, {@code verify} and
     * {@code snapshot} refuse to run next to one. 75 is sysexits' {@code EX_TEMPFAIL} (try again later), apart from
     * every status a command gives for its own outcome ({@code verify}'s 1 means "differences found").
     */
    public static final int EXIT_DATA_FOLDER_IN_USE = 75;
    /**
     * The journal is damaged: it ends below a witness of how far it got, or cannot be read to its end
     * (docs/OPERATIONS.md, "A damaged journal"). 65 is sysexits' {@code EX_DATAERR}: no retry helps, an operator must act.
     */
    public static final int EXIT_JOURNAL_DAMAGED = 65;
    /**
     * {@code replay}, {@code verify} or {@code snapshot} was given a data folder that does not exist: there is nothing to
     * read, and an empty ledger printed with status 0 would pass for a real one. 66 is sysexits' {@code EX_NOINPUT}.
     */
    public static final int EXIT_NO_DATA_FOLDER = 66;

    static
    {
        System.setProperty("chronicle.analytics.disable", "true");
        LeakDetection.disableUnlessSet();
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

    /** A command's work on a data folder, done while this process holds the folder's lock. */
    interface LockedWork
    {
        int run(DataFolderLock lock) throws Exception;
    }

    /**
     * Runs {@code work} holding {@code dataDir}'s lock, released when it returns.
     *
     * @return what {@code work} returns, or {@link #EXIT_DATA_FOLDER_IN_USE} when another process holds the folder.
     */
    static int withDataFolderLock(final Path dataDir, final String command, final LockedWork work) throws Exception
    {
        final DataFolderLock lock;
        try
        {
            lock = DataFolderLock.acquire(dataDir, command);
        }
        catch (final DataFolderInUseException ex)
        {
            return refuse(command, ex);
        }
        try (lock)
        {
            return work.run(lock);
        }
    }

    /** Says why {@code command} does not run (on stderr), and @return {@link #EXIT_DATA_FOLDER_IN_USE}. */
    static int refuse(final String command, final DataFolderInUseException ex)
    {
        System.err.println(command + ": " + ex.getMessage());
        return EXIT_DATA_FOLDER_IN_USE;
    }

    /**
     * @return true when {@code dataDir} is a folder; otherwise says so on {@code command}'s stderr. For the offline
     *         commands, which read a data folder {@code tally serve} made and must not make one of their own.
     */
    static boolean isDataFolder(final Path dataDir, final CommandLine command)
    {
        if (Files.isDirectory(dataDir))
        {
            return true;
        }
        command.getErr().println(command.getCommandSpec().qualifiedName() + ": " +
            (Files.exists(dataDir) ? "--data-dir " + dataDir.toAbsolutePath() + " is not a folder"
                : "no data folder at " + dataDir.toAbsolutePath() + " (--data-dir; the folder tally serve ran with)"));
        command.getErr().flush();
        return false;
    }

    /** @return the command tree, without settings sources (tests add their own). */
    public static CommandLine commandLine()
    {
        return new CommandLine(new TallyMain()).setCaseInsensitiveEnumValuesAllowed(true)
            .setParameterExceptionHandler(new FlagErrorHandler())
            .setExecutionExceptionHandler(TallyMain::refuseDamagedJournal);
    }

    /** A damaged journal is an operator's problem, said in words and an exit status, not a stack trace; the rest is a bug. */
    private static int refuseDamagedJournal(final Exception ex, final CommandLine command, final CommandLine.ParseResult parsed)
        throws Exception
    {
        if (ex instanceof JournalCorruptedException)
        {
            command.getErr().println("tally " + command.getCommandName() + ": refusing to go on, the journal is damaged: " +
                ex.getMessage());
            return EXIT_JOURNAL_DAMAGED;
        }
        throw ex;
    }

    /** Reached only through {@code commandLine()} directly (tests): {@link #execute} always names a command. */
    @Override
    public void run()
    {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
