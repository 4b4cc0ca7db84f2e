package dev.tally.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** What {@code tally} answers a new user: help on every command, short flag errors, a missing data folder refused. */
class TallyMainTest
{
    /** Small tables, so that a replay of an empty folder allocates a few megabytes rather than the defaults' gigabyte. */
    private static final List<String> SMALL = List.of("--accounts-max", "1000", "--sub-balances-max", "4000", "--keys-max", "1000",
        "--transfers-max", "1000", "--holds-max", "1000");

    @TempDir
    Path dir;

    @Test
    void shouldAnswerHelpOnEveryCommand()
    {
        final List<List<String>> commands = new ArrayList<>();
        collect(TallyMain.commandLine(), new ArrayList<>(), commands);
        assertTrue(commands.size() >= 8, "tally, its six commands and keys add: " + commands);
        for (final List<String> command : commands)
        {
            final List<String> args = new ArrayList<>(command);
            args.add("--help");
            final Run help = run(args);
            assertEquals(0, help.status, () -> args + ": " + help.err);
            final String usage = "Usage: " + String.join(" ", prefixed(command));
            assertTrue(help.out.startsWith(usage), () -> args + " prints " + usage + ":\n" + help.out);
        }
    }

    @Test
    void shouldPrintAFlagErrorOnOneLineAndWhereHelpIsInsteadOfTheUsage()
    {
        expectShortError(List.of("replay", "--format", "xml"), "tally replay", "--format");
        expectShortError(List.of("replay", "--bogus"), "tally replay", "--bogus");
        expectShortError(List.of("demo", "--bogus"), "tally demo", "--bogus");
        expectShortError(List.of("--prot", "8080"), "tally serve", "--prot");   // serve is the default command
        expectShortError(List.of("keys", "add", "--tenant"), "tally keys add", "--tenant");
        expectShortError(List.of("snapshot", "--data-dir", dir.toString(), "--holds-max", "0"), "tally snapshot", "--holds-max must be > 0");
        expectShortError(List.of("serve", "--api-key", "t:tenant-key-1", "--data-dir", dir.toString(), "--port", "70000"), "tally serve",
            "--port must be 0..65535");
    }

    @Test
    void shouldRefuseAMissingDataFolderWithoutMakingOne() throws IOException
    {
        final Path missing = dir.resolve("no-such-folder");
        final int closedPort;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            closedPort = free.getLocalPort();   // verify would fail on PostgreSQL fast, were the folder not refused first
        }
        for (final List<String> command : List.of(List.of("replay"), List.of("replay", "--from-snapshot"),
            List.of("verify", "--db-url", "jdbc:postgresql://127.0.0.1:" + closedPort + "/tally?connectTimeout=1"), List.of("snapshot")))
        {
            final List<String> args = new ArrayList<>(command);
            args.addAll(List.of("--data-dir", missing.toString()));
            args.addAll(SMALL);
            final Run run = run(args);
            assertEquals(TallyMain.EXIT_NO_DATA_FOLDER, run.status, () -> args + ": " + run.out + run.err);
            assertEquals("tally " + command.get(0) + ": no data folder at " + missing.toAbsolutePath() +
                " (--data-dir; the folder tally serve ran with)", run.err.strip(), args.toString());
            assertFalse(Files.exists(missing), () -> args + " made the folder it was to read");
        }
        final Path file = Files.writeString(dir.resolve("a-file"), "");
        final Run notAFolder = run(List.of("replay", "--data-dir", file.toString()));
        assertEquals(TallyMain.EXIT_NO_DATA_FOLDER, notAFolder.status, notAFolder.err);
        assertTrue(notAFolder.err.contains(file.toAbsolutePath() + " is not a folder"), notAFolder.err);
    }

    @Test
    void shouldReplayAnExistingDataFolderWithAnEmptyJournal() throws IOException
    {
        final Path data = Files.createDirectories(dir.resolve("data").resolve("journal")).getParent();
        final List<String> args = new ArrayList<>(List.of("replay", "--data-dir", data.toString(), "--format", "json"));
        args.addAll(SMALL);
        final Run replay = run(args);
        assertEquals(0, replay.status, replay.err);
        assertTrue(replay.out.contains("\"commands\":0,\"status\":\"COMPLETE\""), replay.out);
    }

    private static void expectShortError(final List<String> args, final String command, final String named)
    {
        final Run run = run(args);
        final List<String> lines = run.err.lines().toList();
        final String shown = args + " printed:\n" + run.err + run.out;
        assertEquals(TallyMain.EXIT_USAGE, run.status, shown);
        assertFalse(run.err.contains("Usage:") || run.out.contains("Usage:"), shown);
        assertTrue(lines.size() >= 2 && lines.size() <= 3, "the error, a suggestion at most, where help is: " + shown);
        assertTrue(lines.get(0).startsWith(command + ": ") && lines.get(0).contains(named), shown);
        assertEquals("try '" + command + " --help'", lines.get(lines.size() - 1), shown);
    }

    private static void collect(final CommandLine command, final List<String> path, final List<List<String>> into)
    {
        into.add(List.copyOf(path));
        for (final Map.Entry<String, CommandLine> sub : command.getSubcommands().entrySet())
        {
            path.add(sub.getKey());
            collect(sub.getValue(), path, into);
            path.remove(path.size() - 1);
        }
    }

    private static List<String> prefixed(final List<String> command)
    {
        final List<String> names = new ArrayList<>(List.of("tally"));
        names.addAll(command);
        return names;
    }

    private record Run(int status, String out, String err)
    {
    }

    /** Runs {@code tally args} as {@code main} does; what commands print on {@code System.out} counts as out. */
    private static Run run(final List<String> args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final PrintStream original = System.out;
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();
        final int status;
        try (PrintStream capture = new PrintStream(printed, true, StandardCharsets.UTF_8))
        {
            System.setOut(capture);
            status = TallyMain.execute(args.toArray(new String[0]), Map.of(), new PrintWriter(out, true), new PrintWriter(err, true));
        }
        finally
        {
            System.setOut(original);
        }
        return new Run(status, out + printed.toString(StandardCharsets.UTF_8), err.toString());
    }
}
