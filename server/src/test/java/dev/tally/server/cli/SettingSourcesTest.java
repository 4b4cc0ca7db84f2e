package dev.tally.server.cli;

import dev.tally.gateway.ReactorFiles;
import dev.tally.server.config.SettingSources;
import dev.tally.gateway.http.NettyTransport;
import dev.tally.journal.Durability;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where {@code tally serve} takes its settings from: flags, then TALLY_* variables, then the config file, then defaults. */
class SettingSourcesTest
{
    private static final String KEY = "t:tenant-key-1";

    @TempDir
    Path dir;

    @Test
    void shouldUseTheDefaultsWhenNoSourceSetsAValue()
    {
        final ServeCommand serve = parse(Map.of(), "serve", "--api-key", KEY);
        assertEquals(8080, serve.port);
        assertEquals(Path.of("data"), serve.dataDir);
        assertEquals(Durability.ASYNC, serve.durability);
    }

    @Test
    void shouldTakeTheFileOverTheDefaultTheEnvironmentOverTheFileAndTheFlagOverAll() throws IOException
    {
        final Path file = write("port=7001\ndata-dir=/from/file\ndurability=sync\nconnections-max=77\n");
        final Map<String, String> env = Map.of("TALLY_PORT", "7002", "TALLY_DATA_DIR", "/from/env");

        final ServeCommand fromFile = parse(Map.of(), "serve", "--config", file.toString(), "--api-key", KEY);
        assertEquals(7001, fromFile.port);
        assertEquals(Path.of("/from/file"), fromFile.dataDir);

        final ServeCommand fromEnv = parse(env, "serve", "--config=" + file, "--api-key", KEY);
        assertEquals(7002, fromEnv.port, "environment over file");
        assertEquals(Path.of("/from/env"), fromEnv.dataDir);
        assertEquals(Durability.SYNC, fromEnv.durability, "the file still sets what the environment does not");
        assertEquals(77, fromEnv.connectionsMax);

        final ServeCommand fromFlag = parse(env, "serve", "--config", file.toString(), "--api-key", KEY, "--port", "7003");
        assertEquals(7003, fromFlag.port, "flag over environment");
    }

    @Test
    void shouldTakeTheReferenceAndReversalWindowsFromTheKeyRetentionUnlessSetApart()
    {
        final ServeCommand same = parse(Map.of(), "serve", "--api-key", KEY, "--key-retention-ms", "60000");
        assertEquals(60_000, same.toConfig().ledger().referenceRetentionMs());
        assertEquals(60_000, same.toConfig().ledger().reversalWindowMs());

        final ServeCommand apart = parse(Map.of("TALLY_EXPIRIES_PER_TICK_MAX", "500"), "serve", "--api-key", KEY,
            "--key-retention-ms", "60000", "--reference-retention-ms", "120000", "--reversal-window-ms", "30000");
        assertEquals(60_000, apart.toConfig().ledger().keyRetentionMs());
        assertEquals(120_000, apart.toConfig().ledger().referenceRetentionMs());
        assertEquals(30_000, apart.toConfig().ledger().reversalWindowMs());
        assertEquals(500, apart.toConfig().ledger().expiriesPerTickMax(), "from the environment");
    }

    @Test
    void shouldFindTheConfigFileThroughTallyConfig() throws IOException
    {
        final Path file = write("port=7004\n");
        assertEquals(7004, parse(Map.of("TALLY_CONFIG", file.toString()), "serve", "--api-key", KEY).port);
    }

    @Test
    void shouldSplitSeveralApiKeysFromTheEnvironmentOnCommas()
    {
        final ServeCommand serve = parse(Map.of("TALLY_API_KEY", "t:tenant-key-1,u:tenant-key-2"), "serve");
        assertEquals(List.of("t:tenant-key-1", "u:tenant-key-2"), serve.apiKeys);
        assertEquals(2, serve.toConfig().apiKeys().size());
    }

