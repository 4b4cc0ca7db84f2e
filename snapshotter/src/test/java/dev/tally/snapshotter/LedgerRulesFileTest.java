package dev.tally.snapshotter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.ledger.LedgerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LedgerRulesFileTest
{
    private static final LedgerConfig RULES = new LedgerConfig(10, 20, 30, 40, 50, 60, 1_000, 2_000, 3_000, 70);

    @TempDir
    Path dataDir;

    @Test
    void shouldReadNothingInANewFolder()
    {
        assertNull(LedgerRulesFile.read(dataDir));
    }

    @Test
    void shouldReadBackEveryRuleItWrote()
    {
        LedgerRulesFile.write(dataDir, RULES);
        assertEquals(RULES, LedgerRulesFile.read(dataDir));
        assertTrue(Files.notExists(dataDir.resolve(LedgerRulesFile.FILE_NAME + ".tmp")), "no temporary file left behind");
    }

    @Test
    void shouldRefuseAJournalDecidedUnderAnOlderGenerationOfRules() throws Exception
    {
        LedgerRulesFile.write(dataDir, RULES);
        assertEquals(LedgerRulesFile.RULES_VERSION, LedgerRulesFile.version(dataDir));
        LedgerRulesFile.requireCurrentGeneration(dataDir, 42);

        // what a build before the cold index recorded: the same rules, no generation
        final Path file = LedgerRulesFile.inDataDir(dataDir);
        Files.writeString(file, Files.readString(file).replaceAll("(?m)^rulesVersion=.*\n", ""));
        assertEquals(1, LedgerRulesFile.version(dataDir));
        assertEquals(RULES, LedgerRulesFile.read(dataDir), "its rules still read");
        LedgerRulesFile.requireCurrentGeneration(dataDir, 0);   // nothing journaled: nothing to replay differently
        final IllegalStateException refused =
            assertThrows(IllegalStateException.class, () -> LedgerRulesFile.requireCurrentGeneration(dataDir, 42));
        assertTrue(refused.getMessage().contains("generation 1"), refused.getMessage());
    }

    @Test
    void shouldRefuseADamagedRecordNamingTheFileAndTheRule() throws Exception
    {
        LedgerRulesFile.write(dataDir, RULES);
        final Path file = LedgerRulesFile.inDataDir(dataDir);
        Files.writeString(file, Files.readString(file).replace("holdsMax=60\n", ""), StandardCharsets.UTF_8);
        final IllegalStateException missing = assertThrows(IllegalStateException.class, () -> LedgerRulesFile.read(dataDir));
        assertTrue(missing.getMessage().contains(file + " are damaged: holdsMax is missing"), missing.getMessage());

        Files.writeString(file, Files.readString(file) + "holdsMax=lots\n", StandardCharsets.UTF_8);
        final IllegalStateException garbled = assertThrows(IllegalStateException.class, () -> LedgerRulesFile.read(dataDir));
        assertTrue(garbled.getMessage().contains("holdsMax is not a number: lots"), garbled.getMessage());
    }

    @Test
    void shouldNameEveryRuleThatDiffers()
    {
        final LedgerConfig other = new LedgerConfig(10, 20, 31, 40, 50, 60, 1_000, 2_000, 3_001, 70);
        assertEquals(List.of("idempotencyKeysMax: 30 recorded, 31 asked (a table's size may change when both are at least " +
                LedgerConfig.TUNABLE_TABLE_MIN + ")", "reversalWindowMs: 3000 recorded, 3001 asked"),
            LedgerRulesFile.differences(RULES, other));
        assertEquals(List.of(), LedgerRulesFile.differences(RULES, RULES));
    }

    @Test
    void shouldLetTheKeysReferencesAndTransfersTablesChangeSizeFromTheTunableMinimumUp()
    {
        final int min = LedgerConfig.TUNABLE_TABLE_MIN;
        final LedgerConfig recorded = new LedgerConfig(10, 20, 2_000_000, 1_000_000, 1_000_000, 60, 1_000, 2_000, 3_000, 70);
        final LedgerConfig tuned = new LedgerConfig(10, 20, min, 4_000_000, min, 60, 1_000, 9_000, 3_000, 70);
        assertEquals(List.of(), LedgerRulesFile.differences(recorded, tuned), "sizes and the references' memory window");
        LedgerRulesFile.requireSame(dataDir, recorded, tuned);

        final LedgerConfig tooSmall = new LedgerConfig(10, 20, min - 1, 1_000_000, 1_000_000, 60, 1_000, 2_000, 3_000, 70);
        assertEquals(1, LedgerRulesFile.differences(recorded, tooSmall).size(), "below the minimum a size still decides");
        final LedgerConfig moreAccounts = new LedgerConfig(11, 20, 2_000_000, 1_000_000, 1_000_000, 60, 1_000, 2_000, 3_000, 70);
        assertThrows(IllegalArgumentException.class, () -> LedgerRulesFile.requireSame(dataDir, recorded, moreAccounts));
    }
}
