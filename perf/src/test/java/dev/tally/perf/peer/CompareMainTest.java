package dev.tally.perf.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code tally-perf}'s command tree: the load generator is {@code load run|bench}, each with its own help; no other word passes. */
class CompareMainTest
{
    @Test
    void shouldPrintTheLoadGeneratorsOwnHelp()
    {
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();

        final int status = CompareMain.run(new String[] {"load", "bench", "--help"}, new PrintStream(printed, true, StandardCharsets.UTF_8));

        final String text = printed.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, text);
        assertTrue(text.startsWith("Usage: tally-perf load bench"), text);
        assertTrue(text.contains("--durability") && text.contains("--scenario") && text.contains("--mode"), text);
    }

    @Test
    void shouldPrintTheHelpOfLoadRunAgainstARunningServer()
    {
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();

        final int status = CompareMain.run(new String[] {"load", "run", "--help"}, new PrintStream(printed, true, StandardCharsets.UTF_8));

        final String text = printed.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, text);
        assertTrue(text.startsWith("Usage: tally-perf load run"), text);
        assertTrue(text.contains("--url") && text.contains("--api-key"), text);
    }

    @Test
    void shouldListLoadAmongTheCommands()
    {
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();

        final int status = CompareMain.run(new String[] {"--help"}, new PrintStream(printed, true, StandardCharsets.UTF_8));

        final String text = printed.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, text);
        assertTrue(text.contains("  load ") && text.contains("  compare ") && text.contains("  peer "), text);
    }

    @Test
    void shouldRefuseAWordThatIsNotACommandEvenBesideHelp()
    {
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();

        final int status = CompareMain.run(new String[] {"bench", "--help"}, new PrintStream(printed, true, StandardCharsets.UTF_8));

        assertEquals(2, status, "bench is `load bench`");
        assertTrue(printed.toString(StandardCharsets.UTF_8).isEmpty(), "no help on the standard output: the error and the usage go to stderr");
    }
}
