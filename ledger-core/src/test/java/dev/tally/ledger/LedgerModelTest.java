package dev.tally.ledger;

import dev.tally.ledger.ReferenceModel.Id;
import dev.tally.ledger.ReferenceModel.Outcome;
import dev.tally.ledger.account.Accounts;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.effect.EffectLog;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static dev.tally.ledger.ResultAssertions.assertReplayOf;
import static dev.tally.ledger.ResultAssertions.assertSameBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The model test: random sequences of every command type, with keys deliberately sent again with the
 * same payload (a retry) and with another payload (a reused key), applied to two fresh ledgers and to
 * {@link ReferenceModel}. The account lifecycle is among them: freezes of debits or of everything, unfreezes, and
 * closes, with transfers that empty an account so that closes succeed as well as fail. After every command it
 * compares result codes (and the account a lifecycle rejection names), per-account posted and held totals, each
 * account's status and table sizes with the model, checks the invariants that must hold whatever the model says
 * (money conserved per currency, no constrained sub-balance below its floor, a stored key never applied
 * again) and that both ledgers have the same {@code stateHash()}; after every unit it checks the effects.
 *
 * <p>Generated actions carry random numbers, not ids: they are resolved against the model's state when
 * they run (which account, which transfer, how much is left to reverse), so shrinking keeps them valid.
 */
class LedgerModelTest
{
    /** Short windows so that sequences of a few hundred milliseconds see keys, references and transfers expire. */
    static final LedgerConfig CONFIG = new LedgerConfig(64, 1_024, 4_096, 4_096, 4_096, 1_024, 60, 120, 150, 10_000);
    /**
     * Tables far smaller than what the windows hold (keys, references and transfers of 32 each; key retention and reversal
     * window ten times longer): memory lets keys and transfers go for room all the time, and the cold index answers for
     * them. References are few, so a short window lets them go by time instead (a reference stays unique for good).
     */
    static final LedgerConfig EVICTING = new LedgerConfig(64, 1_024, 32, 32, 32, 1_024, 600, 60, 1_500, 10_000);

    private static final long OTHER_TENANT_MISSING_ACCOUNT = 999_999;
    /** Accounts the preamble makes (ids 1 to 9): funding, hot and ordinary ones the rest of a run relies on. */
    private static final long PREAMBLE_ACCOUNTS = 9;

    enum Kind
    {
        CREATE_ACCOUNT, TRANSFER, REVERSE, HOLD, CAPTURE, VOID, MARK_UNKNOWN, TICK, RESEND, REUSE, BATCH,
        /** Freezes an account's debits, or (b even) its debits and credits. */
        FREEZE,
        /** Lifts a freeze, mostly of an account that is frozen. */
        UNFREEZE,
        /** Closes an account, mostly one whose totals are zero. */
        CLOSE,
        /** A transfer that brings an account's posted total to zero, so that a close may follow. */
        DRAIN
    }

    /** One generated step; {@code a..d} are resolved against the model when the step runs. */
    record Action(Kind kind, int a, int b, int c, int d, boolean atomic, List<Action> operations)
    {
        @Override
        public String toString()
        {
            return kind == Kind.BATCH ? (atomic ? "ATOMIC" : "BATCH") + operations : kind + "(" + a + "," + b + "," + c + "," + d + ")";
        }
    }

    @Property(tries = 1000, edgeCases = EdgeCasesMode.NONE)
    void shouldAgreeWithReferenceModelOnRandomCommandSequences(@ForAll("sequences") final List<Action> actions)
    {
        runAndCollectFeatures(new Run(CONFIG), actions);
        Statistics.label("features").coverage(coverage ->
        {
            // The generator must keep producing what the test is about, or the property proves little.
            for (final String feature : List.of("REPLAYED", "KEY_REUSED", "ATOMIC_ROLLED_BACK", "NON_ATOMIC_BATCH",
                "LINKED_OPERATION_FAILED", "INSUFFICIENT_FUNDS", "DUPLICATE_REFERENCE", "HOLD_EXPIRED", "KEY_EXPIRED",
                "OK_CAPTURE_HOLD", "OK_VOID_HOLD", "OK_MARK_HOLD_UNKNOWN", "OK_REVERSE_TRANSFER", "HOLD_NOT_ACTIVE",
                "CAPTURE_EXCEEDS_HOLD", "REVERSAL_EXCEEDS_REMAINING", "TRANSFER_NOT_FOUND", "ACCOUNT_NOT_FOUND",
                "CURRENCY_MISMATCH", "INVALID_COMMAND", "HOT_ACCOUNT_SPLIT_DEBIT", "ACCOUNT_FROZEN", "ACCOUNT_CLOSED",
                "ACCOUNT_NOT_EMPTY", "OK_FREEZE_ACCOUNT", "OK_FREEZE_ACCOUNT_ALL", "OK_UNFREEZE_ACCOUNT", "OK_CLOSE_ACCOUNT",
                "CLOSED_AFTER_MOVING_MONEY", "FROZEN_CREDIT_REFUSED"))
            {
                coverage.check(feature).count(count -> count >= 50);
            }
        });
    }

