package dev.tally.ledger;

import dev.tally.ledger.account.Accounts;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.effect.EffectLog;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;

/**
 * The checks that stay on in production, around every command: cheap, and a violation ({@link InvariantViolation})
 * halts the pipeline rather than build on a state that cannot be trusted. Before: the journal's order. After: the
 * command's entries sum to zero, a rejected command changed no balance, and every sub-balance it changed respects
 * its floor.
 */
final class Invariants
{
    private final LedgerState state;
    private final Accounts accounts;
    private final EffectLog effects;

    Invariants(final LedgerState state, final EffectLog effects)
    {
        this.state = state;
        this.accounts = state.accounts;
        this.effects = effects;
    }

    /** Before a command: the journal index rises (within the ids' 48 bits), time does not fall, the command has a type. */
    void checkSequence(final Command c)
    {
        if (c.journalIndex <= state.lastJournalIndex || c.journalIndex > LedgerLimits.JOURNAL_INDEX_MAX)
        {
            throw new InvariantViolation("journal index " + c.journalIndex + " after " + state.lastJournalIndex);
        }
        if (c.timestampNs < state.nowNs)
        {
            throw new InvariantViolation("journaled time went back at index " + c.journalIndex);
        }
        if (c.type == null)
        {
            throw new InvariantViolation("command without type at index " + c.journalIndex);
        }
    }

    /** After a command, whose entries start at {@code entriesBefore} in the effects. */
    void checkAfter(final Command c, final Result r, final long entriesBefore)
    {
        long sum = 0;
        for (int i = (int)entriesBefore; i < effects.entryCount(); i++)
        {
            sum += effects.entryAmount(i);
        }
        if (sum != 0)
        {
            throw new InvariantViolation("entries of journal index " + c.journalIndex + " sum to " + sum);
        }
        if (!r.replayed && r.code != ResultCode.OK && accounts.touchedCount() != 0 && c.type != CommandType.TICK)
        {
            throw new InvariantViolation("rejected command changed balances at journal index " + c.journalIndex);
        }
        for (int i = 0; i < accounts.touchedCount(); i++)
        {
            // Only a changed sub-balance can have left its floor: the others passed this check when they changed.
            final int slot = accounts.touchedSlot(i);
            if (!accounts.subHolds(slot, accounts.touchedSubIndex(i)))
            {
                throw new InvariantViolation("account " + accounts.id(slot) + " below its floor at journal index " + c.journalIndex);
            }
        }
    }
}
