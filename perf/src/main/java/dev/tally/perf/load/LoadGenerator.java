package dev.tally.perf.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.EventExecutor;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An asynchronous HTTP/1.1 load generator on Netty: NIO event loop(s) (one by default: the server
 * shares the machine), keep-alive connections, optional pipelining, closed or open loop.
 *
 * <pre>
 *   pacer thread (open loop only)          event loop thread(s)                       server
 *   sleeps to the next due time ──wake──► LoopDriver: pick a connection with room ──► POST ... ─┐
 *                                          RequestSource renders bytes (templates)              │
 *                                          ResponseDecoder frames replies ◄─────── 201 / 200 ◄──┘
 *                                          LoopStats: latency (HdrHistogram, µs), status, errors
 *                                          Outcomes: what was applied (for the check)
 * </pre>
 *
 * A run is bounded: warmup, then the measured window, then at most {@code drainSeconds} waiting for
 * replies in flight; whatever is still unanswered then is counted as a transport error and its outcome
 * left to the check to resolve. A connection the server closes is counted (its requests in flight
 * too) and not reopened. Requests go to 127.0.0.1 only ({@link Target}).
 */
public final class LoadGenerator
{
    private static final long START_MARGIN_NS = 20_000_000L;
    private static final int CONNECT_TIMEOUT_MS = 5_000;

    private final LoadSpec spec;
    private final Target target;
    private final AccountLayout layout;
    private final String keyPrefix;
    private final RunHooks hooks;

    /**
     * @param spec      the run.
     * @param target    the server (loopback).
     * @param layout    the run's accounts (created and funded by setup).
     * @param keyPrefix the run-unique prefix of every idempotency key.
     * @param hooks     told when the measured window ends.
     */
    LoadGenerator(final LoadSpec spec, final Target target, final AccountLayout layout, final String keyPrefix, final RunHooks hooks)
    {
        this.spec = spec;
        this.target = target;
        this.layout = layout;
        this.keyPrefix = keyPrefix;
        this.hooks = hooks;
    }

