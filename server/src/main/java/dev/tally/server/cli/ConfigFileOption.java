package dev.tally.server.cli;

import java.nio.file.Path;
import picocli.CommandLine;

/**
 * {@code --config FILE}, shared by the commands that take settings. The file itself is read by
 * {@link dev.tally.server.config.SettingSources} before parsing; the option is declared here so that it
 * is accepted and listed in {@code --help}.
 */
public final class ConfigFileOption
{
    @CommandLine.Option(names = "--config", paramLabel = "FILE",
        description = "Properties file of settings keyed by long flag name (port=8080, data-dir=/var/lib/tally). " +
            "Precedence: flags > TALLY_* environment (TALLY_PORT, TALLY_DATA_DIR, ...) > this file > defaults. Env: TALLY_CONFIG.")
    Path configFile;
}
