package dev.tally.perf.load;

import java.util.Locale;

/** How requests are paced. */
public enum Mode
{
    /**
     * N connections, each with up to P requests in flight; a reply releases the next request. Measures
     * the most the system sustains; latency is measured from the actual send.
     */
    CLOSED,
    /**
     * A fixed request rate on a schedule that does not wait for replies. Latency is measured from the
     * INTENDED send time, so a stall is charged to every request it delayed (coordinated omission
     * corrected); requests the client could not send by the end of the run are counted as unsent.
     * The warmup runs on the same schedule; warmup requests still queued when the measured window
     * begins are dropped (and counted), so the window starts on schedule rather than behind a queue
     * a cold JIT left.
     */
    OPEN;

    /** @return the lower-case name used on the command line and in the RESULT line. */
    public String cliName()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @param name {@code closed} or {@code open}, case-insensitive. */
    public static Mode parse(final String name)
    {
        return valueOf(name.trim().toUpperCase(Locale.ROOT));
    }
}
