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
        assertEquals(List.of("idempotencyKeysMax: 30 recorded, 31 asked", "reversalWindowMs: 3000 recorded, 3001 asked"),
            LedgerRulesFile.differences(RULES, other));
        assertEquals(List.of(), LedgerRulesFile.differences(RULES, RULES));
    }
}
