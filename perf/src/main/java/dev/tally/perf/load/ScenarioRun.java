package dev.tally.perf.load;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * One scenario, start to finish: setup (create and fund accounts), load (warmup, measured window,
 * drain), check against the live server, report, histogram file.
 */
public final class ScenarioRun
{
    private static final SecureRandom RUN_TAGS = new SecureRandom();
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    private ScenarioRun()
    {
    }

    /**
     * @param spec       the run.
     * @param target     the server (loopback).
     * @param resultsDir where the {@code .hgrm} file goes; null for none.
     * @param label      a label for the file name (e.g. {@code async}); may be empty.
     * @param log        where the table goes.
     * @return the result, checked.
     */
    public static Outcome run(final LoadSpec spec, final Target target, final Path resultsDir, final String label, final PrintStream log)
        throws IOException, InterruptedException
    {
        return run(spec, target, resultsDir, label, log, RunHooks.NONE);
    }

    /**
     * @param hooks what the caller does after setup and when the measured window ends.
     * @return the result, checked.
     */
    public static Outcome run(final LoadSpec spec, final Target target, final Path resultsDir, final String label, final PrintStream log,
        final RunHooks hooks) throws IOException, InterruptedException
    {
        final long runTag = RUN_TAGS.nextInt(1 << 30);
        final AccountLayout layout = new AccountLayout(spec, runTag);
        final String keyPrefix = "L" + Long.toString(runTag, 36) + "-";
        new Setup(target, spec, layout, keyPrefix).run(log);
        hooks.afterSetup();

        final LoadResult result = new LoadGenerator(spec, target, layout, keyPrefix, hooks).run();
        CheckReport report;
        try
        {
            report = new Checker(target, spec, layout, keyPrefix).check(result.outcomes);
        }
        catch (final IOException ex)
        {
            report = new CheckReport();
            report.fail("the check could not complete: " + ex.getMessage());
        }
        result.check(report);
        result.print(log);
        if (resultsDir != null)
        {
            final String name = LocalDateTime.now().format(STAMP) + "-" + spec.scenario().cliName() + "-" + spec.mode().cliName() +
                (spec.mode() == Mode.OPEN ? "-" + spec.rateRps() + "rps" : "-" + spec.connections() + "c") + (label.isEmpty() ? "" : "-" + label);
            log.println("histogram: " + result.writeHistogram(resultsDir, name));
        }
        return new Outcome(result.resultLine(), result.checkOk(), result.transfersPerSecond(), result.errors(), result.keptUp());
    }

    /**
     * What a caller needs to know about a finished scenario.
     *
     * @param resultLine        the machine-readable RESULT line.
     * @param checkOk           whether the correctness check passed.
     * @param transfersPerSecond transfers answered as expected per second in the measured window.
     * @param errors            requests not answered as expected in the window.
     * @param keptUp            false when an open-loop run left more than 0.1 % of its requests unsent (its rate was above
     *                          capacity); true in closed loop.
     */
    public record Outcome(String resultLine, boolean checkOk, long transfersPerSecond, long errors, boolean keptUp)
    {
    }
}
