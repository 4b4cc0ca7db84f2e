package dev.tally.ledger;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Figures about a {@link Ledger} that any thread may read: its position in the journal, counters, how full each table
 * is, and the oldest hold of unknown outcome. Metrics read them from the scraping thread; tools read them once the
 * ledger has stopped.
 *
 * <p>The thread that applies commands publishes them ({@link Ledger#publishStats()}): the business stage at the end of
 * each batch, the ledger itself when it is built, restored and at the end of a replay. A publication is a handful of
 * release stores into one array, no allocation, no lock; a read is an acquire load. Each figure is exact as of the
 * last publication, and never torn; two figures read one after the other may come from two publications (a gauge may
 * be a batch behind another). The capacities never change: they are the ledger's {@link #config()}.
 */
public final class LedgerStats
{
    private static final VarHandle VALUES = MethodHandles.arrayElementVarHandle(long[].class);

    private static final int LAST_JOURNAL_INDEX = 0;
    private static final int NOW_NS = 1;
    private static final int COMMANDS_APPLIED = 2;
    private static final int TRANSFERS_POSTED = 3;
    private static final int HOT_ACCOUNT_MOVES = 4;
    private static final int ACCOUNTS = 5;
    private static final int SUB_BALANCES = 6;
    private static final int IDEMPOTENCY_KEYS = 7;
    private static final int REFERENCES = 8;
    private static final int TRANSFERS = 9;
    private static final int HOLDS = 10;
    private static final int HOLDS_UNKNOWN = 11;
    private static final int OLDEST_UNKNOWN_HOLD_TIMESTAMP_NS = 12;
    private static final int FIGURES = 13;

    private final LedgerConfig config;
    /** One writer (the applying thread), any number of readers. */
    private final long[] values = new long[FIGURES];

    LedgerStats(final LedgerConfig config)
    {
        this.config = config;
    }

    /**
     * Publishes every figure. The applying thread only; allocation-free.
     *
     * @param lastJournalIndex              journal index of the last command applied.
     * @param nowNs                         its journaled time, epoch nanoseconds.
     * @param commandsApplied               commands applied since the ledger began (a snapshot carries it on).
     * @param transfersPosted               transfers applied, reversals and captures not counted.
     * @param hotAccountMoves               money movements touching an account of more than one sub-balance, since start.
     * @param accounts                      accounts, every tenant's.
     * @param subBalances                   sub-balances across every account.
     * @param idempotencyKeys               keys stored, inside their retention window.
     * @param references                    transfer references kept, inside their retention window.
     * @param transfers                     transfers kept in memory for reversal and reads.
     * @param holds                         live holds, active and unknown.
     * @param holdsUnknown                  holds whose outcome is unknown.
     * @param oldestUnknownHoldTimestampNs  journaled time the oldest unknown hold was created at, 0 when none.
     */
    void publish(
        final long lastJournalIndex, final long nowNs, final long commandsApplied, final long transfersPosted,
        final long hotAccountMoves, final long accounts, final long subBalances, final long idempotencyKeys,
        final long references, final long transfers, final long holds, final long holdsUnknown,
        final long oldestUnknownHoldTimestampNs)
    {
        put(LAST_JOURNAL_INDEX, lastJournalIndex);
        put(NOW_NS, nowNs);
        put(COMMANDS_APPLIED, commandsApplied);
        put(TRANSFERS_POSTED, transfersPosted);
        put(HOT_ACCOUNT_MOVES, hotAccountMoves);
        put(ACCOUNTS, accounts);
        put(SUB_BALANCES, subBalances);
        put(IDEMPOTENCY_KEYS, idempotencyKeys);
        put(REFERENCES, references);
        put(TRANSFERS, transfers);
        put(HOLDS, holds);
        put(HOLDS_UNKNOWN, holdsUnknown);
        put(OLDEST_UNKNOWN_HOLD_TIMESTAMP_NS, oldestUnknownHoldTimestampNs);
    }

    private void put(final int figure, final long value)
    {
        VALUES.setRelease(values, figure, value);
    }

    private long get(final int figure)
    {
        return (long)VALUES.getAcquire(values, figure);
    }

    /** @return the capacities and windows of the ledger (immutable). */
    public LedgerConfig config()
    {
        return config;
    }

    /** @return journal index of the last command applied. */
    public long lastJournalIndex()
    {
        return get(LAST_JOURNAL_INDEX);
    }

    /** @return journaled time of the last command applied, epoch nanoseconds. */
    public long nowNs()
    {
        return get(NOW_NS);
    }

    public long commandsApplied()
    {
        return get(COMMANDS_APPLIED);
    }

    public long transfersPosted()
    {
        return get(TRANSFERS_POSTED);
    }

    /** @return money movements touching an account of more than one sub-balance since start (a metric, not state). */
    public long hotAccountMoves()
    {
        return get(HOT_ACCOUNT_MOVES);
    }

    /** @return accounts, every tenant's (at most {@code config().accountsMax()}). */
    public long accountCount()
    {
        return get(ACCOUNTS);
    }

    /** @return sub-balances across every account (at most {@code config().subBalancesMax()}). */
    public long subBalanceCount()
    {
        return get(SUB_BALANCES);
    }

    /** @return idempotency keys stored (at most {@code config().idempotencyKeysMax()}). */
    public long idempotencyKeyCount()
    {
        return get(IDEMPOTENCY_KEYS);
    }

    /** @return transfer references kept (at most {@code config().referencesMax()}). */
    public long referenceCount()
    {
        return get(REFERENCES);
    }

    /** @return transfers kept in memory (at most {@code config().transfersMax()}). */
    public long transferCount()
    {
        return get(TRANSFERS);
    }

    /** @return live holds, active and unknown (at most {@code config().holdsMax()}). */
    public long holdCount()
    {
        return get(HOLDS);
    }

    /** @return holds whose outcome is unknown. */
    public long unknownHoldCount()
    {
        return get(HOLDS_UNKNOWN);
    }

    /** @return active holds: live ones whose outcome is not unknown. */
    public long activeHoldCount()
    {
        return Math.max(0, holdCount() - unknownHoldCount());   // the two may come from two publications
    }

    /** @return journaled time the oldest hold of unknown outcome was created at, epoch nanoseconds; 0 when none. */
    public long oldestUnknownHoldTimestampNs()
    {
        return get(OLDEST_UNKNOWN_HOLD_TIMESTAMP_NS);
    }

    /** @return journaled time since the oldest hold of unknown outcome was created, nanoseconds; 0 when none. */
    public long oldestUnknownHoldAgeNs()
    {
        final long oldestNs = oldestUnknownHoldTimestampNs();
        return oldestNs == 0 ? 0 : Math.max(0, nowNs() - oldestNs);
    }
}
