package dev.tally.snapshotter;

import dev.tally.ledger.LedgerConfig;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.ToLongFunction;

/**
 * The ledger rules a data folder's journal was decided under, kept beside it in {@value #FILE_NAME}.
 *
 * <p>The journal holds commands, not outcomes: a replay decides each command again. Capacities and windows are
 * part of that decision — a key past its retention is new again, a full table is {@code capacity-exceeded} — so
 * replaying under other values than the server ran with would silently change results already acknowledged
 * (a transfer applied twice after a restart, one refused with 503 applied on replay). The first {@code tally serve}
 * on a folder records its rules here, before its first command is journaled; every later start and every offline
 * tool takes its rules from here and refuses values that differ.
 *
 * <p>Plain text ({@code key=value}), written once, atomically (a temporary file, forced, renamed, the folder
 * forced); never rewritten.
 */
public final class LedgerRulesFile
{
    public static final String FILE_NAME = "ledger-rules.properties";

    /**
     * The rules' generation this build decides under, recorded as {@code rulesVersion}: 2 is the cold index (memory lets
     * keys, references and transfers go once the cold index holds them; a reference stays unique for good; the reversal
     * window is checked by journaled time wherever the transfer is). A folder recorded without it (generation 1) has a
     * journal decided under other rules, which this build would replay differently.
     */
    public static final int RULES_VERSION = 2;
    private static final String VERSION_KEY = "rulesVersion";

    /** One rule: its name in the file (the {@link LedgerConfig} component's) and how to read it from a configuration. */
    private record Rule(String name, ToLongFunction<LedgerConfig> value)
    {
    }

    /** Every rule, in {@link LedgerConfig}'s component order: the file's lines, the comparison and the reading follow it. */
    private static final List<Rule> RULES = List.of(
        new Rule("accountsMax", LedgerConfig::accountsMax),
        new Rule("subBalancesMax", LedgerConfig::subBalancesMax),
        new Rule("idempotencyKeysMax", LedgerConfig::idempotencyKeysMax),
        new Rule("referencesMax", LedgerConfig::referencesMax),
        new Rule("transfersMax", LedgerConfig::transfersMax),
        new Rule("holdsMax", LedgerConfig::holdsMax),
        new Rule("keyRetentionMs", LedgerConfig::keyRetentionMs),
        new Rule("referenceRetentionMs", LedgerConfig::referenceRetentionMs),
        new Rule("reversalWindowMs", LedgerConfig::reversalWindowMs),
        new Rule("expiriesPerTickMax", LedgerConfig::expiriesPerTickMax));

    /** The tables whose size is a tuning knob from {@link LedgerConfig#TUNABLE_TABLE_MIN} up. */
    private static final List<String> TUNABLE_TABLES = List.of("idempotencyKeysMax", "referencesMax", "transfersMax");

    private LedgerRulesFile()
    {
    }

    /** @return where the rules of {@code dataDir}'s journal are kept. */
    public static Path inDataDir(final Path dataDir)
    {
        return dataDir.resolve(FILE_NAME);
    }

