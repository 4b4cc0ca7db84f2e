package dev.tally.gateway.http;

/**
 * Netty's buffer leak detector, off in the processes the jars start unless the JVM was told otherwise.
 *
 * <p>Why: at its default level ({@code simple}) Netty tracks one buffer allocation in 128 and records where
 * it was allocated by creating a {@code Throwable}. In the pipeline every request allocates a few buffers
 * (the aggregated request, the reply), so the I/O thread, the responder and the load client each fill stack
 * traces all the time: {@code Throwable.fillInStackTrace} was 0.6 % of all CPU samples under the
 * {@code uniform} load and gone with the detector off
 * (docs/benchmarks/history/2026-12-01-leak-detector-and-batch-experiments.md). Leaks are a test
 * concern: the build runs every test JVM with {@code -Dio.netty.leakDetection.level=paranoid}, which
 * tracks every buffer and logs a leak as {@code LEAK} (gateway's and perf's tests fail on that report: gateway's test sources'
 * {@code NoBufferLeaks} and {@code TallyProcess}), and is kept because this class never overrides a level that was set.
 *
 * <p>Call it before any Netty class loads (a launcher's first line): the level is read once, when Netty's
 * {@code ResourceLeakDetector} initialises.
 */
public final class LeakDetection
{
    /** The system property Netty reads its detection level from. */
    public static final String LEVEL_PROPERTY = "io.netty.leakDetection.level";

    private LeakDetection()
    {
    }

    /** Sets {@link #LEVEL_PROPERTY} to {@code disabled} unless it is already set. */
    public static void disableUnlessSet()
    {
        if (System.getProperty(LEVEL_PROPERTY) == null)
        {
            System.setProperty(LEVEL_PROPERTY, "disabled");
        }
    }
}
