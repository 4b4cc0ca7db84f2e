package dev.tally.perf.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tally.perf.load.Scenario;
import org.junit.jupiter.api.Test;

/** {@code --peer-pool}: one size for all, or scenario=size pairs over the swept defaults, each within the peer's limit. */
class PeerPoolsTest
{
    @Test
    void shouldGiveEveryScenarioTheSizeOfASingleNumber()
    {
        final PeerPools pools = PeerPools.parse("12");

        for (final Scenario scenario : Scenario.values())
        {
            assertEquals(12, pools.of(scenario), scenario.cliName());
        }
        assertEquals(12, pools.max());
    }

    @Test
    void shouldOverrideOnlyTheScenariosNamed()
    {
        final PeerPools defaults = PeerPools.defaultSizes();

        final PeerPools pools = PeerPools.parse("batch=3,hotDebit=40");

        assertEquals(3, pools.of(Scenario.BATCH));
        assertEquals(40, pools.of(Scenario.HOT_DEBIT));
        assertEquals(defaults.of(Scenario.UNIFORM), pools.of(Scenario.UNIFORM));
        assertEquals(40, pools.max(), "the peer's PostgreSQL must accept the largest pool");
        assertEquals(PeerPools.DEFAULTS_TEXT, PeerPools.parse(PeerPools.DEFAULTS_TEXT).toString());
    }

    @Test
    void shouldRefuseASizeOutOfRangeOrAPairWithoutOne()
    {
        assertThrows(IllegalArgumentException.class, () -> PeerPools.parse("0"));
        assertThrows(IllegalArgumentException.class, () -> PeerPools.parse("batch=" + (PeerConfig.POOL_SIZE_MAX + 1)));
        assertThrows(IllegalArgumentException.class, () -> PeerPools.parse("batch=4,uniform"));
        assertThrows(IllegalArgumentException.class, () -> PeerPools.parse("nosuch=4"));
    }
}
