package dev.tally.server.it;

import dev.tally.server.cli.TallyMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs a {@code tally} subcommand in this JVM and captures what it prints (stdout, then stderr). */
final class TallyCli
{
    private static final Pattern STATE_HASH = Pattern.compile("\"stateHash\":\"([0-9a-f]{16})\"");
    private static final Pattern SNAPSHOT_INDEX = Pattern.compile("\"snapshotIndex\":(\\d+)");

    private TallyCli()
    {
    }

    /** What one run printed, and its exit status. */
    record Run(int exitCode, String output)
    {
        String stateHash()
        {
            return group(STATE_HASH);
        }

        long snapshotIndex()
        {
            return Long.parseLong(group(SNAPSHOT_INDEX));
        }

        private String group(final Pattern pattern)
        {
            final Matcher m = pattern.matcher(output);
            if (!m.find())
            {
                throw new AssertionError("no " + pattern + " in:\n" + output);
            }
            return m.group(1);
        }
    }

    /** Runs {@code tally <args> <capacities>} with the capacities every test process uses, parsed as {@code TallyMain} parses. */
    static synchronized Run run(final String... args)
    {
        final List<String> all = new ArrayList<>(List.of(args));
        all.addAll(TallyProcess.CAPACITIES);
        final PrintStream original = System.out;
        final PrintStream originalErr = System.err;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final ByteArrayOutputStream capturedErr = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8);
             PrintStream err = new PrintStream(capturedErr, true, StandardCharsets.UTF_8))
        {
            System.setOut(out);
            System.setErr(err);
            final int exit = TallyMain.commandLine().execute(all.toArray(new String[0]));
            return new Run(exit, captured.toString(StandardCharsets.UTF_8) + capturedErr.toString(StandardCharsets.UTF_8));
        }
        finally
        {
            System.setOut(original);
            System.setErr(originalErr);
        }
    }
}
