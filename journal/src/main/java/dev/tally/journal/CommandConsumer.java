package dev.tally.journal;

import dev.tally.ledger.command.Command;

/** Receives replayed commands in journal order. */
@FunctionalInterface
public interface CommandConsumer
{
    /**
     * @param command a reused holder, valid only during the call; copy it to keep it.
     */
    void accept(Command command);
}
