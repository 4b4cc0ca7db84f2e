package dev.tally.persistence.read;

import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import dev.tally.persistence.LedgerScenario;
import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.writer.EffectRecorder;
import dev.tally.persistence.writer.LedgerWriter;
import dev.tally.persistence.writer.WriterConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The read model's history against the ledger itself. A random history (transfers both ways, a hot account, holds that
 * are captured, voided or left to expire, partial reversals, ticks) is applied to a real ledger, whose every account is
 * recorded after every command (what a replay to that point rebuilds: the same code), and written by the real writer
 * into a real PostgreSQL. Then, for random journal indexes, instants and windows: the account at the point equals the
 * ledger's then, and a statement's opening balance plus its entries is its closing balance, each entry's running
 * balance the one before plus its amount.
 */
class HistoryPropertyTest
{
    private static final long TENANT = 1;
    private static final long[] ACCOUNTS = {1, 2, 3, 4};
    private static final int COMMANDS = 600;

    static PostgresFixture pg;
    static Database db;
    static LedgerReads reads;
    /** posted and held of each account (by position in ACCOUNTS) right after journal index i (index 0: before all). */
    static final List<long[]> AFTER = new ArrayList<>();
    /** journaled time of journal index i, epoch ns. */
    static final List<Long> TIMES = new ArrayList<>();

