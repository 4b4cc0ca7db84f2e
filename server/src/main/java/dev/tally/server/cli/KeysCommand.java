package dev.tally.server.cli;

import dev.tally.gateway.http.KeysFile;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/** {@code tally keys}: manages the API keys file that {@code serve --keys-file} reads. */
@CommandLine.Command(name = "keys", mixinStandardHelpOptions = true, description = "Manage the API keys file (hashes only).",
    subcommands = KeysCommand.Add.class)
public final class KeysCommand implements Runnable
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run()
    {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * {@code tally keys add}: generates a random key, appends its SHA-256 to the file and prints the key
     * once on stdout (alone, so that a script can capture it); the key id goes to stderr. The key itself
     * is written nowhere else: lost, it is replaced, not recovered.
     */
    @CommandLine.Command(name = "add", mixinStandardHelpOptions = true,
        description = "Generate a key for a tenant, append its hash to the keys file and print the key once.")
    static final class Add implements Callable<Integer>
    {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @CommandLine.Option(names = "--keys-file", required = true, paramLabel = "FILE", description = "The keys file (created owner-only when absent).")
        Path keysFile;

        @CommandLine.Option(names = "--tenant", required = true, description = "The tenant the key authenticates.")
        String tenant;

        @Override
        public Integer call() throws Exception
        {
            final KeysFile.NewKey added;
            try
            {
                added = KeysFile.add(keysFile, tenant, new SecureRandom());
            }
            catch (final IllegalArgumentException ex)
            {
                throw new CommandLine.ParameterException(spec.commandLine(), ex.getMessage(), ex);
            }
            spec.commandLine().getOut().println(added.key());
            spec.commandLine().getErr().println("added key id " + added.keyId() + " for tenant " + tenant + " to " + keysFile +
                " (the key above is shown once; a running server picks it up on SIGHUP)");
            return 0;
        }
    }
}