    /**
     * The same sequences with tables too small for their windows: memory lets the oldest items go once the cold index
     * holds them, and a retry of an evicted key, a reference an evicted transfer holds and a reversal of an evicted
     * transfer are answered from what the journal stage looked up there, as the model (which forgets nothing inside a
     * window) says they must be.
     */
    @Property(tries = 300, edgeCases = EdgeCasesMode.NONE)
    void shouldAgreeWithReferenceModelWhileMemoryLetsItemsGoToTheColdIndex(@ForAll("sequences") final List<Action> actions)
    {
        runAndCollectFeatures(new Run(EVICTING), actions);
        Statistics.label("features").coverage(coverage ->
        {
            for (final String feature : List.of("EVICTED", "COLD_KEY_REPLAYED", "COLD_REFERENCE_DUPLICATE", "COLD_REVERSAL",
                "REPLAYED", "DUPLICATE_REFERENCE", "OK_REVERSE_TRANSFER", "ATOMIC_ROLLED_BACK"))
            {
                coverage.check(feature).count(count -> count >= 20);
            }
        });
    }

    /** Runs the actions against the ledger and the model (a failure shows the last commands), then labels its features. */
    private static void runAndCollectFeatures(final Run run, final List<Action> actions)
    {
        try
        {
            run.preamble();
            for (final Action action : actions)
            {
                run.execute(action);
            }
        }
        catch (final AssertionError | RuntimeException e)
        {
            throw new AssertionError(e.getMessage() + "\nlast commands:\n" + run.trace(), e);
        }
        for (final String feature : run.features)
        {
            Statistics.label("features").collect(feature);
        }
    }

    @Provide
    Arbitrary<List<Action>> sequences()
    {
        final Arbitrary<Integer> n = Arbitraries.integers().between(0, 1_000_000);
        final Arbitrary<Kind> singleKinds = Arbitraries.frequency(
            Tuple.of(7, Kind.CREATE_ACCOUNT), Tuple.of(28, Kind.TRANSFER), Tuple.of(8, Kind.REVERSE), Tuple.of(11, Kind.HOLD),
            Tuple.of(7, Kind.CAPTURE), Tuple.of(4, Kind.VOID), Tuple.of(3, Kind.MARK_UNKNOWN), Tuple.of(7, Kind.TICK),
            Tuple.of(10, Kind.RESEND), Tuple.of(5, Kind.REUSE), Tuple.of(3, Kind.FREEZE), Tuple.of(3, Kind.UNFREEZE),
            Tuple.of(3, Kind.CLOSE), Tuple.of(3, Kind.DRAIN));
        final Arbitrary<Kind> operationKinds = singleKinds.filter(k -> k != Kind.TICK);
        final Arbitrary<Action> single = Combinators.combine(singleKinds, n, n, n, n)
            .as((k, a, b, c, d) -> new Action(k, a, b, c, d, false, List.of()));
        final Arbitrary<Action> operation = Combinators.combine(operationKinds, n, n, n, n)
            .as((k, a, b, c, d) -> new Action(k, a, b, c, d, false, List.of()));
        final Arbitrary<Action> batch = Combinators.combine(
                Arbitraries.frequency(Tuple.of(3, true), Tuple.of(1, false)), operation.list().ofMinSize(2).ofMaxSize(6))
            .as((atomic, operations) -> new Action(Kind.BATCH, 0, 0, 0, 0, atomic, operations));
        return Arbitraries.frequencyOf(Tuple.of(12, single), Tuple.of(1, batch)).list().ofMinSize(1).ofMaxSize(300)
            .withSizeDistribution(RandomDistribution.uniform());
    }

    /** One property try: two ledgers, the model, and what has been sent so far. */
    static final class Run
    {
        final Commands commands = new Commands();
        final LedgerConfig config;
        /** Tables smaller than their windows hold: sizes are memory's business, not the model's. */
        final boolean evicting;
        final Ledger ledger;
        final Ledger twin;
        final ReferenceModel model;
        /** What memory let go, and what the journal stage asks before each command; committed behind the ledger. */
        final SimulatedColdIndex cold = new SimulatedColdIndex();
        final List<Command> sent = new ArrayList<>();
        /** Every command applied, ticks included, copied: the journal of the run (snapshot tests replay it). */
        final List<Command> journal = new ArrayList<>();
        final List<Id> transferIds = new ArrayList<>();
        final List<Id> holdIds = new ArrayList<>();
        final List<String> references = new ArrayList<>();
        final Set<String> features = new TreeSet<>();
        /** Accounts whose posted or held was ever other than zero: closing one of them is closing after an emptying. */
        final Set<Long> movedMoney = new java.util.HashSet<>();
        final ArrayDeque<String> trace = new ArrayDeque<>();
        long nextAccountId = 1;
        int nextKey;
        int nextReference;

        Run(final LedgerConfig config)
        {
            this.config = config;
            evicting = config.idempotencyKeysMax() < CONFIG.idempotencyKeysMax();
            ledger = new Ledger(config);
            twin = new Ledger(config);
            model = new ReferenceModel(config);
        }

        /** Funding accounts, a hot account and a few ordinary ones with money, in two tenants. */
        void preamble()
        {
            final List<Action> setup = new ArrayList<>();
            // kinds of account by the rules of createAccount below: a % 20 picks the kind, c the tenant, d the currency
            setup.add(new Action(Kind.CREATE_ACCOUNT, 12, 0, 1, 0, false, List.of()));   // 1 funding USD t1
            setup.add(new Action(Kind.CREATE_ACCOUNT, 12, 0, 1, 7, false, List.of()));   // 2 funding EUR t1
            setup.add(new Action(Kind.CREATE_ACCOUNT, 12, 0, 0, 0, false, List.of()));   // 3 funding USD t2
            setup.add(new Action(Kind.CREATE_ACCOUNT, 8, 14, 1, 0, false, List.of()));   // 4 hot USD t1, 16 subs
            setup.add(new Action(Kind.CREATE_ACCOUNT, 0, 0, 1, 0, false, List.of()));    // 5 ordinary USD t1
            setup.add(new Action(Kind.CREATE_ACCOUNT, 0, 0, 1, 0, false, List.of()));    // 6 ordinary USD t1
            setup.add(new Action(Kind.CREATE_ACCOUNT, 0, 0, 1, 7, false, List.of()));    // 7 ordinary EUR t1
            setup.add(new Action(Kind.CREATE_ACCOUNT, 0, 0, 0, 0, false, List.of()));    // 8 ordinary USD t2
            setup.add(new Action(Kind.CREATE_ACCOUNT, 14, 0, 1, 0, false, List.of()));   // 9 hot funding USD t1, 4 subs
            for (final Action action : setup)
            {
                execute(action);
            }
            for (int i = 0; i < 8; i++)
            {
                // several credits, so the hot account's money sits in several sub-balances
                fund(1, 4, 700);
            }
            fund(1, 5, 2_000);
            fund(1, 6, 1_000);
            fund(2, 7, 1_000);
            fund(3, 8, 1_000);
        }