    @BeforeContainer
    static void writeARandomHistory()
    {
        pg = PostgresFixture.start(HistoryPropertyTest.class);
        db = pg.newDatabase();
        reads = new LedgerReads(db.dataSource());
        AFTER.add(new long[2 * ACCOUNTS.length]);
        TIMES.add(LedgerScenario.START_NS);
        try (LedgerWriter writer = LedgerWriter.create(db, WriterConfig.defaults().withRing(1 << 22, 100_000)))
        {
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.start();
            final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
            record(s, s.createAccount(1, 1, false, 0));
            record(s, s.createAccount(2, 1, true, 0));
            record(s, s.createAccount(3, 4, true, 0));
            record(s, s.createAccount(4, 1, true, 0));
            final Random random = new Random(34);
            final List<Result> transfers = new ArrayList<>();
            final List<Result> holds = new ArrayList<>();
            while (TIMES.size() <= COMMANDS)
            {
                final int what = random.nextInt(10);
                final long a = ACCOUNTS[random.nextInt(ACCOUNTS.length)];
                final long b = ACCOUNTS[random.nextInt(ACCOUNTS.length)];
                final long amount = 1 + random.nextInt(5_000);
                if (what < 5 && a != b)
                {
                    final Result r = s.transfer(a, b, amount, null);
                    if (r.code == ResultCode.OK)
                    {
                        transfers.add(r);
                    }
                    record(s, r);
                }
                else if (what == 5 && !transfers.isEmpty())
                {
                    record(s, s.reverse(transfers.get(random.nextInt(transfers.size())), 1 + random.nextInt(50)));
                }
                else if (what == 6)
                {
                    final Result h = s.hold(a, amount, 2 + random.nextInt(40));
                    if (h.code == ResultCode.OK)
                    {
                        holds.add(h);
                    }
                    record(s, h);
                }
                else if (what == 7 && !holds.isEmpty())
                {
                    final Result h = holds.remove(random.nextInt(holds.size()));
                    record(s, random.nextBoolean() ? s.capture(h, b, 0) : s.voidHold(h));
                }
                else
                {
                    record(s, s.tick(random.nextInt(20)));
                }
            }
            assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(60)));
        }
    }

    /** Records every account after the command just applied (its journal index is the next position). */
    private static void record(final LedgerScenario s, final Result applied)
    {
        assertEquals(TIMES.size(), s.ledger.lastJournalIndex(), "one command per journal index");
        final long[] balances = new long[2 * ACCOUNTS.length];
        final AccountView view = new AccountView();
        for (int i = 0; i < ACCOUNTS.length; i++)
        {
            s.ledger.readAccount(ACCOUNTS[i], TENANT, view);
            balances[2 * i] = view.found ? view.postedTotal() : 0;
            balances[2 * i + 1] = view.found ? view.heldTotal() : 0;
        }
        AFTER.add(balances);
        TIMES.add(s.journal().get(s.journal().size() - 1).timestampNs);
    }

    @AfterContainer
    static void stopPostgres()
    {
        pg.close();
    }

    @Property(tries = 150)
    void shouldAnswerEveryJournalIndexAsTheLedgerStoodThen(
        @ForAll @IntRange(min = 4, max = COMMANDS) final int index, @ForAll @IntRange(min = 0, max = 3) final int account) throws Exception
    {
        final AccountAtRow row = reads.accountAtIndex(TENANT, ACCOUNTS[account], index).orElseThrow();
        assertEquals(AFTER.get(index)[2 * account], row.postedMinor(), "posted of account " + ACCOUNTS[account] + " at " + index);
        assertEquals(AFTER.get(index)[2 * account + 1], row.heldMinor(), "held of account " + ACCOUNTS[account] + " at " + index);
    }

    @Property(tries = 150)
    void shouldAnswerEveryInstantAsTheLedgerStoodAfterItsLastCommand(
        @ForAll @IntRange(min = 4, max = COMMANDS - 1) final int index, @ForAll @LongRange(min = 0, max = 999_999) final long laterNs,
        @ForAll @IntRange(min = 0, max = 3) final int account) throws Exception
    {
        // an instant from index's time up to (not reaching) the next command's: the ledger after index
        final long atNs = Math.min(TIMES.get(index) + laterNs, TIMES.get(index + 1) - 1_000);
        final Instant at = Instant.ofEpochSecond(0, atNs);
        final AccountAtRow row = reads.accountAtInstant(TENANT, ACCOUNTS[account], at).orElseThrow();
        final int last = lastIndexAtOrBefore(atNs);
        assertEquals(AFTER.get(last)[2 * account], row.postedMinor(), "posted of account " + ACCOUNTS[account] + " at " + at);
        assertEquals(AFTER.get(last)[2 * account + 1], row.heldMinor(), "held of account " + ACCOUNTS[account] + " at " + at);
    }

    @Property(tries = 60)
    void shouldOpenPlusEntriesCloseEveryStatement(
        @ForAll @IntRange(min = 4, max = COMMANDS - 1) final int fromIndex, @ForAll @IntRange(min = 0, max = 200) final int length,
        @ForAll @IntRange(min = 0, max = 3) final int account) throws Exception
    {
        final int toIndex = Math.min(COMMANDS - 1, fromIndex + length);
        final Instant from = Instant.ofEpochSecond(0, TIMES.get(fromIndex));
        final Instant to = Instant.ofEpochSecond(0, TIMES.get(toIndex));
        long balance = reads.accountAtInstant(TENANT, ACCOUNTS[account], from).orElseThrow().postedMinor();
        assertEquals(AFTER.get(fromIndex)[2 * account], balance, "opening");
        try (LedgerReads.StatementCursor cursor = reads.statement(TENANT, ACCOUNTS[account], from, to))
        {
            while (true)
            {
                final List<EntryRow> page = cursor.next(7);   // small pages: the keyset boundaries are crossed often
                for (final EntryRow e : page)
                {
                    assertTrue(e.journalIndex() > fromIndex && e.journalIndex() <= toIndex, "inside the window: " + e);
                    balance += e.amountMinor();
                    assertEquals(balance, e.balanceAfterMinor(), "running balance of " + e);
                }
                if (page.size() < 7)
                {
                    break;
                }
            }
        }
        assertEquals(AFTER.get(toIndex)[2 * account], balance, "opening + entries = closing, the ledger's at the end");
    }

    private static int lastIndexAtOrBefore(final long atNs)
    {
        int last = 0;
        for (int i = 1; i < TIMES.size() && Math.floorDiv(TIMES.get(i), 1_000L) <= Math.floorDiv(atNs, 1_000L); i++)
        {
            last = i;
        }
        return last;
    }
}
