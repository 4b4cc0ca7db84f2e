package dev.tally.server.it;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * Fires {@code n} requests at once: one thread each, all released by one gate, so that they overlap on
 * the server as much as a two-core machine allows. Bounded: every request must finish within
 * {@link #TIMEOUT_SECONDS}.
 */
final class Concurrently
{
    static final int THREADS_MAX = 128;
    static final long TIMEOUT_SECONDS = 60;

    private Concurrently()
    {
    }

    /** @return the replies in request order ({@code request.apply(i)} made request {@code i}). */
    static List<Reply> send(final int n, final IntFunction<Reply> request) throws InterruptedException
    {
        if (n < 1 || n > THREADS_MAX)
        {
            throw new IllegalArgumentException("1.." + THREADS_MAX + " requests, not " + n);
        }
        final ExecutorService pool = Executors.newFixedThreadPool(n);
        try
        {
            final CountDownLatch ready = new CountDownLatch(n);
            final CountDownLatch gate = new CountDownLatch(1);
            final List<Future<Reply>> futures = new ArrayList<>(n);
            for (int i = 0; i < n; i++)
            {
                final int index = i;
                futures.add(pool.submit(() ->
                {
                    ready.countDown();
                    if (!gate.await(TIMEOUT_SECONDS, TimeUnit.SECONDS))
                    {
                        throw new TimeoutException("the gate never opened");
                    }
                    return request.apply(index);
                }));
            }
            if (!ready.await(TIMEOUT_SECONDS, TimeUnit.SECONDS))
            {
                throw new AssertionError("request threads did not start in time");
            }
            gate.countDown();
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
            final List<Reply> replies = new ArrayList<>(n);
            for (final Future<Reply> future : futures)
            {
                try
                {
                    replies.add(future.get(Math.max(1, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS));
                }
                catch (final ExecutionException e)
                {
                    throw new AssertionError("a concurrent request failed", e.getCause());
                }
                catch (final TimeoutException e)
                {
                    throw new AssertionError("concurrent requests did not finish within " + TIMEOUT_SECONDS + " s", e);
                }
            }
            return replies;
        }
        finally
        {
            pool.shutdownNow();
        }
    }
}