        private void fund(final long debit, final long credit, final long amount)
        {
            final ReferenceModel.Account account = model.accounts().get(debit);
            commands.tenant(account.tenant);
            final Command c = commands.transfer(nextKey(), debit, credit, amount, account.currency, null);
            runUnit(c);
        }

        void execute(final Action action)
        {
            if (action.kind() == Kind.BATCH)
            {
                runBatch(action);
                return;
            }
            runUnit(build(action));
        }

        /** Builds each operation only when the previous one has run, so that it sees the batch's own changes. */
        private void runBatch(final Action action)
        {
            features.add(action.atomic() ? "ATOMIC_BATCH" : "NON_ATOMIC_BATCH");
            final List<Command> built = new ArrayList<>();
            final int size = action.operations().size();
            final Command first = build(action.operations().get(0));
            cold.prepare(first);
            final UnitCheck unit = beginUnit(first, size, action.atomic());
            for (int i = 0; i < size; i++)
            {
                final Command c = i == 0 ? first : build(action.operations().get(i));
                if (i > 0)
                {
                    cold.prepare(c);
                }
                c.batchSize = size;
                c.batchPosition = i;
                c.atomic = action.atomic();
                built.add(c);
                applyOne(unit, c, i == size - 1);
            }
            endUnit(unit, built);
        }

        private void runUnit(final Command c)
        {
            cold.prepare(c);   // as the journal stage does, before the command is journaled
            final UnitCheck unit = beginUnit(c, 1, false);
            applyOne(unit, c, true);
            endUnit(unit, List.of(c));
        }

        // ---------------------------------------------------------------------------------------------
        // Running a unit against both ledgers and the model.
        // ---------------------------------------------------------------------------------------------

        /**
         * What one unit expects. Effects are per command, except that an atomic batch's effects are
         * those of the whole batch, known once its last operation is applied.
         */
        private static final class UnitCheck
        {
            final boolean atomic;
            final List<Outcome> outcomes = new ArrayList<>();
            final List<Boolean> keyPresentBefore = new ArrayList<>();
            Map<Long, Long> postedBefore;
            Map<String, List<Long>> subsBefore;
            boolean rolledBack;

            UnitCheck(final boolean atomic)
            {
                this.atomic = atomic;
            }
        }

        private UnitCheck beginUnit(final Command first, final int size, final boolean atomic)
        {
            final UnitCheck unit = new UnitCheck(atomic && size > 1);
            unit.postedBefore = postedByAccount();
            model.beginUnit(first, size, atomic);
            return unit;
        }

        private Map<Long, Long> postedByAccount()
        {
            final Map<Long, Long> posted = new HashMap<>();
            final Accounts accounts = ledger.accounts();
            for (int slot = 0; slot < accounts.count(); slot++)
            {
                posted.put(accounts.id(slot), accounts.postedTotal(slot));
            }
            return posted;
        }

        private void applyOne(final UnitCheck unit, final Command c, final boolean last)
        {
            final boolean keyed = c.type != CommandType.TICK;
            if (!unit.atomic)
            {
                unit.postedBefore = postedByAccount();
                unit.subsBefore = subBalances();
            }
            unit.keyPresentBefore.add(keyed && keyInsideWindow(c));
            if (keyed)
            {
                sent.add(c);
            }
            journal.add(new Command().copyFrom(c));
            noteColdAnswers(c);
            final long[] hotPostedBefore = hotDebitPosted(c);
            final long evictedBefore = evictions();
            final Result first = ledger.apply(c);
            final Result second = twin.apply(c);
            if (evictions() > evictedBefore)
            {
                features.add("EVICTED");
            }
            if (ledger.isUnitComplete())
            {
                // Filing reads the ledger and changes nothing: the twin, which files nothing, keeps the same hash.
                ledger.fileCold(cold);
                cold.endUnit(c.journalIndex);
                cold.commitThrough(c.journalIndex - coldLag(c.journalIndex));
            }
            if (trace.size() == 40)
            {
                trace.removeFirst();
            }
            trace.addLast(describe(c) + " -> " + first);
            assertEquals(first.code, second.code, "two ledgers disagree on " + c.journalIndex);
            final Outcome outcome = keyed ? model.apply(c) : model.tick(c);
            unit.outcomes.add(outcome);
            if (!keyed)
            {
                assertEquals(outcome.extra, first.extra, "holds expired by the tick at " + c.journalIndex);
                features.add(outcome.extra > 0 ? "HOLD_EXPIRED" : "TICK");
            }
            if (c.batchPosition == 0 && model.lastExpiredKeys() > 0)
            {
                features.add("KEY_EXPIRED");
            }
            if (last)
            {
                unit.rolledBack = model.endUnit();
            }
            if (hotPostedBefore != null && first.code == ResultCode.OK && !first.replayed)
            {
                final long[] after = hotDebitPosted(c);
                int lowered = 0;
                for (int i = 0; i < after.length; i++)
                {
                    lowered += after[i] < hotPostedBefore[i] ? 1 : 0;
                }
                if (lowered > 1)
                {
                    features.add("HOT_ACCOUNT_SPLIT_DEBIT");
                }
            }
            checkState(c);
            if (!unit.atomic)
            {
                final boolean applied = outcome.appliedFinally();
                checkEffects(unit.postedBefore, applied ? outcome.postings : 0,
                    applied || !keyed ? outcome.events : 0);
                checkBalanceRows(unit.subsBefore);
            }
        }

