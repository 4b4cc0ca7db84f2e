package dev.tally.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.reflect.Proxy;
import java.util.List;
import org.junit.jupiter.api.Test;

class GarbageCollectorTest
{
    @Test
    void namesEveryCollectorOfTheJvm()
    {
        assertEquals("PS Scavenge + PS MarkSweep", GarbageCollector.names(List.of(named("PS Scavenge"), named("PS MarkSweep"))));
    }

    @Test
    void tellsG1FromTheOthers()
    {
        assertTrue(GarbageCollector.isG1("G1 Young Generation + G1 Old Generation"));
        assertFalse(GarbageCollector.isG1("PS Scavenge + PS MarkSweep"));
        assertFalse(GarbageCollector.isG1("Copy + MarkSweepCompact"));
    }

    @Test
    void namesThisJvmsCollector()
    {
        final String names = GarbageCollector.names();
        assertFalse(names.isEmpty());
        assertEquals(names.startsWith("G1"), GarbageCollector.isG1());
    }

    private static GarbageCollectorMXBean named(final String name)
    {
        return (GarbageCollectorMXBean)Proxy.newProxyInstance(GarbageCollectorTest.class.getClassLoader(),
            new Class<?>[] {GarbageCollectorMXBean.class}, (proxy, method, args) ->
            {
                if ("getName".equals(method.getName()))
                {
                    return name;
                }
                throw new UnsupportedOperationException(method.getName());
            });
    }
}