    /** Runs warmup, measured window and drain; returns the merged figures. */
    LoadResult run() throws IOException, InterruptedException
    {
        final MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(spec.clientThreads(), new LoadThreads(),
            target.transport().ioHandlers());
        final LoopDriver[] drivers = drivers(group);
        final Figures figures;
        try
        {
            connect(drivers);
            figures = drive(drivers);
        }
        finally
        {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        // The loops have stopped: their statistics are final and visible to this thread.
        return merge(drivers, figures);
    }

    private LoopDriver[] drivers(final MultiThreadIoEventLoopGroup group)
    {
        final LoopDriver[] drivers = new LoopDriver[spec.clientThreads()];
        int index = 0;
        for (final EventExecutor executor : group)
        {
            final RequestTemplate template = new RequestTemplate(target.hostPort(), target.apiKey(), keyPrefix,
                AccountLayout.major(AccountLayout.AMOUNT_MINOR), AccountLayout.CURRENCY, spec.references(), spec.metadata());
            final Outcomes outcomes = new Outcomes(layout.accounts());
            final RequestSource source = new RequestSource(spec, layout, template, outcomes, index, drivers.length);
            drivers[index] = new LoopDriver((EventLoop)executor, index, spec, source, outcomes, new LoopStats());
            index++;
        }
        return drivers;
    }

    private void connect(final LoopDriver[] drivers) throws IOException, InterruptedException
    {
        final List<ChannelFuture> futures = new ArrayList<>();
        final List<LoadConnection> connections = new ArrayList<>();
        for (int i = 0; i < spec.connections(); i++)
        {
            final LoopDriver driver = drivers[i % drivers.length];
            final LoadConnection connection = new LoadConnection(driver, spec.depth());
            connections.add(connection);
            futures.add(new Bootstrap()
                .group(driver.loop())
                .channel(target.transport().clientChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MS)
                .handler(new ChannelInitializer<SocketChannel>()
                {
                    @Override
                    protected void initChannel(final SocketChannel channel)
                    {
                        channel.pipeline().addLast("decoder", new ResponseDecoder(connection)).addLast("load", connection);
                    }
                })
                .connect(target.host(), target.port()));
        }
        for (int i = 0; i < futures.size(); i++)
        {
            final ChannelFuture future = futures.get(i).await();
            if (!future.isSuccess())
            {
                throw new IOException("cannot connect to " + target.hostPort() + ": " + future.cause(), future.cause());
            }
            final LoadConnection connection = connections.get(i);
            final LoopDriver driver = drivers[i % drivers.length];
            driver.loop().submit(() -> driver.add(connection)).sync();
        }
    }

    private Figures drive(final LoopDriver[] drivers) throws InterruptedException
    {
        final long startNs = System.nanoTime() + START_MARGIN_NS;
        final long windowStartNs = startNs + spec.warmupSeconds() * 1_000_000_000L;
        final long windowEndNs = windowStartNs + spec.seconds() * 1_000_000_000L;
        final OpenSchedule schedule = spec.mode() == Mode.OPEN ?
            new OpenSchedule(startNs, spec.rateRps(), (long)spec.rateRps() * (spec.warmupSeconds() + spec.seconds()), drivers) : null;
        for (final LoopDriver driver : drivers)
        {
            driver.loop().submit(() -> driver.stats().window(startNs, windowStartNs, windowEndNs)).sync();
        }
        sleepUntil(startNs);
        for (final LoopDriver driver : drivers)
        {
            driver.loop().execute(() -> driver.start(windowStartNs, windowEndNs, schedule));
        }
        final Thread pacer = schedule == null ? null : startPacer(schedule);

        sleepUntil(windowStartNs);
        final CpuUsage cpuBefore = CpuUsage.snapshot();
        sleepUntil(windowEndNs);
        final CpuUsage cpuAfter = CpuUsage.snapshot();
        hooks.windowEnded();
        if (pacer != null)
        {
            schedule.stop();
            pacer.join();
        }
        final long unanswered = drain(drivers, windowEndNs + spec.drainSeconds() * 1_000_000_000L);
        for (final LoopDriver driver : drivers)
        {
            driver.loop().submit(() -> driver.finish("no reply within the drain time")).sync();
        }
        return new Figures(cpuBefore, cpuAfter, unanswered);
    }

    private static Thread startPacer(final OpenSchedule schedule)
    {
        final Thread pacer = new Thread(schedule, "tally-load-pacer");
        pacer.setDaemon(true);
        pacer.setPriority(Thread.MAX_PRIORITY);
        pacer.start();
        return pacer;
    }

    /** @return requests still unanswered at the drain deadline. */
    private static long drain(final LoopDriver[] drivers, final long deadlineNs) throws InterruptedException
    {
        while (true)
        {
            long inFlight = 0;
            for (final LoopDriver driver : drivers)
            {
                try
                {
                    inFlight += driver.loop().submit(driver::inFlight).get();
                }
                catch (final java.util.concurrent.ExecutionException ex)
                {
                    throw new IllegalStateException(ex.getCause());
                }
            }
            if (inFlight == 0 || System.nanoTime() >= deadlineNs)
            {
                return inFlight;
            }
            Thread.sleep(5);
        }
    }

    private LoadResult merge(final LoopDriver[] drivers, final Figures figures)
    {
        final LoopStats stats = drivers[0].stats();
        final Outcomes outcomes = drivers[0].outcomes();
        for (int i = 1; i < drivers.length; i++)
        {
            stats.mergeFrom(drivers[i].stats());
            outcomes.mergeFrom(drivers[i].outcomes());
        }
        long outOfOrder = 0;
        for (final LoopDriver driver : drivers)
        {
            outOfOrder += driver.source().outOfOrder;
        }
        if (outOfOrder > 0)
        {
            stats.transportErrors.put("pipelined reply out of order (outcome resolved by the check)", outOfOrder);
        }
        return new LoadResult(spec, stats, outcomes, figures.cpuAfter.reportSince(figures.cpuBefore, stats.requestsCompleted),
            figures.unanswered);
    }

    private static void sleepUntil(final long deadlineNs) throws InterruptedException
    {
        long remainingNs;
        while ((remainingNs = deadlineNs - System.nanoTime()) > 0)
        {
            Thread.sleep(remainingNs / 1_000_000, (int)(remainingNs % 1_000_000));
        }
    }

    /** What the driving thread saw: CPU counters around the window, replies never received. */
    private record Figures(CpuUsage cpuBefore, CpuUsage cpuAfter, long unanswered)
    {
    }

    /** Names the client's event-loop threads {@code tally-load-N}, so CPU can be told apart from the server's. */
    private static final class LoadThreads implements ThreadFactory
    {
        private final AtomicInteger count = new AtomicInteger();

        @Override
        public Thread newThread(final Runnable runnable)
        {
            final Thread thread = new Thread(runnable, "tally-load-" + count.getAndIncrement());
            thread.setDaemon(true);
            return thread;
        }
    }
}