        /**
         * How far the cold index's writer is behind, in journal indexes, after the unit ending at {@code index}: 0 to 15,
         * varying from unit to unit, so that commands see the watermark anywhere from just behind to well behind them.
         * With a batch unit of up to 6 operations filed late, at most 26 items are unfiled: the evicting tables (32)
         * always find one to let go.
         */
        private static long coldLag(final long index)
        {
            return (index * 0x9E3779B97F4A7C15L) >>> 60;
        }

        private long evictions()
        {
            return ledger.idempotencyKeys().evicted() + ledger.references().evicted() + ledger.transfers().evicted();
        }

        /** Notes when the cold index, not memory, will answer for the command. */
        private void noteColdAnswers(final Command c)
        {
            if (c.coldKeyFound && ledger.idempotencyKeys().find(c.keyHi, c.keyLo) < 0 &&
                c.timestampNs - dev.tally.ledger.idempotency.IdempotencyTable.coldStoredAtNs(c.coldKey) <
                    config.keyRetentionMs() * 1_000_000L)
            {
                features.add("COLD_KEY_REPLAYED");
            }
            if (c.referenceTaken && ledger.references().find(c.referenceHi, c.referenceLo) < 0)
            {
                features.add("COLD_REFERENCE_DUPLICATE");
            }
            if (c.coldTransferFound && ledger.transfers().find(Uuid7.journalIndex(c.targetIdHi, c.targetIdLo)) < 0)
            {
                features.add("COLD_REVERSAL");
            }
        }

        /**
         * @return true when the ledger holds the command's key and the key is still inside its retention
         * window at the command's time (an older one may be forgotten as the command starts, see
         * {@link LedgerLimits#EXPIRIES_PER_OPERATION}).
         */
        private boolean keyInsideWindow(final Command c)
        {
            final int position = ledger.idempotencyKeys().find(c.keyHi, c.keyLo);
            if (position < 0)
            {
                return false;
            }
            final Result stored = new Result();
            ledger.idempotencyKeys().read(position, stored);
            return stored.originTimestampNs > c.timestampNs - config.keyRetentionMs() * 1_000_000L;
        }

        String trace()
        {
            return String.join("\n", trace);
        }

        private static String describe(final Command c)
        {
            return "#" + c.journalIndex + " " + c.type + (c.batchSize > 1 ? " [" + c.batchPosition + "/" + c.batchSize +
                (c.atomic ? " atomic]" : "]") : "") + " t" + c.tenantId + " key=" + String.format("%016x", c.keyHi).substring(0, 4) +
                " acc=" + c.accountId + " dr=" + c.debitAccountId + " cr=" + c.creditAccountId + " amt=" + c.amountMinor +
                " target=" + Uuid7.journalIndex(c.targetIdHi, c.targetIdLo) + " subs=" + c.subBalances +
                (c.hasReference() ? " ref" : "");
        }

        /** @return the account a transfer or capture credits, or -1 (a reversal's: the original's debit account, not known here). */
        private static long creditedAccount(final Command c)
        {
            return c.type == CommandType.TRANSFER || c.type == CommandType.CAPTURE_HOLD ? c.creditAccountId : -1;
        }

        /** @return posted of each sub-balance of a constrained hot account a transfer debits, or null. */
        private long[] hotDebitPosted(final Command c)
        {
            if (c.type != CommandType.TRANSFER)
            {
                return null;
            }
            final Accounts accounts = ledger.accounts();
            final int slot = accounts.slotOf(c.debitAccountId, c.tenantId);
            if (slot < 0 || accounts.subCount(slot) == 1 || !accounts.isConstrained(slot))
            {
                return null;
            }
            final long[] posted = new long[accounts.subCount(slot)];
            for (int i = 0; i < posted.length; i++)
            {
                posted[i] = accounts.posted(accounts.subSlot(slot, i));
            }
            return posted;
        }

