package dev.tally.pipeline;

import com.lmax.disruptor.BatchEventProcessor;
import com.lmax.disruptor.BatchEventProcessorBuilder;
import com.lmax.disruptor.ExceptionHandler;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.Sequencer;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.EventProcessorFactory;
import com.lmax.disruptor.dsl.ProducerType;
import dev.tally.journal.Durability;
import dev.tally.journal.CommandLog;
import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.Ledger;
import java.util.Arrays;
import java.util.List;
import org.agrona.concurrent.EpochNanoClock;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole Disruptor graph, built in one place.
 *
 * <pre>
 *   gateway I/O threads ─publish─► ┌────────────── input ring (InputRing: pre-allocated LedgerEvent slots) ──────────────┐
 *   tick publisher      ─publish─► │                                                                                        │
 *   snapshot publisher  ─publish─► │                                                                                        │
 *                                  └─► (1) journal stage ──appended──► (2) business stage ──applied──► (3) responder stage ─► replies
 *                                      stamp index + time;             Ledger.apply(cmd);              ▲ (ResponderStage: the
 *                                      reference check (transfers      reads from memory               │  gateway's HTTP one)
 *                                      with a reference: the store);
 *                                      append to the CommandLog;
 *                                      force per batch ────────────────────────journaled────────────────┘
 *                                                                      each completed unit ─► fan-out, in order:
 *                                                                        1. the PostgreSQL read model (its effects)
 *                                                                        2. the snapshotter (a copy at a SNAPSHOT)
 * </pre>
 *
 * The business thread never sees a command the journaler has not stamped and appended, and applies a batch
 * while the journaler forces it (in {@code sync}); the responder never replies before the business thread has
 * applied a command AND the journaler has journaled it as the durability mode promises (forced in {@code sync},
 * appended in {@code async}). One thread per stage; every stage batches on {@code endOfBatch}.
 */
public final class LedgerPipeline implements AutoCloseable
{
    /** Slots in the input ring: a power of two, at least twice the largest batch so a batch always fits. */
    public static final int RING_SIZE_DEFAULT = 16_384;

    private static final Logger LOG = LoggerFactory.getLogger(LedgerPipeline.class);

    private final Disruptor<LedgerEvent> disruptor;
    private final RingBuffer<LedgerEvent> ring;
    private final InputRing inputRing;
    private final WaitStrategy waitStrategy;
    private final PipelineHealth health;
    private final TickPublisher ticker;
    private final StageThreads threads = new StageThreads();

    /**
     * Builds and starts the pipeline.
     *
     * @param ledger       the state machine, already caught up with the journal.
     * @param journal      the open journal.
     * @param responder    builds stage 3 (renders and writes replies) over the ring.
     * @param unitListener receives each completed unit's effects on the business thread (the fan-out of one).
     * @param config       ring size, wait strategy, tick interval.
     * @param health       shared halt/ready flags.
     */
    public LedgerPipeline(
        final Ledger ledger, final CommandLog journal, final Function<InputRing, ResponderStage> responder,
        final UnitListener unitListener, final PipelineConfig config, final PipelineHealth health)
    {
        this(ledger, journal, responder, List.of(unitListener), config, health, StageMeters.NONE, null);
    }

    /**
     * Builds and starts the pipeline, with the stages reporting their batches to {@code meters}.
     *
     * @param fanOut         receive each completed unit on the business thread, in this order (the read model, then
     *                       the snapshotter: a snapshot's copy never runs ahead of the effects before it).
     * @param meters         receives the journaler's and the business thread's per-batch timings.
     * @param cold           the journal stage's side of the cold index; null for none (memory then lets nothing go).
     */
    public LedgerPipeline(
        final Ledger ledger, final CommandLog journal, final Function<InputRing, ResponderStage> responder,
        final List<UnitListener> fanOut, final PipelineConfig config, final PipelineHealth health, final StageMeters meters,
        final ColdCheck cold)
    {
        config.validate();
        this.health = health;

        // 1. The ring: multi-producer (every Netty I/O thread and the ticker publish), pre-allocated slots.
        waitStrategy = config.waitStrategy().create();
        disruptor = new Disruptor<>(LedgerEvent::new, config.ringSize(), threads, ProducerType.MULTI, waitStrategy);
        ring = disruptor.getRingBuffer();
        inputRing = new InputRing(ring);

        // 2. Any exception escaping a stage halts writes instead of skipping the event.
        disruptor.setDefaultExceptionHandler(new HaltingExceptionHandler(health));

        // 3. journaler -> business thread -> responder. The business thread waits for the journaler's appends
        //    only, and applies a batch while the journaler forces it; the responder waits for the business
        //    thread AND the force (journaled). A request batch's slots are reused only once the responder has
        //    passed its last slot (see WholeBatchGate).
        final Sequence journaled = new Sequence(Sequencer.INITIAL_CURSOR_VALUE);
        final WholeBatchGate wholeBatches = new WholeBatchGate(responder.apply(inputRing), StageHandoff.responder(waitStrategy));
        final ExceptionHandler<LedgerEvent> halting = new HaltingExceptionHandler(health);
        disruptor
            .handleEventsWith(new JournalStage(journal, config.clock(), ring, cold, health, meters, StageHandoff.journaler(waitStrategy),
                journaled))
            .then(new BusinessStage(ledger, ring, health, fanOut.toArray(new UnitListener[0]), meters, StageHandoff.business(waitStrategy)))
            .then((EventProcessorFactory<LedgerEvent>)(ringBuffer, business) -> afterBoth(ringBuffer, business, journaled, wholeBatches, halting));
        ring.addGatingSequences(wholeBatches.sequence());

        // 4. Start the threads, then the ticks that drive journaled time.
        disruptor.start();
        ticker = new TickPublisher(inputRing, health, config.tickIntervalMs(), forceCheckIntervalMs(journal));
    }

    /** The responder's processor: its barrier is the business thread's sequence and the journaler's forced one. */
    private static BatchEventProcessor<LedgerEvent> afterBoth(
        final RingBuffer<LedgerEvent> ring, final Sequence[] business, final Sequence journaled, final WholeBatchGate responder,
        final ExceptionHandler<LedgerEvent> halting)
    {
        final Sequence[] dependencies = Arrays.copyOf(business, business.length + 1);
        dependencies[business.length] = journaled;
        final BatchEventProcessor<LedgerEvent> processor = new BatchEventProcessorBuilder().build(ring, ring.newBarrier(dependencies), responder);
        processor.setExceptionHandler(halting);
        return processor;
    }

    /**
     * Under {@code async} with a force interval, half of it: the journaler's timed force then runs at most about
     * 1.5 intervals after an append, even when nothing follows it. 0 (no checks) otherwise.
     */
    static long forceCheckIntervalMs(final CommandLog journal)
    {
        final long intervalMs = journal.asyncForceIntervalMs();
        return journal.durability() == Durability.ASYNC && intervalMs > 0 ? Math.max(1, intervalMs / 2) : 0;
    }

    /** @return the ring the gateway publishes into. */
    public InputRing ring()
    {
        return inputRing;
    }

    public PipelineHealth health()
    {
        return health;
    }

    /**
     * Stops the ticks, lets every published event through the stages, then stops the threads and waits for them to
     * end, so that the caller owns the journal and the ledger afterwards. A stage stuck for {@link #DRAIN_WAIT_MAX_MS}
     * (a force that never returns) does not hold the stop forever: the stages are halted then, with an ERROR.
     */
    @Override
    public void close()
    {
        close(DRAIN_WAIT_MAX_MS, THREAD_END_WAIT_MAX_MS);
    }

    /** {@link #close()} with other bounds (tests). */
    void close(final long drainWaitMaxMs, final long threadEndWaitMaxMs)
    {
        ticker.close();
        try
        {
            disruptor.shutdown(drainWaitMaxMs, TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException ex)
        {
            LOG.error("the pipeline did not drain within {} ms (a stage is stuck): halting it; requests still in the ring " +
                "get no reply", drainWaitMaxMs);
            health.halt("stop: the pipeline did not drain", ex);
            disruptor.halt();
        }
        if (waitStrategy instanceof WakingWaitStrategy)
        {
            ((WakingWaitStrategy)waitStrategy).wakeAll();   // the halted stages see their alert now, not after a park
        }
        threads.awaitEnd(threadEndWaitMaxMs);
    }

    /** How long a stop waits for the stages to drain the ring: far beyond a healthy drain (milliseconds). */
    static final long DRAIN_WAIT_MAX_MS = 30_000;
    /** How long a stop waits for each stage's thread to end once halted. */
    static final long THREAD_END_WAIT_MAX_MS = 5_000;

    /**
     * Sizes and timings of the pipeline, validated once at startup.
     *
     * @param clock the journal stage's wall clock, in epoch nanoseconds: the time it stamps on each command (made monotonic
     *              by the journal). The only clock the ledger ever sees, and only through the journal.
     */
    public record PipelineConfig(int ringSize, WaitStrategyName waitStrategy, long tickIntervalMs, EpochNanoClock clock)
    {
        /**
         * The wall clock at millisecond resolution, in nanoseconds: what every journal holds (a reading costs no allocation,
         * and the milliseconds are what ids and retention are made of).
         */
        public static final EpochNanoClock MILLISECOND_CLOCK = () -> System.currentTimeMillis() * 1_000_000L;

        /** With the wall clock ({@link #MILLISECOND_CLOCK}). */
        public PipelineConfig(final int ringSize, final WaitStrategyName waitStrategy, final long tickIntervalMs)
        {
            this(ringSize, waitStrategy, tickIntervalMs, MILLISECOND_CLOCK);
        }

        public static PipelineConfig defaults()
        {
            return new PipelineConfig(RING_SIZE_DEFAULT, WaitStrategyName.WAKING, 1_000);
        }

        /** Checks the sizes and timings once, before anything starts; messages name the flags. */
        public void validate()
        {
            if (Integer.bitCount(ringSize) != 1)
            {
                throw new IllegalArgumentException("--ring-size must be a power of two, was " + ringSize);
            }
            if (ringSize < 2 * LedgerLimits.BATCH_OPERATIONS_MAX)
            {
                throw new IllegalArgumentException(
                    "--ring-size " + ringSize + " must be at least twice the largest batch (" + LedgerLimits.BATCH_OPERATIONS_MAX + ")");
            }
            if (tickIntervalMs < 1 || tickIntervalMs > 60_000)
            {
                throw new IllegalArgumentException("--tick-interval-ms must be 1..60000 ms, was " + tickIntervalMs);
            }
        }
    }

    private static final class StageThreads implements ThreadFactory
    {
        private static final String[] NAMES = {"tally-journaler", "tally-business", "tally-responder"};
        private final AtomicInteger created = new AtomicInteger();
        private final java.util.List<Thread> threads = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public Thread newThread(final Runnable runnable)
        {
            final int n = created.getAndIncrement();
            final Thread thread = new Thread(runnable, n < NAMES.length ? NAMES[n] : "tally-stage-" + n);
            thread.setDaemon(true);
            threads.add(thread);
            return thread;
        }

        /** Waits for every stage thread to end (each at most {@code waitMaxMs}); logs one that does not. */
        void awaitEnd(final long waitMaxMs)
        {
            for (final Thread thread : threads)
            {
                try
                {
                    thread.join(waitMaxMs);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return;
                }
                if (thread.isAlive())
                {
                    LOG.error("stage thread {} did not end within {} ms of the stop", thread.getName(), waitMaxMs);
                }
            }
        }
    }

    private static final class HaltingExceptionHandler implements ExceptionHandler<LedgerEvent>
    {
        private final PipelineHealth health;

        HaltingExceptionHandler(final PipelineHealth health)
        {
            this.health = health;
        }

        @Override
        public void handleEventException(final Throwable ex, final long sequence, final LedgerEvent event)
        {
            health.halt("stage failed at ring sequence " + sequence, ex);
        }

        @Override
        public void handleOnStartException(final Throwable ex)
        {
            health.halt("stage failed to start", ex);
        }

        @Override
        public void handleOnShutdownException(final Throwable ex)
        {
            health.halt("stage failed to stop", ex);
        }
    }
}
