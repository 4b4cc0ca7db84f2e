package dev.tally.server.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine;

/**
 * Where a setting comes from when its flag is absent: first the environment ({@code --read-timeout-ms}
 * is {@code TALLY_READ_TIMEOUT_MS}), then the optional config file (a properties file whose keys are the
 * long flag names without dashes: {@code read-timeout-ms=30000}), then the flag's own default. Picocli
 * asks this provider only for options the command line did not give, so the order is
 * <b>flags &gt; environment &gt; file &gt; defaults</b>.
 *
 * <p>The file is found before picocli parses anything (defaults are applied before the arguments are
 * read), from {@code --config FILE} / {@code --config=FILE} in the arguments or {@code TALLY_CONFIG}.
 * A key no command knows is an error, so a typo in the file cannot silently fall back to a default.
 */
public final class SettingSources implements CommandLine.IDefaultValueProvider
{
    /** Prefix of every environment variable Tally reads. */
    public static final String ENV_PREFIX = "TALLY_";
    /** The flag naming the config file. */
    public static final String CONFIG_FLAG = "--config";

    private final Map<String, String> env;
    private final Path configFile;
    private final CommandLine.PropertiesDefaultProvider file;
    private final Properties fileProperties;

    private SettingSources(final Map<String, String> env, final Path configFile, final Properties fileProperties)
    {
        this.env = env;
        this.configFile = configFile;
        this.fileProperties = fileProperties;
        this.file = fileProperties == null ? null : new CommandLine.PropertiesDefaultProvider(fileProperties);
    }

    /**
     * Finds and reads the config file named by the arguments or the environment.
     *
     * @throws IllegalArgumentException when the named file cannot be read (the message names it).
     */
    public static SettingSources from(final String[] args, final Map<String, String> env)
    {
        final String named = configFileArgument(args, env);
        if (named == null)
        {
            return new SettingSources(env, null, null);
        }
        final Path path = Path.of(named);
        final Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8))
        {
            properties.load(reader);
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("cannot read config file " + path + ": " + ex.getMessage(), ex);
        }
        return new SettingSources(env, path, properties);
    }

    /** @return the environment variable read for a long flag: {@code --data-dir} gives {@code TALLY_DATA_DIR}. */
    public static String envName(final String longFlag)
    {
        return ENV_PREFIX + stripDashes(longFlag).toUpperCase(Locale.ROOT).replace('-', '_');
    }

    /**
     * Checks every key of the config file against the long flags of the whole command tree.
     *
     * @throws IllegalArgumentException naming the first unknown key.
     */
    public void checkFileKeys(final CommandLine root)
    {
        if (fileProperties == null)
        {
            return;
        }
        final Set<String> known = new TreeSet<>();
        collectLongNames(root, known);
        for (final String key : fileProperties.stringPropertyNames())
        {
            if (!known.contains(key))
            {
                throw new IllegalArgumentException("config file " + configFile + ": unknown setting '" + key + "' (keys are long flag names " +
                    "without dashes, e.g. port, data-dir)");
            }
        }
    }

    @Override
    public String defaultValue(final CommandLine.Model.ArgSpec argument) throws Exception
    {
        if (!argument.isOption())
        {
            return null;
        }
        final CommandLine.Model.OptionSpec option = (CommandLine.Model.OptionSpec)argument;
        // help and version are requests, not settings; --config was consumed before parsing
        if (option.usageHelp() || option.versionHelp() || option.longestName().equals(CONFIG_FLAG))
        {
            return null;
        }
        final String fromEnv = env.get(envName(option.longestName()));
        if (fromEnv != null)
        {
            return fromEnv;
        }
        return file == null ? null : file.defaultValue(argument);
    }

    private static String configFileArgument(final String[] args, final Map<String, String> env)
    {
        for (int i = 0; i < args.length; i++)
        {
            if (args[i].equals(CONFIG_FLAG))
            {
                if (i + 1 == args.length)
                {
                    throw new IllegalArgumentException(CONFIG_FLAG + " needs a FILE");
                }
                return args[i + 1];
            }
            if (args[i].startsWith(CONFIG_FLAG + "="))
            {
                return args[i].substring(CONFIG_FLAG.length() + 1);
            }
        }
        return env.get(envName(CONFIG_FLAG));
    }

    private static void collectLongNames(final CommandLine command, final Set<String> names)
    {
        for (final CommandLine.Model.OptionSpec option : command.getCommandSpec().options())
        {
            if (!option.usageHelp() && !option.versionHelp())
            {
                names.add(stripDashes(option.longestName()));
            }
        }
        for (final CommandLine sub : command.getSubcommands().values())
        {
            collectLongNames(sub, names);
        }
    }

    private static String stripDashes(final String flag)
    {
        int start = 0;
        while (start < flag.length() && flag.charAt(start) == '-')
        {
            start++;
        }
        return flag.substring(start);
    }
}