        private void endUnit(final UnitCheck unit, final List<Command> built)
        {
            final int size = built.size();
            final Result[] results = new Result[size];
            for (int i = 0; i < size; i++)
            {
                results[i] = new Result().copyFrom(ledger.result(i));
                assertSameBody(results[i], twin.result(i));
                assertEquals(results[i].replayed, twin.result(i).replayed);
            }
            // A key stored by this unit: its first result is the one the unit finally reported.
            for (int i = 0; i < size; i++)
            {
                final Outcome outcome = unit.outcomes.get(i);
                if (!outcome.replayed && outcome.key != null)
                {
                    outcome.key.first = results[i];
                }
            }
            int postings = 0;
            int events = 0;
            for (int i = 0; i < size; i++)
            {
                final Command c = built.get(i);
                final Outcome outcome = unit.outcomes.get(i);
                final Result r = results[i];
                final String where = "command " + c.journalIndex + " " + c.type + " (batch " + (i + 1) + "/" + size +
                    (c.atomic ? " atomic" : "") + "): " + r;
                assertEquals(outcome.finalCode(), r.code, where);
                assertEquals(outcome.replayed, r.replayed, where);
                if (outcome.replayed)
                {
                    assertReplayOf(outcome.key.first, r);
                    features.add("REPLAYED");
                }
                if (unit.keyPresentBefore.get(i))
                {
                    // A key stored before the command and inside its window is never applied again, whatever
                    // the model thinks.
                    assertTrue(r.replayed || r.code == ResultCode.KEY_REUSED, "stored key applied again: " + where);
                }
                if (r.code == ResultCode.DUPLICATE_REFERENCE && !r.replayed)
                {
                    assertEquals(outcome.extra, r.extra, "transfer named by a duplicate reference: " + where);
                }
                if ((r.code == ResultCode.ACCOUNT_FROZEN || r.code == ResultCode.ACCOUNT_CLOSED || r.code == ResultCode.ACCOUNT_NOT_EMPTY) &&
                    !r.replayed)
                {
                    assertEquals(outcome.extra, r.extra, "account named by a lifecycle rejection: " + where);
                    if (r.code == ResultCode.ACCOUNT_FROZEN && r.extra == creditedAccount(c))
                    {
                        features.add("FROZEN_CREDIT_REFUSED");
                    }
                }
                if (c.type == CommandType.CLOSE_ACCOUNT && outcome.appliedFinally() && movedMoney.contains(c.accountId))
                {
                    features.add("CLOSED_AFTER_MOVING_MONEY");
                }
                if ((r.code == ResultCode.ACCOUNT_NOT_FOUND || r.code == ResultCode.CURRENCY_MISMATCH) && c.type == CommandType.TRANSFER &&
                    !r.replayed)
                {
                    assertEquals(outcome.extra, r.extra, "account named by a transfer's rejection: " + where);
                    features.add("NAMED_" + r.code);
                }
                assertFalse(r.code == ResultCode.CAPACITY_EXCEEDED, "tables are sized never to fill: " + where);
                if (outcome.appliedFinally())
                {
                    postings += outcome.postings;
                    events += outcome.events;
                    features.add("OK_" + c.type);
                }
                else if (c.type == CommandType.TICK)
                {
                    events += outcome.events;
                }
                else
                {
                    features.add(r.code.name());
                }
                if (!outcome.replayed && outcome.code == ResultCode.OK)
                {
                    if (c.type == CommandType.TRANSFER || c.type == CommandType.REVERSE_TRANSFER || c.type == CommandType.CAPTURE_HOLD)
                    {
                        transferIds.add(ReferenceModel.transferId(c));
                    }
                    else if (c.type == CommandType.CREATE_HOLD)
                    {
                        holdIds.add(ReferenceModel.holdId(c));
                    }
                }
            }
            if (unit.rolledBack)
            {
                features.add("ATOMIC_ROLLED_BACK");
            }
            if (unit.atomic)
            {
                checkEffects(unit.postedBefore, postings, events);
            }
        }

        // ---------------------------------------------------------------------------------------------
        // Checks.
        // ---------------------------------------------------------------------------------------------

        private void checkState(final Command c)
        {
            final String where = "after command " + c.journalIndex + " " + c.type;
            final Accounts accounts = ledger.accounts();
            assertEquals(model.accounts().size(), accounts.count(), where);
            for (final Map.Entry<Long, ReferenceModel.Account> e : model.accounts().entrySet())
            {
                final int slot = accounts.slotOf(e.getKey(), e.getValue().tenant);
                assertTrue(slot >= 0, where + ": account " + e.getKey() + " missing");
                assertEquals(e.getValue().posted, accounts.postedTotal(slot), where + ": posted of " + e.getKey());
                assertEquals(e.getValue().held, accounts.heldTotal(slot), where + ": held of " + e.getKey());
                assertEquals(e.getValue().status(), accounts.status(slot), where + ": status of " + e.getKey());
                if (e.getValue().posted != 0 || e.getValue().held != 0)
                {
                    movedMoney.add(e.getKey());
                }
            }
            assertEquals(model.holdCount(), ledger.holds().size(), where + ": live holds");
            assertEquals(model.unknownHoldCount(), ledger.holds().unknownCount(), where + ": unknown holds");
            if (evicting)
            {
                assertTrue(ledger.idempotencyKeys().size() <= config.idempotencyKeysMax(), where + ": stored keys");
                assertTrue(ledger.references().size() <= config.referencesMax(), where + ": references");
                assertTrue(ledger.transfers().size() <= config.transfersMax(), where + ": transfers");
            }
            else
            {
                assertEquals(model.keyCount(), ledger.idempotencyKeys().size(), where + ": stored keys");
                assertEquals(model.referenceCount(), ledger.references().size(), where + ": references");
                assertEquals(model.transferCount(), ledger.transfers().size(), where + ": transfers");
            }
            checkInvariants(ledger, where);
            assertEquals(ledger.stateHash(), twin.stateHash(), where + ": state hashes differ");
        }

        /** Invariants that hold whatever the model says. */
        private static void checkInvariants(final Ledger ledger, final String where)
        {
            final Accounts accounts = ledger.accounts();
            final Map<Integer, Long> postedByCurrency = new HashMap<>();
            for (int slot = 0; slot < accounts.count(); slot++)
            {
                postedByCurrency.merge(accounts.currency(slot), accounts.postedTotal(slot), Long::sum);
                final long floor = accounts.subCount(slot) == 1 ? -accounts.overdraftLimit(slot) : 0;
                for (int i = 0; i < accounts.subCount(slot); i++)
                {
                    final int sub = accounts.subSlot(slot, i);
                    assertTrue(accounts.held(sub) >= 0, where + ": negative held on account " + accounts.id(slot));
                    if (accounts.isConstrained(slot))
                    {
                        assertTrue(accounts.posted(sub) - accounts.held(sub) >= floor,
                            where + ": sub-balance " + i + " of account " + accounts.id(slot) + " below its floor");
                    }
                }
            }
            // Every account starts at 0 and every posting has two legs, so posted sums to 0 per currency.
            postedByCurrency.forEach((currency, sum) -> assertEquals(0L, sum, where + ": money not conserved in " + currency));
        }