    /**
     * @return the rules recorded in {@code dataDir}, or null when none are (a new folder).
     * @throws IllegalStateException when the file exists but is not a complete, valid record (naming the file).
     */
    public static LedgerConfig read(final Path dataDir)
    {
        final Path file = inDataDir(dataDir);
        if (!Files.exists(file))
        {
            return null;
        }
        final Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8))
        {
            p.load(in);
            final long[] v = new long[RULES.size()];
            for (int i = 0; i < v.length; i++)
            {
                v[i] = longOf(p, RULES.get(i).name());
            }
            return new LedgerConfig(intOf(v, 0), intOf(v, 1), intOf(v, 2), intOf(v, 3), intOf(v, 4), intOf(v, 5), v[6], v[7], v[8],
                intOf(v, 9));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read the ledger rules " + file, ex);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalStateException("the ledger rules " + file + " are damaged: " + ex.getMessage() +
                " (restore the file from a backup of this data folder: its journal was decided under them)", ex);
        }
    }

    /**
     * @return the rules' generation {@code dataDir} recorded: {@link #RULES_VERSION} for a folder this build recorded, 1
     *         for one recorded before generations were, 0 when the folder recorded none.
     */
    public static int version(final Path dataDir)
    {
        final Path file = inDataDir(dataDir);
        if (!Files.exists(file))
        {
            return 0;
        }
        final Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8))
        {
            p.load(in);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read the ledger rules " + file, ex);
        }
        final String version = p.getProperty(VERSION_KEY);
        return version == null ? 1 : Integer.parseInt(version.trim());
    }

    /**
     * Refuses a folder whose journal holds commands decided under an older generation of rules: this build would replay
     * them to another state than the one acknowledged.
     *
     * @param journaled the journal's last index (0: nothing journaled yet, any folder will do).
     * @throws IllegalStateException saying so and what to do.
     */
    public static void requireCurrentGeneration(final Path dataDir, final long journaled)
    {
        final int version = version(dataDir);
        if (journaled > 0 && version < RULES_VERSION)
        {
            throw new IllegalStateException("the journal in " + dataDir + " was decided under ledger rules of generation " +
                Math.max(1, version) + " (before the cold index), and this build decides under generation " + RULES_VERSION +
                ": a replay would not rebuild what was acknowledged. Serve this folder with the build that wrote it, or start " +
                "a new data folder (docs/OPERATIONS.md, \"Upgrading\").");
        }
    }

    /** Records {@code rules} for {@code dataDir}, durably. Only when none are recorded yet. */
    public static void write(final Path dataDir, final LedgerConfig rules)
    {
        final Path file = inDataDir(dataDir);
        final Path temp = dataDir.resolve(FILE_NAME + ".tmp");
        final StringBuilder text = new StringBuilder(
            "# The ledger rules this data folder's journal is decided under (docs/CONFIG.md, \"Ledger rules\").\n" +
            "# Recorded by the first tally serve on the folder. Every start and every replay uses them; a start with other\n" +
            "# values is refused, because a replay under other rules would change results already acknowledged. Do not edit.\n");
        text.append(VERSION_KEY).append('=').append(RULES_VERSION).append('\n');
        for (final Rule rule : RULES)
        {
            text.append(rule.name()).append('=').append(rule.value().applyAsLong(rules)).append('\n');
        }
        try
        {
            try (FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE))
            {
                final ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining())
                {
                    out.write(bytes);
                }
                out.force(true);
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
            SnapshotDirectory.forceDirectory(dataDir);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot record the ledger rules in " + file, ex);
        }
    }

    /**
     * Removes the record of {@code dataDir}'s rules: only for a start that recorded them and then failed before its
     * journal took any command under them.
     */
    public static void forget(final Path dataDir)
    {
        try
        {
            Files.deleteIfExists(inDataDir(dataDir));
            SnapshotDirectory.forceDirectory(dataDir);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot remove the ledger rules " + inDataDir(dataDir), ex);
        }
    }

    /**
     * @return one line per rule where {@code wanted} differs from {@code recorded}, e.g.
     *         {@code "keyRetentionMs: 8000 recorded, 86400000 asked"}; empty when they agree. A difference that decides
     *         nothing ({@link LedgerConfig#decidesLike}: the keys, references and transfers tables' sizes, from
     *         {@link LedgerConfig#TUNABLE_TABLE_MIN} up, and how long a reference stays in memory) is not one.
     */
    public static List<String> differences(final LedgerConfig recorded, final LedgerConfig wanted)
    {
        final List<String> out = new ArrayList<>();
        for (final Rule rule : RULES)
        {
            final long was = rule.value().applyAsLong(recorded);
            final long asked = rule.value().applyAsLong(wanted);
            if (was != asked && !tunable(rule, was, asked))
            {
                out.add(rule.name() + ": " + was + " recorded, " + asked + " asked" +
                    (TUNABLE_TABLES.contains(rule.name()) ? " (a table's size may change when both are at least " +
                        LedgerConfig.TUNABLE_TABLE_MIN + ")" : ""));
            }
        }
        return out;
    }

    private static boolean tunable(final Rule rule, final long was, final long asked)
    {
        return rule.name().equals("referenceRetentionMs") ||
            (TUNABLE_TABLES.contains(rule.name()) && was >= LedgerConfig.TUNABLE_TABLE_MIN && asked >= LedgerConfig.TUNABLE_TABLE_MIN);
    }

    /**
     * Refuses {@code wanted} where it differs from the rules {@code dataDir} recorded; nothing to check for a folder that
     * recorded none ({@code recorded} null).
     *
     * @throws IllegalArgumentException saying what differs, why it matters and what to do.
     */
    public static void requireSame(final Path dataDir, final LedgerConfig recorded, final LedgerConfig wanted)
    {
        final List<String> differences = recorded == null ? List.of() : differences(recorded, wanted);
        if (!differences.isEmpty())
        {
            throw new IllegalArgumentException("the ledger rules asked for differ from those " + inDataDir(dataDir) + " recorded (" +
                String.join("; ", differences) + "): the journal's commands were decided under the recorded ones, and a replay " +
                "under others would change results already acknowledged. Leave these settings out to use the recorded values.");
        }
    }

    /** @return rule {@code index} of {@code values} as an int, which the capacities are. */
    private static int intOf(final long[] values, final int index)
    {
        final long value = values[index];
        if (value != (int)value)
        {
            throw new IllegalArgumentException(RULES.get(index).name() + " is out of range: " + value);
        }
        return (int)value;
    }

    private static long longOf(final Properties p, final String key)
    {
        final String value = p.getProperty(key);
        if (value == null)
        {
            throw new IllegalArgumentException(key + " is missing");
        }
        try
        {
            return Long.parseLong(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(key + " is not a number: " + value);
        }
    }
}
