import java.util.concurrent.locks.LockSupport;

/**
 * What a hand-over between two threads costs on this machine, the price every pipeline stage pays when the next
 * one is parked: run with {@code java perf/scripts/WakeProbe.java}.
 *
 * <ol>
 *   <li>The waker's side: {@code LockSupport.unpark} of a thread that is really parked (its CPU given time to go
 *       idle first), timed around the call alone. Under nested virtualisation this is a futex wake plus an
 *       inter-processor interrupt to a halted virtual CPU, both exits to the hypervisor.</li>
 *   <li>A ping-pong of two threads that park whenever they wait, against the same with a spin of a few
 *       microseconds before parking: the round trip a stage sees from its hand-over to the reply.</li>
 * </ol>
 */
public final class WakeProbe
{
    private static volatile long turn;
    private static volatile boolean parked;

    public static void main(final String[] args) throws Exception
    {
        System.out.printf("unpark of a parked thread, waker's side: %.1f us each (10,000 wakes)%n", unparkCostUs(10_000));
        for (final long spinNs : new long[] {0, 5_000, 50_000})
        {
            System.out.printf("ping-pong, spin %,d ns before parking: %.1f us per round trip (100,000 round trips)%n",
                spinNs, roundTripUs(100_000, spinNs));
        }
    }

    private static double unparkCostUs(final int wakes) throws InterruptedException
    {
        final Thread sleeper = new Thread(() ->
        {
            for (long seen = 0; seen < wakes; seen = turn)
            {
                parked = true;
                while (turn == seen)
                {
                    LockSupport.park();
                }
                parked = false;
            }
        });
        sleeper.start();
        long totalNs = 0;
        for (int i = 1; i <= wakes; i++)
        {
            while (!parked)
            {
                Thread.onSpinWait();
            }
            Thread.sleep(0, 200_000);   // the sleeper parks and its CPU halts
            turn = i;
            final long start = System.nanoTime();
            LockSupport.unpark(sleeper);
            totalNs += System.nanoTime() - start;
        }
        sleeper.join();
        turn = 0;
        return totalNs / 1e3 / wakes;
    }

    /** Two threads hand a counter back and forth: even values are the main thread's turn, odd ones the other's. */
    private static double roundTripUs(final int roundTrips, final long spinNs) throws InterruptedException
    {
        turn = 0;
        final Thread main = Thread.currentThread();
        final Thread other = new Thread(() ->
        {
            for (int i = 0; i < roundTrips; i++)
            {
                awaitTurn(2L * i + 1, spinNs);
                turn = 2L * i + 2;
                LockSupport.unpark(main);
            }
        });
        other.start();
        final long start = System.nanoTime();
        for (int i = 0; i < roundTrips; i++)
        {
            turn = 2L * i + 1;
            LockSupport.unpark(other);
            awaitTurn(2L * i + 2, spinNs);
        }
        final long elapsedNs = System.nanoTime() - start;
        other.join();
        return elapsedNs / 1e3 / roundTrips;
    }

    private static void awaitTurn(final long value, final long spinNs)
    {
        final long start = System.nanoTime();
        while (turn != value)
        {
            if (System.nanoTime() - start < spinNs)
            {
                Thread.onSpinWait();
            }
            else
            {
                LockSupport.park();
            }
        }
    }
}
