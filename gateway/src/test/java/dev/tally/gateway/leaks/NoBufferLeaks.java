package dev.tally.gateway.leaks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class after which Netty reports a leaked buffer: one that was garbage-collected without
 * {@code release()}, so that its pooled memory never went back (a server that leaks one per request runs
 * out of direct memory in production, not in a short test).
 *
 * <p>Why an extension: Netty's detector only logs a leak, and only when it notices one, which is when a
 * later allocation finds the leaked buffer's reference collected. Every test JVM runs the detector at
 * {@code paranoid} (the parent pom's {@code tally.test.jvm}), so every buffer is tracked; after each class
 * this collects garbage, allocates once to make the detector look, and fails with the leak's access
 * records (where the buffer was allocated and last touched). Registered for every test of the module by
 * {@code META-INF/services} and {@code junit.jupiter.extensions.autodetection.enabled}; perf's tests get both
 * through gateway's test-jar, which holds only this class and that registration.
 *
 * <p>Servers started in their own process by a test are checked from their log instead
 * ({@code TallyProcess}).
 */
public final class NoBufferLeaks implements AfterAllCallback
{
    private static final Queue<String> LEAKS = new ConcurrentLinkedQueue<>();
    /** Collections to try: the detector sees a leaked buffer only once its weak reference is enqueued. */
    private static final int ROUNDS = 3;

    static
    {
        ByteBufUtil.setLeakListener((resourceType, records) -> LEAKS.add(resourceType + " leaked" + records));
    }

    @Override
    public void afterAll(final ExtensionContext context) throws InterruptedException
    {
        final List<String> leaks = collect();
        if (!leaks.isEmpty())
        {
            throw new AssertionError(leaks.size() + " leaked Netty buffer(s) reported after " + context.getDisplayName() +
                " (released never, collected by GC):\n" + String.join("\n\n", leaks));
        }
    }

    /**
     * Collects garbage and lets the buffer detector report what it finds.
     *
     * @return the leaks reported since the last call (each leak site is reported once per JVM).
     */
    public static List<String> collect() throws InterruptedException
    {
        if (ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.DISABLED)
        {
            return List.of();
        }
        for (int round = 0; round < ROUNDS; round++)
        {
            System.gc();
            Thread.sleep(20);   // the reference handler thread enqueues what the collection cleared
            final ByteBuf probe = ByteBufAllocator.DEFAULT.directBuffer(1);   // a tracked allocation polls the queue
            probe.release();
        }
        final List<String> leaks = new ArrayList<>();
        for (String leak = LEAKS.poll(); leak != null; leak = LEAKS.poll())
        {
            leaks.add(leak);
        }
        return leaks;
    }
}
