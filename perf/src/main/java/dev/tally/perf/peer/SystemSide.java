package dev.tally.perf.peer;

import dev.tally.perf.load.RunHooks;
import dev.tally.perf.load.Target;
import java.io.PrintStream;
import java.util.List;

/**
 * One system of a compare as one measured run sees it: where the load goes, what is done after setup and at the end
 * of the window ({@link RunHooks}), and the system's own check once the load generator's has run.
 */
interface SystemSide extends RunHooks
{
    /** @return where the load goes. */
    Target target();

    /** @return what measures this run's CPU (started after setup). */
    CpuMeter meter();

    /**
     * After the load generator's check: the system's own (the peer's SQL over its whole database; Tally's read model
     * catching up with the run).
     *
     * @param log   where to report.
     * @param notes what failed, added to.
     * @return false when it failed.
     */
    boolean finish(PrintStream log, List<String> notes) throws Exception;

    /** @return seconds from the end of the window until the read model held it; NaN for a system without one. */
    default double catchUpS()
    {
        return Double.NaN;
    }
}