    @Test
    void shouldSplitSeveralWebhookUrlsFromTheEnvironmentAndTheFileOnCommas() throws IOException
    {
        final Map<String, String> env = Map.of("TALLY_WEBHOOK_URL", "http://a.test/x,https://b.test/y?events=a,b",
            "TALLY_WEBHOOK_SECRET", "s".repeat(16));
        final ServeCommand serve = parse(env, "serve", "--api-key", KEY);
        assertEquals(List.of("http://a.test/x", "https://b.test/y?events=a,b"), serve.webhookUrls, "a comma inside a URL stays");
        assertEquals(2, serve.toConfig().webhooks().endpoints().size());

        final Path file = write("webhook-url=http://a.test/x,http://b.test/y\n");
        assertEquals(List.of("http://a.test/x", "http://b.test/y"),
            parse(Map.of(), "serve", "--config", file.toString(), "--api-key", KEY).webhookUrls);
    }

    @Test
    void shouldTakeTheAdminKeyFromTheEnvironmentAndRefuseOneEqualToATenantKeyWithStatus2()
    {
        final ServeCommand serve = parse(Map.of("TALLY_ADMIN_KEY", "admin-key-from-env-1"), "serve", "--api-key", KEY);
        assertTrue(serve.toConfig().apiKeys().authenticateAdmin("Bearer admin-key-from-env-1"));
        assertFalse(parse(Map.of(), "serve", "--api-key", KEY).toConfig().apiKeys().hasAdminKey(), "none unless set");

        final Run shared = run(Map.of("TALLY_ADMIN_KEY", "shared-key-0123456789"), "serve", "--api-key", "t:shared-key-0123456789",
            "--data-dir", dir.resolve("d").toString());
        assertEquals(2, shared.status);
        assertTrue(shared.err.contains("--admin-key"), shared.err);
        assertFalse(shared.err.contains("shared-key-0123456789"), shared.err);
    }

    @Test
    void shouldTakeTheRateLimitAsNOrNPerSecond()
    {
        assertEquals(50, parse(Map.of(), "serve", "--api-key", KEY, "--rate-limit-per-tenant", "50/s").toConfig().http()
            .rateLimitPerTenantPerSecond());
        assertEquals(7, parse(Map.of("TALLY_RATE_LIMIT_PER_TENANT", "7"), "serve", "--api-key", KEY).toConfig().http()
            .rateLimitPerTenantPerSecond());
    }

    @Test
    void shouldMapLongFlagsToEnvironmentNames()
    {
        assertEquals("TALLY_DATA_DIR", SettingSources.envName("--data-dir"));
        assertEquals("TALLY_NO_READ_MODEL", SettingSources.envName("--no-read-model"));
    }

    @Test
    void shouldExitWithStatus2NamingAnUnknownConfigKey() throws IOException
    {
        final Path file = write("prot=8080\n");
        final Run run = run(Map.of(), "serve", "--config", file.toString(), "--api-key", KEY);
        assertEquals(2, run.status);
        assertTrue(run.err.contains("unknown setting 'prot'"), run.err);
    }

    @Test
    void shouldReadTheServersCapacitiesFromTheConfigFileForASnapshotToo() throws IOException
    {
        final Path file = write("accounts-max=1234\ndata-dir=/from/file\n");
        final String[] args = {"snapshot", "--config", file.toString()};
        final CommandLine root = TallyMain.commandLine();
        final SettingSources sources = SettingSources.from(args, Map.of());
        sources.checkFileKeys(root);
        root.setDefaultValueProvider(sources);
        root.parseArgs(args);
        final SnapshotCommand snapshot = root.getSubcommands().get("snapshot").getCommand();
        assertEquals(1234, snapshot.ledgerOptions.accountsMax);
        assertEquals(Path.of("/from/file"), snapshot.dataDir);
    }

