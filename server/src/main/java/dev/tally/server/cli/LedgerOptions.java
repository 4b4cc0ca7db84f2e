package dev.tally.server.cli;

import dev.tally.ledger.LedgerConfig;
import dev.tally.snapshotter.LedgerRulesFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * The ledger's capacities and windows, shared by {@code serve}, {@code replay}, {@code verify} and {@code snapshot}: a
 * replay must use the rules the server ran with, because a full table ({@code capacity-exceeded}) and an expired key
 * are outcomes, and other values could change what a command did. A data folder records its rules at its first
 * start ({@link LedgerRulesFile}); a setting left out takes the recorded value, one given must agree with it.
 */
public final class LedgerOptions
{
    @CommandLine.Option(names = "--accounts-max",
        description = "Accounts held in memory, at most " + LedgerConfig.ACCOUNTS_MAX_LIMIT + " (default: the data folder's recorded rules, else 1000000).")
    Integer accountsMax;

    @CommandLine.Option(names = "--sub-balances-max",
        description = "Sub-balances across all accounts, at least --accounts-max; 8 x --accounts-max + 2 x this at most " +
            LedgerConfig.ACCOUNT_CELLS_MAX + " (default: recorded, else 2000000).")
    Integer subBalancesMax;

    @CommandLine.Option(names = "--keys-max",
        description = "Idempotency keys kept, at most " + LedgerConfig.IDEMPOTENCY_KEYS_MAX_LIMIT + " (default: recorded, else 2000000).")
    Integer keysMax;

    @CommandLine.Option(names = "--transfers-max",
        description = "Transfers (and references) kept for reversal, at most " + LedgerConfig.TRANSFERS_MAX_LIMIT +
            " (default: recorded, else 1000000).")
    Integer transfersMax;

    @CommandLine.Option(names = "--holds-max",
        description = "Live holds, at most " + LedgerConfig.HOLDS_MAX_LIMIT + " (default: recorded, else 1000000).")
    Integer holdsMax;

    @CommandLine.Option(names = "--key-retention-ms",
        description = "How long an idempotency key and its stored reply are kept, in journaled time; also the reference and " +
            "reversal windows unless set apart; at most " + LedgerConfig.WINDOW_MS_LIMIT + " like them (default: recorded, else 86400000).")
    Long keyRetentionMs;

    @CommandLine.Option(names = "--reference-retention-ms",
        description = "How long a transfer reference stays unique (default: recorded, else --key-retention-ms).")
    Long referenceRetentionMs;

    @CommandLine.Option(names = "--reversal-window-ms",
        description = "How long a transfer stays in memory for reversal and reads (default: recorded, else --key-retention-ms).")
    Long reversalWindowMs;

    @CommandLine.Option(names = "--expiries-per-tick-max",
        description = "Expired holds, keys, references and transfers dropped per tick at most, so that cleanup never stalls " +
            "the business thread; at most " + LedgerConfig.EXPIRIES_PER_TICK_MAX_LIMIT + ", the event ids one tick can " +
            "give (default: recorded, else 10000).")
    Integer expiriesPerTickMax;

    /** The command this mixin belongs to: a rule refused is that command's usage error. */
    @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec command;

    /** {@link #toConfig(Path)} for an offline command: a rule refused exits with status 2, its message naming it. */
    LedgerConfig resolve(final Path dataDir)
    {
        try
        {
            // an offline command reads the journal's files without opening a Journal: any cycle file means commands
            LedgerRulesFile.requireCurrentGeneration(dataDir, hasCycleFiles(dataDir.resolve("journal")) ? 1 : 0);
            return toConfig(dataDir);
        }
        catch (final IllegalStateException ex)
        {
            throw new CommandLine.ParameterException(command.commandLine(), ex.getMessage(), ex);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CommandLine.ParameterException(command.commandLine(), "invalid setting: " + ex.getMessage(), ex);
        }
    }

    private static boolean hasCycleFiles(final Path journalDir)
    {
        if (!Files.isDirectory(journalDir))
        {
            return false;
        }
        try (Stream<Path> files = Files.list(journalDir))
        {
            return files.anyMatch(f -> f.getFileName().toString().endsWith(".cq4"));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot list the journal " + journalDir, ex);
        }
    }

    /**
     * The rules for {@code dataDir}'s journal: each one given (flag, environment or file) or else the one the folder
     * recorded ({@link LedgerRulesFile}), or else the built-in default for a new folder.
     *
     * @return the validated ledger configuration.
     * @throws IllegalArgumentException naming the flag of the first invalid capacity, or every rule given that differs
     *                                  from the one the folder's journal was decided under.
     */
    public LedgerConfig toConfig(final Path dataDir)
    {
        final LedgerConfig recorded = LedgerRulesFile.read(dataDir);
        final LedgerConfig base = recorded != null ? recorded : LedgerConfig.defaults();
        final int accounts = accountsMax != null ? accountsMax : base.accountsMax();
        final int subBalances = subBalancesMax != null ? subBalancesMax : base.subBalancesMax();
        final int keys = keysMax != null ? keysMax : base.idempotencyKeysMax();
        final int transfers = transfersMax != null ? transfersMax : base.transfersMax();
        final int holds = holdsMax != null ? holdsMax : base.holdsMax();
        final long keyRetention = keyRetentionMs != null ? keyRetentionMs : base.keyRetentionMs();
        final int expiries = expiriesPerTickMax != null ? expiriesPerTickMax : base.expiriesPerTickMax();
        // the two other windows follow the key window on a new folder, the record on an old one
        final long references = referenceRetentionMs != null ? referenceRetentionMs
            : recorded != null ? recorded.referenceRetentionMs() : keyRetention;
        final long reversals = reversalWindowMs != null ? reversalWindowMs
            : recorded != null ? recorded.reversalWindowMs() : keyRetention;
        // Named here by flag; LedgerConfig checks the same bounds again (and how the capacities relate).
        requireInRange("--accounts-max", accounts, LedgerConfig.ACCOUNTS_MAX_LIMIT);
        requireInRange("--sub-balances-max", subBalances, LedgerConfig.ACCOUNT_CELLS_MAX / 2);
        requireInRange("--keys-max", keys, LedgerConfig.IDEMPOTENCY_KEYS_MAX_LIMIT);
        requireInRange("--transfers-max", transfers, LedgerConfig.TRANSFERS_MAX_LIMIT);   // below the references' limit
        requireInRange("--holds-max", holds, LedgerConfig.HOLDS_MAX_LIMIT);
        requireInRange("--key-retention-ms", keyRetention, LedgerConfig.WINDOW_MS_LIMIT);
        requireInRange("--reference-retention-ms", references, LedgerConfig.WINDOW_MS_LIMIT);
        requireInRange("--reversal-window-ms", reversals, LedgerConfig.WINDOW_MS_LIMIT);
        requireInRange("--expiries-per-tick-max", expiries, LedgerConfig.EXPIRIES_PER_TICK_MAX_LIMIT);
        // the reference table is sized like the transfers' (no flag of its own); a folder may have recorded another size
        final int referencesSize = transfersMax != null || recorded == null ? transfers : recorded.referencesMax();
        final LedgerConfig wanted = new LedgerConfig(accounts, subBalances, keys, referencesSize, transfers, holds,
            keyRetention, references, reversals, expiries);
        LedgerRulesFile.requireSame(dataDir, recorded, wanted);
        return wanted;
    }

    private static void requireInRange(final String flag, final long value, final long max)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException(flag + " must be > 0, was " + value);
        }
        if (value > max)
        {
            throw new IllegalArgumentException(flag + " must be <= " + max + ", was " + value);
        }
    }
}
