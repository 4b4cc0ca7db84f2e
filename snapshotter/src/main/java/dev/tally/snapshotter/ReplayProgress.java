package dev.tally.snapshotter;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.command.Command;
import java.util.function.BiConsumer;

/**
 * Says how a long replay is going: wraps the per-command consumer of {@link LedgerRecovery} and, every
 * {@code intervalNs} (looked at once per {@value #CHECK_EVERY_COMMANDS} commands, so a replay pays a counter and a mask
 * per command), reports the journal index reached, the commands replayed and the time taken. A start that replays a
 * journal of millions of commands is otherwise silent for as long as it takes.
 */
public final class ReplayProgress implements BiConsumer<Ledger, Command>
{
    /** Receives a report, on the replaying thread. */
    @FunctionalInterface
    public interface Report
    {
        void progress(long journalIndex, long commands, long elapsedNs);
    }

    private static final long CHECK_EVERY_COMMANDS = 1 << 16;

    private final BiConsumer<Ledger, Command> onApplied;
    private final long intervalNs;
    private final Report report;
    private long commands;
    private long startNs;
    private long lastReportNs;

    private ReplayProgress(final BiConsumer<Ledger, Command> onApplied, final long intervalNs, final Report report)
    {
        this.onApplied = onApplied;
        this.intervalNs = intervalNs;
        this.report = report;
    }

    /** @return {@code onApplied}, reporting to {@code report} every {@code intervalNs} of replay. */
    public static ReplayProgress every(final long intervalNs, final Report report, final BiConsumer<Ledger, Command> onApplied)
    {
        return new ReplayProgress(onApplied, intervalNs, report);
    }

    @Override
    public void accept(final Ledger ledger, final Command command)
    {
        onApplied.accept(ledger, command);
        if (command == null)
        {
            return;
        }
        if (commands++ == 0)
        {
            startNs = System.nanoTime();
            lastReportNs = startNs;
        }
        else if ((commands & (CHECK_EVERY_COMMANDS - 1)) == 0)
        {
            final long nowNs = System.nanoTime();
            if (nowNs - lastReportNs >= intervalNs)
            {
                lastReportNs = nowNs;
                report.progress(command.journalIndex, commands, nowNs - startNs);
            }
        }
    }
}
