package dev.tally.perf.load;

import java.util.ArrayList;
import java.util.List;

/** What the correctness check verified and what it found wrong; a run with any failure is not a result. */
final class CheckReport
{
    private final List<String> verified = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();

    /** Records a property that was checked, and whether it held. */
    void expect(final boolean holds, final String property)
    {
        if (holds)
        {
            verified.add(property);
        }
        else
        {
            failures.add(property);
        }
    }

    void fail(final String why)
    {
        failures.add(why);
    }

    boolean ok()
    {
        return failures.isEmpty();
    }

    List<String> failures()
    {
        return failures;
    }

    List<String> verified()
    {
        return verified;
    }
}
