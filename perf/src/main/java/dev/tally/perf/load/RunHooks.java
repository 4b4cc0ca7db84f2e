package dev.tally.perf.load;

import java.io.IOException;

/**
 * What a caller of {@link ScenarioRun} does at two moments of a run, e.g. {@code compare} letting PostgreSQL settle
 * after setup and noting where the journal stood when the measured window ended.
 */
public interface RunHooks
{
    /** No hooks. */
    RunHooks NONE = new RunHooks()
    {
    };

    /** After setup, before the first request of the load (warmup included). */
    default void afterSetup() throws IOException, InterruptedException
    {
    }

    /** On the driving thread, the moment the measured window ends (requests still in flight are drained after it). */
    default void windowEnded()
    {
    }
}