    @Test
    void shouldServeWhenNoCommandIsNamed()
    {
        final Path dataDir = dir.resolve("data-default");
        final Run flagsOnly = run(Map.of(), "--api-key", KEY, "--data-dir", dataDir.toString(), "--port", "70000");
        assertEquals(2, flagsOnly.status, flagsOnly.err);
        assertTrue(flagsOnly.err.contains("--port must be 0..65535"), "the serve flags were checked: " + flagsOnly.err);

        final Run nothing = run(Map.of());
        assertEquals(2, nothing.status, nothing.err);
        assertTrue(nothing.err.contains("api-key") || nothing.err.contains("API key"), "serve asks for its API key: " + nothing.err);

        final Run help = run(Map.of(), "--help");
        assertEquals(0, help.status);
        assertTrue(help.out.contains("replay"), "top-level help lists the commands: " + help.out);
        assertFalse(Files.exists(dataDir));
    }

    @Test
    void shouldRefuseAReplayFormatItDoesNotHave()
    {
        final Run xml = run(Map.of(), "replay", "--data-dir", dir.resolve("data-replay").toString(), "--format", "xml");
        assertEquals(2, xml.status, xml.err);
        assertTrue(xml.err.contains("--format") && xml.err.contains("[text, json, csv]"), xml.err);
    }

    @Test
    void shouldCutTheJournalAtCorruptionOnlyWhenTheOperatorSaysSo()
    {
        assertFalse(parse(Map.of(), "serve", "--api-key", KEY).toConfig().journal().truncateAfterCorruption());
        assertTrue(parse(Map.of(), "serve", "--api-key", KEY, "--truncate-journal-after-corruption").toConfig()
            .journal().truncateAfterCorruption());
    }

    @Test
    void shouldTakeIoUringWhereOfferedByDefaultAndNioWhenAsked()
    {
        assertEquals(NettyTransport.AUTO, parse(Map.of(), "serve", "--api-key", KEY).toConfig().transport());
        assertEquals(NettyTransport.NIO, parse(Map.of(), "serve", "--api-key", KEY, "--transport", "nio").toConfig().transport());
        final ServeCommand ioUring = parse(Map.of("TALLY_TRANSPORT", "IO_URING"), "serve", "--api-key", KEY);
        if (NettyTransport.ioUringAvailable())
        {
            assertEquals(NettyTransport.IO_URING, ioUring.toConfig().transport());
        }
        else
        {
            final CommandLine.ParameterException refused = assertThrows(CommandLine.ParameterException.class, ioUring::toConfig);
            assertTrue(refused.getMessage().contains("io_uring is not available"), refused.getMessage());
        }
    }

    @Test
    void shouldExitWithStatus2WhenTheConfigFileIsMissing()
    {
        final Run run = run(Map.of(), "serve", "--config", dir.resolve("absent.properties").toString(), "--api-key", KEY);
        assertEquals(2, run.status);
        assertTrue(run.err.contains("cannot read config file"), run.err);
    }