        /** @return (posted, held) of every sub-balance, by "account id/index". */
        private Map<String, List<Long>> subBalances()
        {
            final Map<String, List<Long>> subs = new HashMap<>();
            final Accounts accounts = ledger.accounts();
            for (int slot = 0; slot < accounts.count(); slot++)
            {
                for (int i = 0; i < accounts.subCount(slot); i++)
                {
                    final int sub = accounts.subSlot(slot, i);
                    subs.put(accounts.id(slot) + "/" + i, List.of(accounts.posted(sub), accounts.held(sub)));
                }
            }
            return subs;
        }

        /**
         * The command's balance rows: one per sub-balance at most, each with the sub-balance's values after
         * the command, and one for every sub-balance whose values changed.
         */
        private void checkBalanceRows(final Map<String, List<Long>> subsBefore)
        {
            final EffectLog effects = ledger.effects();
            final Map<String, List<Long>> after = subBalances();
            final Set<String> rows = new TreeSet<>();
            for (int i = 0; i < effects.balanceCount(); i++)
            {
                final String sub = effects.balanceAccount(i) + "/" + effects.balanceSub(i);
                assertTrue(rows.add(sub), "two balance rows for sub-balance " + sub);
                assertEquals(after.get(sub), List.of(effects.balancePosted(i), effects.balanceHeld(i)), "balance row of " + sub);
            }
            after.forEach((sub, values) ->
            {
                if (!values.equals(subsBefore.get(sub)))
                {
                    assertTrue(rows.contains(sub), "sub-balance " + sub + " changed without a balance row");
                }
            });
        }

        /** The effects' entries sum to zero per currency, match the postings, and explain every posted change. */
        private void checkEffects(final Map<Long, Long> postedBefore, final int postings, final int events)
        {
            final EffectLog effects = ledger.effects();
            final Map<Integer, Long> byCurrency = new HashMap<>();
            final Map<Long, Long> byAccount = new HashMap<>();
            for (int i = 0; i < effects.entryCount(); i++)
            {
                byCurrency.merge(effects.entryCurrency(i), effects.entryAmount(i), Long::sum);
                byAccount.merge(effects.entryAccount(i), effects.entryAmount(i), Long::sum);
            }
            byCurrency.forEach((currency, sum) -> assertEquals(0L, sum, "entries of the unit do not balance"));
            assertEquals(2 * postings, effects.entryCount(), "entries: two legs per posting");
            assertEquals(events, effects.eventCount(), "events of the unit");
            final Accounts accounts = ledger.accounts();
            for (int slot = 0; slot < accounts.count(); slot++)
            {
                final long id = accounts.id(slot);
                final long change = accounts.postedTotal(slot) - postedBefore.getOrDefault(id, 0L);
                assertEquals(change, byAccount.getOrDefault(id, 0L), "entries of account " + id + " vs its posted change");
            }
        }

        // ---------------------------------------------------------------------------------------------
        // Turning actions into commands, against the model's current state.
        // ---------------------------------------------------------------------------------------------

        private String nextKey()
        {
            return "key-" + nextKey++;
        }

        private Command build(final Action x)
        {
            switch (x.kind())
            {
                case CREATE_ACCOUNT: return createAccount(x);
                case TRANSFER: return transfer(x);
                case REVERSE: return reverse(x);
                case HOLD: return hold(x);
                case CAPTURE: return capture(x);
                case VOID: return holdCommand(x, CommandType.VOID_HOLD);
                case MARK_UNKNOWN: return holdCommand(x, CommandType.MARK_HOLD_UNKNOWN);
                case TICK: return commands.tick(1 + x.a() % 80);
                case FREEZE: return lifecycle(x, CommandType.FREEZE_ACCOUNT);
                case UNFREEZE: return lifecycle(x, CommandType.UNFREEZE_ACCOUNT);
                case CLOSE: return lifecycle(x, CommandType.CLOSE_ACCOUNT);
                case DRAIN: return drain(x);
                case RESEND: return commands.resend(pickSent(x));
                case REUSE:
                    final Command original = pickSent(x);
                    return commands.reuse(original, original.amountMinor + 1 + x.b() % 5);
                default: throw new IllegalArgumentException(x.toString());
            }
        }

        /** A command sent before: half the time a recent one (often of the same batch), else any. */
        private Command pickSent(final Action x)
        {
            final int window = Math.min(sent.size(), 6);
            return x.a() % 2 == 0 ? sent.get(sent.size() - 1 - (x.a() / 2) % window) : sent.get(x.a() % sent.size());
        }

        private List<Long> accountIds()
        {
            return new ArrayList<>(model.accounts().keySet());
        }

        /** @return the accounts other than {@code accountId} of its tenant and currency: who it may move money with. */
        private List<Long> peers(final long accountId, final int currency, final long tenant)
        {
            final List<Long> peers = new ArrayList<>();
            for (final Map.Entry<Long, ReferenceModel.Account> e : model.accounts().entrySet())
            {
                if (e.getKey() != accountId && e.getValue().currency == currency && e.getValue().tenant == tenant)
                {
                    peers.add(e.getKey());
                }
            }
            return peers;
        }

