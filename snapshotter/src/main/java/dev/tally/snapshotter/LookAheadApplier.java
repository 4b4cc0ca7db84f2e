package dev.tally.snapshotter;

import dev.tally.journal.CommandConsumer;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.command.Command;

/**
 * Applies replayed commands {@link Ledger#LOOK_AHEAD} behind the journal reader, prefetching each one as it
 * arrives: with a million accounts a transfer waits ~700 ns on cache misses (docs/BENCHMARKS.md), and
 * started this early they overlap with the commands applied meanwhile. The order of application is the
 * journal's; prefetching only reads, so the ledger ends in the same state. Call {@link #drain()} after
 * the replay to apply the last ones.
 */
final class LookAheadApplier implements CommandConsumer
{
    private final Ledger ledger;
    private final CommandConsumer apply;
    private final Command[] window = new Command[Ledger.LOOK_AHEAD];
    private long received;
    private long applied;

    /** @param apply applies one command to {@code ledger} (and whatever follows it, e.g. the read model). */
    LookAheadApplier(final Ledger ledger, final CommandConsumer apply)
    {
        this.ledger = ledger;
        this.apply = apply;
        for (int i = 0; i < window.length; i++)
        {
            window[i] = new Command();
        }
    }

    @Override
    public void accept(final Command command)
    {
        final Command slot = window[(int)(received % window.length)];
        if (received - applied == window.length)
        {
            apply.accept(slot);   // the command LOOK_AHEAD behind leaves the window before it is overwritten
            applied++;
        }
        slot.copyFrom(command);
        ledger.prefetch(slot);
        received++;
    }

    /** Applies the commands still in the window, oldest first. */
    void drain()
    {
        while (applied < received)
        {
            apply.accept(window[(int)(applied % window.length)]);
            applied++;
        }
    }
}
