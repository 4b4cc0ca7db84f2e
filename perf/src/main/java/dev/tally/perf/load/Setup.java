package dev.tally.perf.load;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/**
 * Creates and funds the run's accounts before the load starts, through {@code POST /v1/batch} with up to
 * 8,190 operations per request (non-atomic): 1,000,000 accounts are 123 account batches, then 123
 * funding batches, one at a time. Every operation must answer 201, or setup fails and nothing is
 * measured.
 *
 * <p>One batch per connection, not pipelined: a server that answers some requests from its I/O thread
 * (503 ring full) and others from its responder can answer pipelined requests out of order, and a
 * reply matched to the wrong batch would leave accounts uncreated. {@link #CONNECTIONS} may be raised
 * to overlap building and sending.
 */
final class Setup
{
    /** Operations per setup batch: the server's limit. */
    static final int OPERATIONS_PER_BATCH = LoadSpec.BATCH_SIZE_MAX;
    /**
     * Connections (and threads) sending setup batches. One: with two connections each sending 8,190
     * operations at a time, the server at aebdda7 halts its pipeline now and then ("no reply for command
     * type TICK" on the responder, see docs/benchmarks/history/2026-11-30-load-generator-problems-found.md), and setup
     * must not be what breaks a run.
     */
    private static final int CONNECTIONS = 1;
    /** A batch refused with 503 (ring full: nothing applied) is sent again, at most this many times. */
    private static final int ATTEMPTS_MAX = 200;

    private final Target target;
    private final LoadSpec spec;
    private final AccountLayout layout;
    private final String keyPrefix;

    Setup(final Target target, final LoadSpec spec, final AccountLayout layout, final String keyPrefix)
    {
        this.target = target;
        this.spec = spec;
        this.layout = layout;
        this.keyPrefix = keyPrefix;
    }

    /** Creates every account, then funds the ones that will be debited. */
    void run(final PrintStream log) throws IOException, InterruptedException
    {
        final long startNs = System.nanoTime();
        runPhase("creating accounts", layout.accounts(), this::accountOperation);
        final int hotParts = layout.hotFundMinor() > 0 ? AccountLayout.HOT_FUND_PARTS : 0;
        final int fundingCount = (int)layout.fundedCustomers() + hotParts;
        runPhase("funding accounts", fundingCount, this::fundingOperation);
        log.printf(Locale.ROOT, "setup: %,d accounts created, %,d funding transfers, in %.1f s (account ids from %d, keys %s*)%n",
            layout.accounts(), fundingCount, (System.nanoTime() - startNs) / 1e9, layout.id(0), keyPrefix);
    }