        private long tenantOf(final long accountId, final int choice)
        {
            final ReferenceModel.Account a = model.accounts().get(accountId);
            final long tenant = a == null ? 1 : a.tenant;
            // Now and then another tenant tries to use the account: it must not see it.
            return choice % 13 == 0 ? 3 - tenant : tenant;
        }

        private Command createAccount(final Action x)
        {
            final int variant = x.a() % 20;
            long tenant = x.c() % 5 == 0 ? 2 : 1;
            final int currency = x.d() % 10 < 7 ? Commands.USD : x.d() % 10 < 9 ? Commands.EUR : Commands.JPY;
            final List<Long> ids = accountIds();
            long id = nextAccountId++;
            int subs = 1;
            boolean constrained = true;
            long overdraft = 0;
            int accountCurrency = currency;
            if (variant >= 8 && variant <= 11)
            {
                subs = 2 + x.b() % 15;
            }
            else if (variant == 12)
            {
                constrained = false;
            }
            else if (variant == 14)
            {
                constrained = false;
                subs = 4;
            }
            else if (variant == 13 || variant == 15)
            {
                overdraft = 50 + x.b() % 500;
            }
            else if (variant == 16 && !ids.isEmpty())
            {
                // An id the tenant already uses. (Another tenant may use the same id: that is a different
                // account; the model keys accounts by id alone, so the generator keeps ids tenant-unique.)
                id = ids.get(x.b() % ids.size());
                tenant = model.accounts().get(id).tenant;
            }
            else if (variant == 17)
            {
                subs = x.b() % 2 == 0 ? 0 : LedgerLimits.SUB_BALANCES_MAX + 1;
            }
            else if (variant == 18)
            {
                accountCurrency = CurrencyCode.pack("XXX");
            }
            else if (variant == 19)
            {
                constrained = false;
                overdraft = 100;
            }
            commands.tenant(tenant);
            return commands.createAccount(nextKey(), id, accountCurrency, subs, constrained, overdraft);
        }

        private Command transfer(final Action x)
        {
            final List<Long> ids = accountIds();
            final long debit = ids.get(x.a() % ids.size());
            final ReferenceModel.Account debitAccount = model.accounts().get(debit);
            final List<Long> peers = peers(debit, debitAccount.currency, debitAccount.tenant);
            final long credit;
            if (x.b() % 29 == 0)
            {
                credit = OTHER_TENANT_MISSING_ACCOUNT;
            }
            else if (x.b() % 8 != 0 && !peers.isEmpty())
            {
                credit = peers.get((x.b() / 8) % peers.size());
            }
            else
            {
                credit = ids.get(x.b() % ids.size());
            }
            final long amount = x.c() % 16 == 0 ? (x.c() % 32 == 0 ? 0 : -5) : 1 + x.c() % 400;
            final int currency = x.d() % 17 == 0 ? (debitAccount.currency == Commands.USD ? Commands.EUR : Commands.USD) :
                debitAccount.currency;
            String reference = null;
            final int referenceChoice = x.d() % 10;
            if (referenceChoice == 7 || referenceChoice == 8)
            {
                reference = "ref-" + nextReference++;
                references.add(reference);
            }
            else if (referenceChoice == 9 && !references.isEmpty())
            {
                // mostly a recent one, still inside the reference retention window
                final int window = Math.min(references.size(), 4);
                reference = x.d() % 3 == 0 ? references.get((x.d() / 10) % references.size()) :
                    references.get(references.size() - 1 - (x.d() / 10) % window);
            }
            commands.tenant(tenantOf(debit, x.d()));
            return commands.transfer(nextKey(), debit, credit, amount, currency, reference);
        }

        private Command reverse(final Action x)
        {
            final Id target;
            if (transferIds.isEmpty() || x.a() % 11 == 0)
            {
                // an id that names nothing: no command ever ran at that index
                target = new Id(Uuid7.hi(commands.nowNs(), Uuid7.KIND_TRANSFER), Uuid7.lo(LedgerLimits.JOURNAL_INDEX_MAX - 1, 0));
            }
            else if (x.a() % 11 == 1 && !holdIds.isEmpty())
            {
                target = holdIds.get(x.a() % holdIds.size());
            }
            else
            {
                target = transferIds.get(x.a() % transferIds.size());
            }
            final ReferenceModel.Transfer original = model.transfer(target);
            final long remaining = original == null ? 100 : original.amount - original.reversed;
            final int mode = x.b() % 10;
            final long amount = mode < 4 ? 0 : mode < 8 ? 1 + x.c() % Math.max(1, remaining) : mode == 8 ? remaining + 1 + x.c() % 5 : -1;
            commands.tenant(original == null ? 1 : x.d() % 13 == 0 ? 3 - original.tenant : original.tenant);
            return statedCurrency(commands.reverse(nextKey(), target.hi(), target.lo(), amount),
                original == null ? Commands.USD : original.currency, x);
        }

        private Command hold(final Action x)
        {
            final List<Long> ids = accountIds();
            final long account = ids.get(x.a() % ids.size());
            final ReferenceModel.Account a = model.accounts().get(account);
            final long amount = x.b() % 25 == 0 ? 0 : 1 + x.b() % 300;
            final long timeoutMs = x.c() % 40 == 0 ? 0 : 1 + x.c() % 100;
            final int currency = x.d() % 17 == 0 ? (a.currency == Commands.USD ? Commands.EUR : Commands.USD) : a.currency;
            commands.tenant(tenantOf(account, x.d()));
            return commands.hold(nextKey(), account, amount, currency, timeoutMs);
        }

