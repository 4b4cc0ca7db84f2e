package dev.tally.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.Sequencer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link WakingWaitStrategy} on a real ring: a parked stage is woken by the one thread that feeds it, long
 * before its (here 30 s) safety-net park would end, and no wake-up is lost in a long ping-pong.
 */
class WakingWaitStrategyTest
{
    /** So long that a test passing in seconds proves the wake-ups, not the timeout, released the waiters. */
    private static final long PARK_MAX_NS = TimeUnit.SECONDS.toNanos(30);

    private final WakingWaitStrategy strategy = new WakingWaitStrategy(PARK_MAX_NS);
    private final RingBuffer<LedgerEvent> ring = RingBuffer.createMultiProducer(LedgerEvent::new, 1024, strategy);

    @Test
    void shouldWakeTheJournalerOnAPublish() throws Exception
    {
        final SequenceBarrier cursorBarrier = ring.newBarrier();
        final StageHandoff journaler = StageHandoff.journaler(strategy);
        final CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() ->
        {
            journaler.onStart();
            return waitFor(cursorBarrier, 0);
        });
        Thread.sleep(100);   // long past the spins: the waiter is parked
        ring.publish(ring.next());

        assertEquals(0L, waited.get(5, TimeUnit.SECONDS));
    }

    @Test
    void shouldWakeTheNextStageWhenTheStageBeforeReleasesItsBatch() throws Exception
    {
        final Sequence journaled = new Sequence(Sequencer.INITIAL_CURSOR_VALUE);
        final SequenceBarrier afterJournaler = ring.newBarrier(journaled);
        final StageHandoff journaler = StageHandoff.journaler(strategy);
        journaler.progress(journaled);
        ring.publish(ring.next());
        final CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() ->
        {
            StageHandoff.business(strategy).onStart();
            return waitFor(afterJournaler, 0);
        });
        Thread.sleep(100);

        journaler.release(0);

        assertEquals(0L, waited.get(5, TimeUnit.SECONDS));
        assertEquals(0L, journaled.get(), "the release published the stage's progress itself");
    }

    @Test
    void shouldWakeAParkedDownstreamStageForAShutdown() throws Exception
    {
        // the business thread waits on the journaler's progress, which a shutdown never advances
        final SequenceBarrier afterJournaler = ring.newBarrier(new Sequence(Sequencer.INITIAL_CURSOR_VALUE));
        final java.util.concurrent.atomic.AtomicReference<Thread> waiter = new java.util.concurrent.atomic.AtomicReference<>();
        final CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() ->
        {
            waiter.set(Thread.currentThread());
            StageHandoff.business(strategy).onStart();
            return waitFor(afterJournaler, 0);
        });
        // parked, for 30 s unless woken: only then does the alert below need the wake-up
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while ((waiter.get() == null || waiter.get().getState() != Thread.State.TIMED_WAITING) && System.nanoTime() < deadline)
        {
            Thread.sleep(1);
        }
        assertEquals(Thread.State.TIMED_WAITING, waiter.get().getState(), "the stage parked");

        afterJournaler.alert();   // what a halt does; the barrier's own signal wakes only the journaler
        strategy.wakeAll();

        final ExecutionException failed = assertThrows(ExecutionException.class, () -> waited.get(5, TimeUnit.SECONDS));
        assertInstanceOf(AlertException.class, failed.getCause().getCause(), "the stage left its wait on the alert");
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)   // a lost wake-up parks for 30 s, per round
    void shouldLoseNoWakeUpInALongPingPong() throws Exception
    {
        // business waits on the journaler's progress, the "journaler" waits on the business thread's: each hop a park and a wake
        final int rounds = 20_000;
        final Sequence journaled = new Sequence(Sequencer.INITIAL_CURSOR_VALUE);
        final Sequence applied = new Sequence(Sequencer.INITIAL_CURSOR_VALUE);
        final SequenceBarrier afterJournaler = ring.newBarrier(journaled);
        final SequenceBarrier afterBusiness = ring.newBarrier(applied);
        final StageHandoff journaler = StageHandoff.journaler(strategy);
        final StageHandoff business = StageHandoff.business(strategy);
        journaler.progress(journaled);
        business.progress(applied);
        final WakingWaitStrategy.StageWaker journalerWaker = strategy.stage(WakingWaitStrategy.JOURNALER);
        final long startNs = System.nanoTime();
        final CompletableFuture<Void> businessThread = CompletableFuture.runAsync(() ->
        {
            business.onStart();
            for (long s = 0; s < rounds; s++)
            {
                waitFor(afterJournaler, s);
                // a volatile store before the wake-up, as StageHandoff.release does: with Sequence.set (a release
                // store) the read of the waiter's announcement may pass the store, both sides miss, and the waiter
                // sleeps out its 30 s park (CI saw exactly that once, stop 19)
                applied.setVolatile(s);
                journalerWaker.wake();   // stands in for the next publish, which wakes the journaler
            }
        });
        journaler.onStart();
        for (long s = 0; s < rounds; s++)
        {
            journaler.release(s);
            waitFor(afterBusiness, s);
        }
        businessThread.get(60, TimeUnit.SECONDS);
        final long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNs);
        assertTrue(seconds < 20, "a lost wake-up costs a 30 s park; took " + seconds + " s for " + rounds + " round trips");
    }

    private static long waitFor(final SequenceBarrier barrier, final long sequence)
    {
        try
        {
            return barrier.waitFor(sequence);
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