    @Test
    void shouldExitWithStatus2NamingEachInvalidLimitBeforeOpeningAnything()
    {
        final String[][] invalid = {
            {"--port", "70000", "--port must be 0..65535"},
            {"--io-threads", "0", "--io-threads must be 1..64"},
            {"--transport", "quic", "transport must be auto, nio or io_uring"},
            {"--ring-size", "1000", "--ring-size must be a power of two"},
            {"--tick-interval-ms", "0", "--tick-interval-ms must be"},
            {"--body-limit-bytes", "10", "--body-limit-bytes"},
            {"--header-limit-bytes", "10", "--header-limit-bytes"},
            {"--uri-limit-bytes", "10", "--uri-limit-bytes"},
            {"--idle-timeout-ms", "5", "--idle-timeout-ms"},
            {"--connections-max", "0", "--connections-max"},
            {"--accounts-max", "0", "--accounts-max must be > 0"},
            {"--key-retention-ms", "-1", "--key-retention-ms must be > 0"},
            {"--key-retention-ms", "9223372036855", "--key-retention-ms must be <= 9223372036854"},
            {"--transfers-max", "86400000", "--transfers-max must be <= 33554431"},
            {"--expiries-per-tick-max", "16385", "--expiries-per-tick-max must be <= 16384"},
            {"--durability", "maybe", "--durability"},
            {"--read-timeout-ms", "10", "--read-timeout-ms"},
            {"--requests-per-connection-max", "-1", "--requests-per-connection-max"},
            {"--rate-limit-per-tenant", "ten/s", "--rate-limit-per-tenant must be N or N/s"},
            {"--rate-limit-per-tenant", "-5/s", "--rate-limit-per-tenant must be 0"},
            {"--tls-cert", "/absent/cert.pem", "--tls-cert and --tls-key go together"},
            {"--snapshot-every-commands", "0", "--snapshot-every-commands must be >= 1"},
            {"--snapshot-interval-ms", "0", "--snapshot-interval-ms must be >= 1"},
            {"--snapshots-retained", "0", "--snapshots-retained must be >= 1"},
            {"--async-force-interval-ms", "-1", "--async-force-interval-ms must be 0..60000"},
        };
        for (final String[] setting : invalid)
        {
            final Path dataDir = dir.resolve("data-" + setting[0].substring(2));
            final Run run = run(Map.of(), "serve", "--api-key", KEY, "--data-dir", dataDir.toString(), setting[0], setting[1]);
            assertEquals(2, run.status, () -> setting[0] + ": " + run.err);
            assertTrue(run.err.contains(setting[2]), () -> setting[0] + " message: " + run.err);
            assertFalse(Files.exists(dataDir), setting[0] + ": nothing is created before the settings are valid");
        }
    }

    @Test
    void shouldExitWithStatus2WithoutAnyApiKeyAndNeverEchoAKey()
    {
        final Run none = run(Map.of(), "serve", "--data-dir", dir.resolve("d").toString());
        assertEquals(2, none.status);
        assertTrue(none.err.contains("--api-key"), none.err);

        final Run shortKey = run(Map.of(), "serve", "--api-key", "t:secret7", "--data-dir", dir.resolve("d").toString());
        assertEquals(2, shortKey.status);
        assertFalse(shortKey.err.contains("secret7"), shortKey.err);
    }

    /** docs/CONFIG.md and {@code tally serve --help} list the same flags. */
    @Test
    void shouldDocumentEveryServeFlagInConfigMd() throws IOException
    {
        final CommandLine serve = TallyMain.commandLine().getSubcommands().get("serve");
        final TreeSet<String> flags = new TreeSet<>();
        for (final CommandLine.Model.OptionSpec option : serve.getCommandSpec().options())
        {
            if (!option.usageHelp() && !option.versionHelp())
            {
                flags.add(option.longestName());
            }
        }
        final String help = serve.getUsageMessage();
        final TreeSet<String> documented = new TreeSet<>();
        final Matcher row = Pattern.compile("(?m)^\\| `(--[a-z-]+)").matcher(Files.readString(ReactorFiles.locate("docs/CONFIG.md")));
        while (row.find())
        {
            documented.add(row.group(1));
        }
        for (final String flag : flags)
        {
            assertTrue(help.contains(flag), flag + " missing from serve --help");
        }
        assertEquals(flags, documented, "flags of `tally serve` vs the table rows of docs/CONFIG.md");
    }

    private Path write(final String properties) throws IOException
    {
        final Path file = Files.createTempFile(dir, "tally", ".properties");
        Files.writeString(file, properties);
        return file;
    }

    private static ServeCommand parse(final Map<String, String> env, final String... args)
    {
        final CommandLine root = TallyMain.commandLine();
        final SettingSources sources = SettingSources.from(args, env);
        sources.checkFileKeys(root);
        root.setDefaultValueProvider(sources);
        root.parseArgs(args);
        return root.getSubcommands().get("serve").getCommand();
    }

    private record Run(int status, String out, String err)
    {
    }

    private static Run run(final Map<String, String> env, final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int status = TallyMain.execute(args, env, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(status, out.toString(), err.toString());
    }
}
