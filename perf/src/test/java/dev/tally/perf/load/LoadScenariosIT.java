package dev.tally.perf.load;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.pipeline.LedgerPipeline;
import dev.tally.journal.Durability;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Smoke test of the load generator against a real {@link dev.tally.server.TallyServer} on
 * loopback: every scenario for about two seconds with a few thousand accounts (so the check reads every
 * account back and proves the sum of all balances is zero), closed loop, one open-loop run and one
 * pipelined run. Each
 * must pass its correctness check with a non-zero throughput. Not a benchmark: nothing is asserted
 * about speed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LoadScenariosIT
{
    private static final int ACCOUNTS = 2_000;
    private static final int SECONDS = 2;

    @TempDir
    Path results;

    private InProcessServer server;

    @BeforeAll
    void startServer() throws Exception
    {
        server = new InProcessServer(new InProcessServer.Settings(Durability.ASYNC, LedgerPipeline.PipelineConfig.defaults().waitStrategy(), 1, 16_384, 100, 10_000,
            8 * ACCOUNTS, 8 * ACCOUNTS + 512, 1_000_000, null));
    }

    @AfterAll
    void stopServer() throws Exception
    {
        server.close();
    }

    @ParameterizedTest
    @EnumSource(Scenario.class)
    void shouldPassTheCorrectnessCheckWithNonZeroThroughputInClosedLoop(final Scenario scenario) throws Exception
    {
        final ScenarioRun.Outcome outcome = ScenarioRun.run(spec(scenario, Mode.CLOSED, 0), server.target(), results, "it", System.out);

        assertTrue(outcome.checkOk(), outcome::resultLine);
        assertTrue(outcome.transfersPerSecond() > 0, outcome::resultLine);
    }

    @Test
    void shouldPassTheCorrectnessCheckInOpenLoop() throws Exception
    {
        // One second of warmup: a cold JIT cannot keep a schedule, and the schedule does not wait for it.
        final LoadSpec open = new LoadSpec(Scenario.UNIFORM, Mode.OPEN, 8, 1, 2_000, SECONDS, 1, ACCOUNTS, 50, 16, true, ACCOUNTS, 5, 1, 42);

        final ScenarioRun.Outcome outcome = ScenarioRun.run(open, server.target(), results, "it", System.out);

        assertTrue(outcome.checkOk(), outcome::resultLine);
        assertTrue(outcome.transfersPerSecond() > 0, outcome::resultLine);
    }

    @Test
    void shouldPassTheCorrectnessCheckWhenPipelining() throws Exception
    {
        final LoadSpec pipelined = new LoadSpec(Scenario.RETRIES, Mode.CLOSED, 4, 8, 0, SECONDS, 0, ACCOUNTS, 50, 16, true, ACCOUNTS, 5, 1, 7);

        final ScenarioRun.Outcome outcome = ScenarioRun.run(pipelined, server.target(), results, "it", System.out);

        assertTrue(outcome.checkOk(), outcome::resultLine);
        assertTrue(outcome.transfersPerSecond() > 0, outcome::resultLine);
    }

    private static LoadSpec spec(final Scenario scenario, final Mode mode, final int rateRps)
    {
        return new LoadSpec(scenario, mode, 8, 1, rateRps, SECONDS, 0, ACCOUNTS, 50, 16, true, ACCOUNTS, 5, 1, 42);
    }
}
