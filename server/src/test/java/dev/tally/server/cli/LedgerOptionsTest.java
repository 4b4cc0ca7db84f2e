package dev.tally.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.server.config.SettingSources;
import dev.tally.ledger.LedgerConfig;
import dev.tally.snapshotter.LedgerRulesFile;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** How the ledger's rules resolve: given (flag, environment, file), else the folder's record, else the default. */
class LedgerOptionsTest
{
    private static final LedgerConfig RECORDED = new LedgerConfig(500, 900, 7_000, 3_000, 3_000, 200, 1_000, 2_000, 3_000, 50);

    @TempDir
    Path dataDir;

    @Test
    void shouldTakeTheDefaultsAndTheGivenValuesInANewFolder()
    {
        assertEquals(LedgerConfig.defaults(), options(Map.of()).toConfig(dataDir));
        final LedgerConfig given = options(Map.of("TALLY_ACCOUNTS_MAX", "800"), "--key-retention-ms", "5000").toConfig(dataDir);
        assertEquals(800, given.accountsMax());
        assertEquals(5_000, given.keyRetentionMs());
        assertEquals(5_000, given.referenceRetentionMs(), "the other windows follow the key window on a new folder");
        assertEquals(5_000, given.reversalWindowMs());
    }

    @Test
    void shouldTakeTheRecordedRulesForEverySettingLeftOut()
    {
        LedgerRulesFile.write(dataDir, RECORDED);
        assertEquals(RECORDED, options(Map.of()).toConfig(dataDir));
        assertEquals(RECORDED, options(Map.of("TALLY_HOLDS_MAX", "200"), "--key-retention-ms", "1000").toConfig(dataDir),
            "values equal to the record are fine, however given");
    }

    @Test
    void shouldTakeTheRecordedReferenceTableSizeWhichHasNoFlagOfItsOwn()
    {
        // an embedded server (the benchmarks' in-process one) may size the reference table apart from the transfers'
        final LedgerConfig apart = new LedgerConfig(500, 900, 7_000, 1_024, 3_000, 200, 1_000, 2_000, 3_000, 50);
        LedgerRulesFile.write(dataDir, apart);
        assertEquals(apart, options(Map.of()).toConfig(dataDir));
    }

    @Test
    void shouldRefuseEverySettingThatDiffersFromTheRecordNamingIt()
    {
        LedgerRulesFile.write(dataDir, RECORDED);
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> options(Map.of("TALLY_EXPIRIES_PER_TICK_MAX", "60"), "--keys-max", "8000").toConfig(dataDir));
        assertTrue(refused.getMessage().contains("(idempotencyKeysMax: 7000 recorded, 8000 asked (a table's size may change when " +
            "both are at least " + LedgerConfig.TUNABLE_TABLE_MIN + "); expiriesPerTickMax: 50 recorded, 60 asked)"), refused.getMessage());
        assertTrue(refused.getMessage().contains(LedgerRulesFile.inDataDir(dataDir).toString()), refused.getMessage());
    }

    @Test
    void shouldMakeARefusalAnOfflineCommandsUsageError()
    {
        LedgerRulesFile.write(dataDir, RECORDED);
        final java.io.StringWriter err = new java.io.StringWriter();
        final int status = TallyMain.execute(new String[] {"replay", "--data-dir", dataDir.toString(), "--holds-max", "201"}, Map.of(),
            new java.io.PrintWriter(new java.io.StringWriter(), true), new java.io.PrintWriter(err, true));
        assertEquals(TallyMain.EXIT_USAGE, status);
        assertTrue(err.toString().contains("invalid setting: the ledger rules asked for differ"), err.toString());
        assertTrue(err.toString().contains("holdsMax: 200 recorded, 201 asked"), err.toString());
    }

    /** The serve command's ledger options as picocli fills them from {@code args} and {@code env}. */
    private static LedgerOptions options(final Map<String, String> env, final String... flags)
    {
        final String[] args = new String[flags.length + 1];
        args[0] = "serve";
        System.arraycopy(flags, 0, args, 1, flags.length);
        final CommandLine root = TallyMain.commandLine();
        final SettingSources sources = SettingSources.from(args, env);
        sources.checkFileKeys(root);
        root.setDefaultValueProvider(sources);
        root.parseArgs(args);
        final ServeCommand serve = root.getSubcommands().get("serve").getCommand();
        return serve.ledgerOptions;
    }
}
