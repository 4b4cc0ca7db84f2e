package dev.tally.ledger;

import dev.tally.ledger.account.Accounts;
import dev.tally.ledger.batch.UndoLog;
import dev.tally.ledger.hold.HoldTable;
import dev.tally.ledger.idempotency.IdempotencyTable;
import dev.tally.ledger.transfer.ReferenceTable;
import dev.tally.ledger.transfer.TransferTable;

/**
 * The ledger's state: its tables, each allocated once at its configured capacity, and the journal position with the
 * counters a snapshot carries. What the ledger's parts ({@link Postings}, {@link UnitOfWork}, {@link Retention},
 * {@link Invariants}, {@link LedgerQueries}, {@link LedgerImage}) share; only the business thread touches it.
 */
final class LedgerState
{
    final Accounts accounts;
    final IdempotencyTable keys;
    final TransferTable transfers;
    final ReferenceTable references;
    final HoldTable holds;

    /** Journal index of the last command applied. */
    long lastJournalIndex;
    /** Journaled time of the last command applied, epoch nanoseconds. */
    long nowNs;
    long commandsApplied;
    /** Transfers applied (not reversals or captures), those of a rolled-back atomic batch taken back. */
    long transfersPosted;

    /** @param undo where the tables record what an atomic batch changes, for its rollback. */
    LedgerState(final LedgerConfig config, final UndoLog undo)
    {
        accounts = new Accounts(config.accountsMax(), config.subBalancesMax(), undo);
        keys = new IdempotencyTable(config.idempotencyKeysMax());
        transfers = new TransferTable(config.transfersMax());
        references = new ReferenceTable(config.referencesMax());
        holds = new HoldTable(config.holdsMax(), undo);
    }
}
