package dev.tally.gateway.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LeakDetectionTest
{
    private String before;

    @BeforeEach
    void remember()
    {
        before = System.getProperty(LeakDetection.LEVEL_PROPERTY);
    }

    @AfterEach
    void restore()
    {
        if (before == null)
        {
            System.clearProperty(LeakDetection.LEVEL_PROPERTY);
        }
        else
        {
            System.setProperty(LeakDetection.LEVEL_PROPERTY, before);
        }
    }

    @Test
    void switchesTheDetectorOffWhenNoLevelWasSet()
    {
        System.clearProperty(LeakDetection.LEVEL_PROPERTY);
        LeakDetection.disableUnlessSet();
        assertEquals("disabled", System.getProperty(LeakDetection.LEVEL_PROPERTY));
    }

    @Test
    void keepsALevelTheJvmWasGiven()
    {
        System.setProperty(LeakDetection.LEVEL_PROPERTY, "paranoid");
        LeakDetection.disableUnlessSet();
        assertEquals("paranoid", System.getProperty(LeakDetection.LEVEL_PROPERTY));
    }
}
