package dev.tally.pipeline;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.command.Command;

/**
 * Receives each completed unit of work on the business thread, with {@link Ledger#effects()} final:
 * the hook for the PostgreSQL writer and metrics. Must not block and must not allocate on the transfer
 * path: copy what is needed into a pre-allocated hand-off and return.
 */
@FunctionalInterface
public interface UnitListener
{
    /** A listener that ignores every unit. */
    UnitListener NONE = (ledger, lastCommand) -> { };

    void onUnit(Ledger ledger, Command lastCommand);
}
