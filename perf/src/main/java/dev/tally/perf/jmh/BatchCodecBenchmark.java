package dev.tally.perf.jmh;

import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.RequestDecoder;
import dev.tally.gateway.api.ResponseRenderer;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.result.Result;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The gateway's share of a {@code POST /v1/batch} of {@value #OPERATIONS} transfers, without HTTP, ring or journal:
 * the I/O thread's decode of the body into commands (JSON, amounts, the three SHA-256 digests per operation) and the
 * responder's rendering of the reply from the ledger's results. One operation is one transfer.
 *
 * <p>The bodies are exactly what the load generator sends in the {@code batch} scenario (its template, rendered here
 * with a {@link StringBuilder} at setup): {@value #BODIES} different bodies in turn, with different keys and
 * accounts, so the digests and the branch predictors see fresh input. The results are real: the decoded commands
 * are applied once to a small {@link Ledger} at setup and its results kept. The server hands the decoder a pooled
 * direct buffer; so does this benchmark.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-XX:+UseParallelGC", "-Dchronicle.analytics.disable=true"})
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 3, timeUnit = TimeUnit.SECONDS)
@Threads(1)
@State(Scope.Thread)
public class BatchCodecBenchmark
{
    static final int OPERATIONS = 100;
    static final int BODIES = 64;
    private static final int ACCOUNTS = 1_000;
    private static final long FIRST_ACCOUNT_ID = 2;
    private static final long FUNDING_ACCOUNT_ID = 1;
    private static final long TENANT_ID = 1;
    private static final long START_TIME_NS = 1_767_225_600_000_000_000L; // 2026-01-01T00:00:00Z

    private final RequestDecoder decoder = new RequestDecoder();
    private final ResponseRenderer renderer = new ResponseRenderer();
    private final ByteBuf[] bodies = new ByteBuf[BODIES];
    private final Command[] decoded = commands();
    private final Command[][] appliedCommands = new Command[BODIES][];
    private final Result[][] appliedResults = new Result[BODIES][];
    private final ByteBuf reply = Unpooled.directBuffer(64 * 1024);
    private int next;

    @Setup(Level.Trial)
    public void setUp()
    {
        final Ledger ledger = new Ledger(new LedgerConfig(ACCOUNTS + 1, ACCOUNTS + 1, 1 << 16, 1 << 10, 1 << 16, 1 << 10,
            60_000, 60_000, 60_000, 1 << 12));
        final int currency = CurrencyCode.pack("TRY");
        long index = 0;
        final Command setup = new Command();
        for (int i = 0; i <= ACCOUNTS; i++)
        {
            setupCommand(setup, CommandType.CREATE_ACCOUNT, ++index, -1);
            setup.accountId = i == 0 ? FUNDING_ACCOUNT_ID : FIRST_ACCOUNT_ID + i - 1;
            setup.subBalances = 1;
            setup.debitsMustNotExceedCredits = i != 0;
            setup.currency = currency;
            require(ledger.apply(setup), "create account");
        }
        for (int i = 0; i < ACCOUNTS; i++)
        {
            setupCommand(setup, CommandType.TRANSFER, ++index, -2);
            setup.debitAccountId = FUNDING_ACCOUNT_ID;
            setup.creditAccountId = FIRST_ACCOUNT_ID + i;
            setup.amountMinor = 1_000_000_000L;
            setup.currency = currency;
            require(ledger.apply(setup), "fund");
        }
        for (int b = 0; b < BODIES; b++)
        {
            bodies[b] = body(b);
            appliedCommands[b] = commands();
            appliedResults[b] = new Result[OPERATIONS];
            final Problem problem = decoder.decodeBatch(TENANT_ID, bodies[b], appliedCommands[b]);
            if (problem != null || decoder.batchSize() != OPERATIONS)
            {
                throw new IllegalStateException("body " + b + " did not decode: " + problem);
            }
            for (int i = 0; i < OPERATIONS; i++)
            {
                final Command c = appliedCommands[b][i];
                c.journalIndex = ++index;
                c.timestampNs = START_TIME_NS + index;
                appliedResults[b][i] = new Result().copyFrom(require(ledger.apply(c), "batch transfer"));
            }
        }
    }

    /** Clears {@code setup} for a setup command at {@code index}, with a key of its own ({@code keyHi} tells the kinds apart). */
    private static void setupCommand(final Command setup, final CommandType type, final long index, final long keyHi)
    {
        setup.clear();
        setup.type = type;
        setup.journalIndex = index;
        setup.timestampNs = START_TIME_NS + index;
        setup.tenantId = TENANT_ID;
        setup.keyHi = keyHi;
        setup.keyLo = index;
    }

    /** Decodes one batch body into {@value #OPERATIONS} commands, as the Netty I/O thread does. */
    @Benchmark
    @OperationsPerInvocation(OPERATIONS)
    public int decode()
    {
        final Problem problem = decoder.decodeBatch(TENANT_ID, bodies[next++ & (BODIES - 1)], decoded);
        if (problem != null)
        {
            throw new IllegalStateException(problem.toString());
        }
        return decoder.batchSize();
    }

    /** Renders one batch reply of {@value #OPERATIONS} results, as the responder does. */
    @Benchmark
    @OperationsPerInvocation(OPERATIONS)
    public int render()
    {
        final int b = next++ & (BODIES - 1);
        reply.clear();
        renderer.renderBatch(appliedCommands[b], appliedResults[b], OPERATIONS, reply);
        return reply.writerIndex();
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        for (final ByteBuf body : bodies)
        {
            body.release();
        }
        reply.release();
    }

    /** The load generator's batch body ({@code RequestTemplate}), with its key prefix, amount and currency. */
    private static ByteBuf body(final int b)
    {
        final StringBuilder json = new StringBuilder(16 * 1024).append("{\"atomic\":false,\"operations\":[");
        for (int op = 0; op < OPERATIONS; op++)
        {
            final long keySeq = 1_000_000L + b;
            final long debit = FIRST_ACCOUNT_ID + (b * 7919L + op * 104_729L) % ACCOUNTS;
            final long credit = FIRST_ACCOUNT_ID + (debit - FIRST_ACCOUNT_ID + 1 + (op * 31L) % (ACCOUNTS - 1)) % ACCOUNTS;
            json.append(op == 0 ? "" : ",").append("{\"op\":\"transfer\",\"idempotencyKey\":\"perf-0f3c9a1e-")
                .append(keySeq).append('.').append(op).append("\",\"body\":{\"debitAccountId\":").append(debit)
                .append(",\"creditAccountId\":").append(credit).append(",\"amount\":\"1.00\",\"currency\":\"TRY\"}}");
        }
        final byte[] bytes = json.append("]}").toString().getBytes(StandardCharsets.US_ASCII);
        return Unpooled.directBuffer(bytes.length).writeBytes(bytes);
    }

    private static Command[] commands()
    {
        final Command[] commands = new Command[LedgerLimits.BATCH_OPERATIONS_MAX];
        for (int i = 0; i < commands.length; i++)
        {
            commands[i] = new Command();
        }
        return commands;
    }

    private static Result require(final Result result, final String what)
    {
        if (!result.code.isSuccess())
        {
            throw new IllegalStateException(what + " failed: " + result);
        }
        return result;
    }
}