    /** Sends operations {@code 0..count-1} in batches, batch {@code b} on connection {@code b mod CONNECTIONS}. */
    private void runPhase(final String what, final int count, final IntFunction<String> operation) throws IOException, InterruptedException
    {
        final int batches = (count + OPERATIONS_PER_BATCH - 1) / OPERATIONS_PER_BATCH;
        final AtomicReference<Exception> failure = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        for (int connection = 0; connection < Math.min(CONNECTIONS, batches); connection++)
        {
            final int first = connection;
            final Thread thread = new Thread(() ->
            {
                try (BlockingHttp http = new BlockingHttp(target))
                {
                    final BatchResults results = new BatchResults(OPERATIONS_PER_BATCH);
                    for (int batch = first; batch < batches && failure.get() == null; batch += CONNECTIONS)
                    {
                        final int from = batch * OPERATIONS_PER_BATCH;
                        sendBatch(http, results, what, from, Math.min(count, from + OPERATIONS_PER_BATCH), operation);
                    }
                }
                catch (final IOException | RuntimeException ex)
                {
                    failure.compareAndSet(null, ex);
                }
            }, "tally-load-setup-" + connection);
            threads.add(thread);
            thread.start();
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        if (failure.get() != null)
        {
            throw new IOException(failure.get().getMessage(), failure.get());
        }
    }

    private void sendBatch(
        final BlockingHttp http, final BatchResults results, final String what, final int from, final int to,
        final IntFunction<String> operation) throws IOException
    {
        final StringBuilder body = new StringBuilder((to - from) * 160).append("{\"atomic\":false,\"operations\":[");
        for (int i = from; i < to; i++)
        {
            body.append(i > from ? "," : "").append(operation.apply(i));
        }
        final byte[] request = http.request("POST", "/v1/batch", null, body.append("]}").toString().getBytes(StandardCharsets.UTF_8));
        BlockingHttp.Reply reply = http.exchange(request);
        int found = reply.status() == 200 ? results.scan(reply.body(), reply.body().length) : 0;
        for (int attempt = 1; (reply.status() == 503 || anyRetryable(results, found)) && attempt < ATTEMPTS_MAX; attempt++)
        {
            // The batch or some of its operations answered 503 (ring full, not ready, a writer or the cold index behind):
            // those were not applied. The same batch again, as a client honouring Retry-After would: under the same
            // keys, the operations that were applied answer as replays.
            pause();
            reply = http.exchange(request);
            found = reply.status() == 200 ? results.scan(reply.body(), reply.body().length) : 0;
        }
        if (reply.status() != 200)
        {
            throw new IOException("setup failed " + what + ": batch answered " + reply.status() + " " + excerpt(reply.text()));
        }
        if (found != to - from)
        {
            throw new IOException("setup failed " + what + ": " + found + " results for " + (to - from) + " operations");
        }
        for (int op = 0; op < found; op++)
        {
            if (results.status(op) != 201)
            {
                throw new IOException("setup failed " + what + ": operation answered " + results.status(op) +
                    " (does the server have room: --accounts-max, --sub-balances-max, --keys-max?) " + excerpt(reply.text()));
            }
        }
    }

    private static boolean anyRetryable(final BatchResults results, final int found)
    {
        for (int op = 0; op < found; op++)
        {
            if (results.status(op) == 503)
            {
                return true;
            }
        }
        return false;
    }

    private String accountOperation(final int index)
    {
        final StringBuilder op = new StringBuilder(128).append("{\"op\":\"account\",\"idempotencyKey\":\"").append(keyPrefix).append('a')
            .append(index).append("\",\"body\":{\"id\":").append(layout.id(index)).append(",\"currency\":\"").append(AccountLayout.CURRENCY)
            .append('"');
        if (index == layout.hotIndex())
        {
            op.append(",\"subBalances\":").append(spec.hotSubBalances());
        }
        return op.append(",\"debitsMustNotExceedCredits\":").append(layout.constrained(index)).append("}}").toString();
    }

    /** Funding transfer {@code i}: customers first (1, 2, ...), then the parts of the hot account's funding. */
    private String fundingOperation(final int i)
    {
        if (i < layout.fundedCustomers())
        {
            return fundingOperation("f" + (i + 1), i + 1, AccountLayout.CUSTOMER_FUND_MINOR);
        }
        final int part = i - (int)layout.fundedCustomers();
        return fundingOperation("h" + part, layout.hotIndex(), layout.hotFundMinor() / AccountLayout.HOT_FUND_PARTS);
    }

    private String fundingOperation(final String keySuffix, final int creditIndex, final long amountMinor)
    {
        return "{\"op\":\"transfer\",\"idempotencyKey\":\"" + keyPrefix + keySuffix + "\",\"body\":{\"debitAccountId\":" +
            layout.id(AccountLayout.FUNDING_INDEX) + ",\"creditAccountId\":" + layout.id(creditIndex) + ",\"amount\":\"" +
            AccountLayout.major(amountMinor) + "\",\"currency\":\"" + AccountLayout.CURRENCY + "\"}}";
    }

    private static void pause() throws IOException
    {
        try
        {
            Thread.sleep(20);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted during setup", ex);
        }
    }

    private static String excerpt(final String text)
    {
        final int problem = text.indexOf("\"type\"");
        final int from = Math.max(0, problem - 40);
        return text.substring(from, Math.min(text.length(), from + 400));
    }
}
