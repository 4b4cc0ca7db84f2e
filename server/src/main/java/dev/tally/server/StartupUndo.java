package dev.tally.server;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a failed start must close, newest first. A start that fails half-way (the HTTP port taken, a
 * snapshot folder unreadable, PostgreSQL refusing a migration) would otherwise leave the embedded
 * PostgreSQL running as an orphan, the stage threads alive and the data folder locked; this undoes the
 * steps already taken, in reverse, so the process can exit cleanly or a caller can try again in the same JVM.
 */
final class StartupUndo
{
    private static final Logger LOG = LoggerFactory.getLogger(StartupUndo.class);

    private final Deque<Step> steps = new ArrayDeque<>();

    private record Step(String what, AutoCloseable undo)
    {
    }

    /** Registers the undoing of a step just taken; runs before the undoing of every earlier one. */
    void onFailure(final String what, final AutoCloseable undo)
    {
        steps.push(new Step(what, undo));
    }

    /** The start failed: undoes every step taken, newest first; a step that fails to undo does not stop the rest. */
    void undoAll(final Throwable cause)
    {
        LOG.warn("start failed ({}): undoing the {} steps taken", cause.toString(), steps.size());
        while (!steps.isEmpty())
        {
            final Step step = steps.pop();
            try
            {
                step.undo().close();
            }
            catch (final Exception | Error ex)
            {
                LOG.error("undoing '{}' after a failed start failed too", step.what(), ex);
                cause.addSuppressed(ex);
            }
        }
    }
}
