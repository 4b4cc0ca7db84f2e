package dev.tally.perf.jmh;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.LedgerStats;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Transfers per second through {@link Ledger#apply} on one thread: the business thread alone, with no
 * ring, journal or I/O around it. One operation is one transfer request (fresh or retried).
 *
 * <pre>
 *   @Setup (not measured)                         benchmark thread (measured)
 *   ---------------------                         ------------------------------------------------
 *   accounts created and funded                   1,024 x { Command (one reused holder)
 *   setup history expired by TICKs                          --apply--> Ledger --> Result --> ResultTally }
 *   TransferWorkload: pairs, retry pattern        1 x TICK: expires the keys and transfers that left
 *   primed: one window of transfers                         the retention window
 * </pre>
 *
 * <p><b>Steady state, not an empty or a filling table.</b> Journaled time advances
 * {@value #COMMAND_STEP_NS} ns per command, and keys and transfers are retained for {@link #windowCommands}
 * commands' worth of it (4 M by default: 4 s), so that many keys and transfers are live at any time; a
 * TICK every {@value #TRANSFERS_PER_TICK} transfers expires what left the window (about as many as were
 * added). The tables are sized at twice the window, and the setup primes them to the steady level
 * before the first warmup iteration. Every measured transfer thus pays what it pays in production: a
 * lookup in a half-full index far bigger than any cache, inserts into rings that wrap, and its share of
 * the expiry work. Re-creating the ledger per iteration instead would measure mostly-empty tables and a
 * multi-gigabyte allocation per iteration; a table that filled up would turn every transfer into a
 * {@code CAPACITY_EXCEEDED} rejection, which {@link #verifyIteration} refuses.
 *
 * <p>Journal indexes strictly increase and journaled time never decreases across the whole fork: the
 * counters live in this state object and are never reset. Accounts are funded from an unconstrained
 * funding account at setup, with far more than a run can debit, so no transfer fails for funds.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g", "-Dchronicle.analytics.disable=true"})
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 3, timeUnit = TimeUnit.SECONDS)
@Threads(1)
@State(Scope.Thread)
public class LedgerTransferBenchmark
{
    /** Transfers applied per benchmark invocation, followed by one TICK. */
    static final int TRANSFERS_PER_TICK = 1_024;
    /** Journaled time between two consecutive commands: a retention window of 1 ms holds 1,000 commands. */
    static final long COMMAND_STEP_NS = 1_000;
    /** Commands per millisecond of journaled time. */
    static final int COMMANDS_PER_MS = (int)(1_000_000 / COMMAND_STEP_NS);
    /** References are not used by these transfers; the table only has to exist. */
    static final int REFERENCES_MAX = 1_024;
    /** Holds are not used by these transfers; the table only has to exist. */
    static final int HOLDS_MAX = 1_024;
    /** Expiries per tick and table: 8x what one tick's window adds, so expiry never falls behind. */
    static final int EXPIRIES_PER_TICK_MAX = 8 * TRANSFERS_PER_TICK;
    /** What each ordinary account is funded with; a run debits far less than this from any account. */
    static final long FUNDING_PER_ACCOUNT_MINOR = 100_000_000_000L;
    /** Bounds the setup's draining of its own history, in ticks. */
    static final int DRAIN_TICKS_MAX = 100_000;
    /** Prints what each fork did when it exits ({@code -jvmArgsAppend "... -Dtally.perf.report=true"}). */
    static final boolean REPORT = Boolean.getBoolean("tally.perf.report");

    private static final long START_TIME_NS = 1_767_225_600_000_000_000L; // 2026-01-01T00:00:00Z
    private static final long TENANT_ID = 1;
    private static final long FUNDING_ACCOUNT_ID = 1;
    private static final long HOT_ACCOUNT_ID = 2;
    private static final long FIRST_ACCOUNT_ID = 1_000_000;
    /** High halves of the 128-bit key digests: setup keys and transfer keys never collide. */
    private static final long SETUP_KEY_HI = 0x5E7F_0000_0000_0001L;
    private static final long TRANSFER_KEY_HI = 0x7A11_0000_0000_0002L;
    private static final long FINGERPRINT_HI = 0xF1F1_0000_0000_0003L;
    private static final long WORKLOAD_SEED = 20_260_101L;

    /** Which stream: see {@link TransferScenario}. */
    @Param({"uniform", "hotCredit", "duplicates50"})
    public String scenario;

    /** Ordinary accounts the transfers spread over; 1000 fits in cache, 1000000 does not. */
    @Param({"1000000"})
    public int accounts;

    /**
     * Commands per retention window of keys and transfers: what is live at steady state (every key and
     * transfer for uniform and hotCredit; half as many for duplicates50, whose retries add no key). The
     * tables are sized at twice this. 4000000 (about 2.5 GB of tables) is far beyond any cache; 4000 (a few
     * MB) fits in L3. A multiple of {@link #COMMANDS_PER_MS}.
     */
    @Param({"4000000"})
    public int windowCommands;

    /** Sub-balances of the hot merchant account that hotCredit credits (1 to 64). */
    @Param({"16"})
    public int hotSubBalances;

    /**
     * true: every account is created with a low-balance threshold of one minor unit, which the funded accounts never
     * cross, so that each transfer pays the alerts' evaluation (a sum over the sub-balances of each account it changes,
     * 16 for the hot one) without emitting events; false: no account has one, so each pays one test of a bit.
     */
    @Param({"false"})
    public boolean lowBalanceAlerts;

    private final Command command = new Command();
    private final Command tick = new Command();
    private final Command setup = new Command();
    private final ResultTally tally = new ResultTally();
    private final CpuShare cpuShare = new CpuShare();
    private Ledger ledger;
    private TransferWorkload workload;
    private long journalIndex;
    private long nowNs = START_TIME_NS;
    /** Sequence of the next fresh idempotency key; key {@code k} always carries the same payload. */
    private long nextKeySeq = 1;
    /** Transfer requests issued, fresh or retried. */
    private long requestSeq;
    private long setupKeySeq = 1;
    private long setupTransfersPosted;
    private long retentionMs;

    /**
     * Builds the ledger in numbered steps; nothing here is measured.
     */
    @Setup(Level.Trial)
    public void setUp()
    {
        final TransferScenario stream = TransferScenario.fromParam(scenario);
        final int currency = CurrencyCode.pack("EUR");
        if (windowCommands < COMMANDS_PER_MS || windowCommands % COMMANDS_PER_MS != 0)
        {
            throw new IllegalArgumentException("windowCommands must be a positive multiple of " + COMMANDS_PER_MS);
        }
        // 1. Tables sized for twice the steady state (plus the commands between two ticks), so none fills.
        retentionMs = windowCommands / COMMANDS_PER_MS;
        final int tableMax = 2 * (windowCommands + TRANSFERS_PER_TICK + 1);
        ledger = new Ledger(new LedgerConfig(
            accounts + 2, accounts + 2 + hotSubBalances, tableMax, REFERENCES_MAX, tableMax,
            HOLDS_MAX, retentionMs, retentionMs, retentionMs, EXPIRIES_PER_TICK_MAX));
        tick.clear();
        tick.type = CommandType.TICK;
        // 2. Accounts: the unconstrained funding account, the hot merchant account, the ordinary accounts.
        createAccount(FUNDING_ACCOUNT_ID, 1, false, currency);
        createAccount(HOT_ACCOUNT_ID, hotSubBalances, true, currency);
        for (int i = 0; i < accounts; i++)
        {
            createAccount(FIRST_ACCOUNT_ID + i, 1, true, currency);
        }
        // 3. Funding: every ordinary account gets far more than any run debits.
        for (int i = 0; i < accounts; i++)
        {
            fund(FIRST_ACCOUNT_ID + i, currency);
        }
        setupTransfersPosted = ledger.transfersPosted();
        // 4. Expire the setup's own keys and transfers, so the measured tables hold only the stream's.
        drainSetupHistory();
        // 5. The stream (retries stay well inside the window), and the command fields that never change.
        final int duplicateDistanceMax = Math.min(TransferWorkload.DUPLICATE_DISTANCE_MAX, windowCommands / 4);
        workload = new TransferWorkload(
            stream, accounts, FIRST_ACCOUNT_ID, HOT_ACCOUNT_ID, duplicateDistanceMax, WORKLOAD_SEED);
        command.clear();
        command.type = CommandType.TRANSFER;
        command.tenantId = TENANT_ID;
        command.keyHi = TRANSFER_KEY_HI;
        command.fingerprintHi = FINGERPRINT_HI;
        command.currency = currency;
        // 6. Prime to steady state: one retention window of transfers, ticks included.
        final long primeInvocations = windowCommands / (TRANSFERS_PER_TICK + 1) + 64;
        for (long i = 0; i < primeInvocations; i++)
        {
            transfers();
        }
        tally.verify(scenario + " priming");
        // 7. The report is printed when the fork exits, outside every iteration's allocation count.
        if (REPORT)
        {
            // JMH's own System.out is closed by then: write to the process's stderr, which JMH relays.
            final PrintStream stderr = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> stderr.println(report()), "report"));
        }
    }

    /**
     * One invocation: {@value #TRANSFERS_PER_TICK} transfer requests, then one TICK whose expiry work
     * they share (as they do in production, where ticks are journaled commands on the same thread).
     *
     * @return the last journal index, so that nothing is dead code.
     */
    @Benchmark
    @OperationsPerInvocation(TRANSFERS_PER_TICK)
    public long transfers()
    {
        for (int i = 0; i < TRANSFERS_PER_TICK; i++)
        {
            transfer();
        }
        tick();
        return journalIndex;
    }

    private void transfer()
    {
        final int distance = workload.duplicateDistance(requestSeq++);
        // A retry reaches back to a key already issued; the very first requests of a fork have none.
        final boolean fresh = distance == 0 || distance >= nextKeySeq;
        final long keySeq = fresh ? nextKeySeq++ : nextKeySeq - distance;
        final Command c = command;
        c.journalIndex = ++journalIndex;
        c.timestampNs = nowNs += COMMAND_STEP_NS;
        c.keyLo = keySeq;
        c.fingerprintLo = keySeq;
        c.debitAccountId = workload.debitAccountId(keySeq);
        c.creditAccountId = workload.creditAccountId(keySeq);
        c.amountMinor = TransferWorkload.amountMinor(keySeq);
        final Result r = ledger.apply(c);
        if (fresh)
        {
            tally.expectPosted(r);
        }
        else
        {
            tally.expectReplayed(r);
        }
    }

    private void tick()
    {
        tick.journalIndex = ++journalIndex;
        tick.timestampNs = nowNs += COMMAND_STEP_NS;
        tally.expectTickOk(ledger.apply(tick));
    }

    /** Starts the iteration's CPU-share clock. */
    @Setup(Level.Iteration)
    public void startIteration()
    {
        cpuShare.start();
    }

    /** Fails the run as soon as an iteration produced anything but the expected posted/replayed split. */
    @TearDown(Level.Iteration)
    public void verifyIteration()
    {
        cpuShare.stop();
        tally.verify(scenario);
        final long posted = ledger.transfersPosted() - setupTransfersPosted;
        if (posted != tally.postedCount())
        {
            throw new IllegalStateException(
                scenario + ": ledger posted " + posted + " transfers, the benchmark counted " + tally.postedCount());
        }
    }

    /** Verifies the whole fork. Allocates only when it fails. */
    @TearDown(Level.Trial)
    public void verifyTrial()
    {
        tally.verify(scenario);
    }

    /** @return what the fork did, and how much CPU each iteration really got (see {@link CpuShare}). */
    String report()
    {
        final LedgerStats stats = ledger.publishStats();
        return "[" + scenario + ", " + accounts + " accounts, window " + windowCommands + "] " + tally + "; live keys " +
            stats.idempotencyKeyCount() + ", live transfers " + stats.transferCount() + ", retries per pattern " +
            workload.duplicatesPerPattern() + "/" + TransferWorkload.DUPLICATE_PATTERN_LENGTH + ", journal index " +
            journalIndex + ", journaled time " + (nowNs - START_TIME_NS) / 1_000_000 + " ms; " + cpuShare;
    }

    private void createAccount(final long accountId, final int subBalances, final boolean constrained, final int currency)
    {
        final Command c = nextSetupCommand(CommandType.CREATE_ACCOUNT);
        c.accountId = accountId;
        c.subBalances = subBalances;
        c.debitsMustNotExceedCredits = constrained;
        c.currency = currency;
        c.amountMinor = lowBalanceAlerts ? 1 : 0;   // a creation's threshold
        requireOk(ledger.apply(c), "create account", accountId);
    }

    private void fund(final long accountId, final int currency)
    {
        final Command c = nextSetupCommand(CommandType.TRANSFER);
        c.debitAccountId = FUNDING_ACCOUNT_ID;
        c.creditAccountId = accountId;
        c.amountMinor = FUNDING_PER_ACCOUNT_MINOR;
        c.currency = currency;
        requireOk(ledger.apply(c), "fund account", accountId);
    }

    private Command nextSetupCommand(final CommandType type)
    {
        if (setupKeySeq % TRANSFERS_PER_TICK == 0)
        {
            tick(); // keeps a small window's tables from filling with the setup's own history
        }
        final Command c = setup.clear();
        c.journalIndex = ++journalIndex;
        c.timestampNs = nowNs += COMMAND_STEP_NS;
        c.type = type;
        c.tenantId = TENANT_ID;
        c.keyHi = SETUP_KEY_HI;
        c.keyLo = setupKeySeq;
        c.fingerprintHi = FINGERPRINT_HI;
        c.fingerprintLo = setupKeySeq++;
        return c;
    }

    private void drainSetupHistory()
    {
        nowNs += retentionMs * 1_000_000L;
        for (int i = 0; i < DRAIN_TICKS_MAX; i++)
        {
            final LedgerStats stats = ledger.publishStats();
            if (stats.idempotencyKeyCount() == 0 && stats.transferCount() == 0)
            {
                return;
            }
            tick();
        }
        throw new IllegalStateException("setup history not expired after " + DRAIN_TICKS_MAX + " ticks");
    }

    private static void requireOk(final Result r, final String what, final long accountId)
    {
        if (r.code != ResultCode.OK)
        {
            throw new IllegalStateException(what + " " + accountId + " failed: " + r);
        }
    }
}