        private Id pickHold(final Action x)
        {
            if (holdIds.isEmpty() || x.a() % 13 == 0)
            {
                return new Id(Uuid7.hi(commands.nowNs(), Uuid7.KIND_HOLD), Uuid7.lo(LedgerLimits.JOURNAL_INDEX_MAX - 2, 0));
            }
            // Mostly recent holds: old ones are mostly gone, and those are tried often enough.
            final int window = Math.min(holdIds.size(), 12);
            return x.a() % 4 == 0 ? holdIds.get(x.a() % holdIds.size()) : holdIds.get(holdIds.size() - 1 - x.a() % window);
        }

        private long holdTenant(final ReferenceModel.Hold hold, final Action x)
        {
            return hold == null ? 1 : x.d() % 13 == 0 ? 3 - hold.tenant : hold.tenant;
        }

        private Command capture(final Action x)
        {
            final Id target = pickHold(x);
            final ReferenceModel.Hold hold = model.hold(target);
            final List<Long> ids = accountIds();
            long credit = ids.get(x.b() % ids.size());
            if (hold != null && x.b() % 8 != 0)
            {
                final List<Long> peers = peers(hold.account, hold.currency, hold.tenant);
                if (!peers.isEmpty())
                {
                    credit = peers.get((x.b() / 8) % peers.size());
                }
            }
            final long held = hold == null ? 100 : hold.amount;
            final int mode = x.c() % 10;
            final long amount = mode < 4 ? 0 : mode < 8 ? 1 + x.d() % held : mode == 8 ? held + 1 : -1;
            commands.tenant(holdTenant(hold, x));
            return statedCurrency(commands.capture(nextKey(), target.hi(), target.lo(), credit, amount),
                hold == null ? Commands.USD : hold.currency, x);
        }

        /**
         * How a reversal or capture states its amount: mostly in the target's currency; now and then in
         * USD, right or wrong; now and then with no currency, so the amount is read as thousandths of a
         * major unit (scaled up here so that it usually converts exactly, sometimes not).
         */
        private static Command statedCurrency(final Command c, final int targetCurrency, final Action x)
        {
            if (c.amountMinor == 0 || x.d() % 7 == 0)
            {
                return Commands.inCurrency(c, c.amountMinor == 0 ? 0 : Commands.USD);
            }
            if (x.d() % 7 == 1)
            {
                final int digits = dev.tally.ledger.currency.CurrencyCode.minorDigits(targetCurrency);
                final long scale = x.b() % 3 == 0 ? 1 : digits == 0 ? 1_000 : digits == 2 ? 10 : 1;
                c.amountMinor = c.amountMinor < 0 ? c.amountMinor : c.amountMinor * scale;
                return Commands.inCurrency(c, 0);
            }
            return Commands.inCurrency(c, targetCurrency);
        }

        /**
         * A freeze (of everything when {@code b} is even), unfreeze or close. Unfreeze mostly names a frozen account and
         * close one whose totals are zero, so that both do something; now and then another tenant or an account id
         * nobody has.
         */
        private Command lifecycle(final Action x, final CommandType type)
        {
            final List<Long> ids = accountIds();
            final List<Long> preferred = new ArrayList<>();
            for (final long id : ids)
            {
                final ReferenceModel.Account a = model.accounts().get(id);
                if (type == CommandType.UNFREEZE_ACCOUNT ? a.debitsFrozen : type == CommandType.CLOSE_ACCOUNT && a.posted == 0 && a.held == 0)
                {
                    preferred.add(id);
                }
            }
            final long account;
            if (x.c() % 23 == 0)
            {
                account = OTHER_TENANT_MISSING_ACCOUNT;
            }
            else if (!preferred.isEmpty() && x.c() % 4 != 0)
            {
                account = preferred.get(x.a() % preferred.size());
            }
            else
            {
                account = ids.get(x.a() % ids.size());
            }
            commands.tenant(tenantOf(account, x.d()));
            final String key = nextKey();
            switch (type)
            {
                case FREEZE_ACCOUNT: return commands.freeze(key, account, x.b() % 2 == 0);
                case UNFREEZE_ACCOUNT: return commands.unfreeze(key, account);
                default: return commands.close(key, account);
            }
        }

        /**
         * A transfer that brings an account's posted total to zero: its positive total out to a peer, or a negative
         * total made up from a peer (the same tenant and currency). Mostly an account made during the run, so that the
         * preamble's funding and hot accounts stay open for the rest of it; a plain transfer when there is no peer.
         */
        private Command drain(final Action x)
        {
            final List<Long> ids = accountIds();
            final List<Long> made = ids.stream().filter(id -> id > PREAMBLE_ACCOUNTS).toList();
            final long account = !made.isEmpty() && x.a() % 4 != 0 ? made.get(x.a() % made.size()) : ids.get(x.a() % ids.size());
            final ReferenceModel.Account a = model.accounts().get(account);
            final List<Long> peers = peers(account, a.currency, a.tenant);
            if (peers.isEmpty() || a.posted == 0)
            {
                return transfer(x);
            }
            final long peer = peers.get(x.b() % peers.size());
            commands.tenant(a.tenant);
            return a.posted > 0 ? commands.transfer(nextKey(), account, peer, a.posted, a.currency, null) :
                commands.transfer(nextKey(), peer, account, -a.posted, a.currency, null);
        }

        private Command holdCommand(final Action x, final CommandType type)
        {
            final Id target = pickHold(x);
            commands.tenant(holdTenant(model.hold(target), x));
            return type == CommandType.VOID_HOLD ? commands.voidHold(nextKey(), target.hi(), target.lo()) :
                commands.markUnknown(nextKey(), target.hi(), target.lo());
        }
    }
}
