package dev.tally.gateway.leaks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import org.junit.jupiter.api.Test;

class NoBufferLeaksTest
{
    @Test
    void theBuildTracksEveryBuffer()
    {
        assertEquals(ResourceLeakDetector.Level.PARANOID, ResourceLeakDetector.getLevel(),
            "the test JVM should run Netty's leak detector at paranoid (tally.test.jvm in the parent pom)");
    }

    @Test
    void reportsABufferCollectedWithoutRelease() throws InterruptedException
    {
        leakOneBuffer();
        final List<String> leaks = NoBufferLeaks.collect();   // taken here, so the class's own check stays clean
        assertTrue(leaks.stream().anyMatch(leak -> leak.contains("leakOneBuffer")),
            "expected a report naming where the buffer was allocated, got " + leaks);
    }

    @Test
    void reportsNothingWhenEveryBufferIsReleased() throws InterruptedException
    {
        NoBufferLeaks.collect();
        ByteBufAllocator.DEFAULT.directBuffer(64).writeLong(42).release();
        assertEquals(List.of(), NoBufferLeaks.collect());
    }

    private static void leakOneBuffer()
    {
        ByteBufAllocator.DEFAULT.directBuffer(64).writeLong(42);
    }
}
