package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code GET /metrics} moves as a scripted workload says it should. */
class MetricsIT extends OneServerPerTest
{
    @Test
    void shouldCountReplaysKeyReuseInsufficientFundsAndRequestsByRouteAndStatus()
    {
        createAccount(1, false);
        createAccount(2, true);
        final double replaysBefore = metric("tally_idempotent_replays_total");

        assertEquals(201, client.transfer("m-1", 1, 2, "10.00", TRY, null).status());
        assertEquals(201, client.transfer("m-1", 1, 2, "10.00", TRY, null).status());
        assertEquals(201, client.transfer("m-1", 1, 2, "10.00", TRY, null).status());
        assertEquals(422, client.transfer("m-1", 1, 2, "99.00", TRY, null).status());
        assertEquals(422, client.transfer("m-2", 2, 1, "1000.00", TRY, null).status());

        assertEquals(replaysBefore + 2, metric("tally_idempotent_replays_total"), "two retries were replays");
        assertEquals(1, metric("tally_transfers_applied_total"), "one transfer moved money");
        assertEquals(1, metric("tally_ledger_outcomes_total\\{code=\"key_reused\"}"));
        assertEquals(1, metric("tally_ledger_outcomes_total\\{code=\"insufficient_funds\"}"));
        assertEquals(3, metric("tally_http_requests_seconds_count\\{method=\"POST\",route=\"/v1/transfers\",status=\"201\"}"));
        assertEquals(2, metric("tally_http_requests_seconds_count\\{method=\"POST\",route=\"/v1/transfers\",status=\"422\"}"));
        assertTrue(metric("tally_journal_index") >= 7, "every mutating command was journaled");
        assertEquals(1, metric("tally_ready"));
    }

    @Test
    void shouldMoveEveryOperationalMeterUnderAScriptedWorkload()
    {
        final double replaysBefore = metric("tally_idempotent_replays_total");
        final double flushesBefore = metric("tally_journal_flush_seconds_count");
        final double busyBefore = metric("tally_business_busy_seconds_total");

        MetricsWorkload.run(client);

        assertEquals(replaysBefore + 1, metric("tally_idempotent_replays_total"), "the duplicate counter moves on an idempotent replay");
        assertEquals(1, metric("tally_ledger_outcomes_total\\{code=\"key_reused\"}"));
        assertEquals(1, metric("tally_ledger_outcomes_total\\{code=\"duplicate_reference\"}"));
        assertEquals(1, metric("tally_ledger_outcomes_total\\{code=\"insufficient_funds\"}"));
        assertEquals(1, metric("tally_holds_active"), "two holds placed, one voided");
        assertEquals(0, metric("tally_holds_unknown"));
        assertEquals(0, metric("tally_holds_unknown_oldest_age_seconds"));
        final double keys = metric("tally_idempotency_keys_live");
        assertTrue(keys >= 8, "every stored key (2 accounts, 3 transfers, 3 hold commands): " + keys);
        assertEquals(keys * 112, metric("tally_idempotency_keys_memory_bytes\\{kind=\"used\"}"));
        assertTrue(metric("tally_idempotency_keys_memory_bytes\\{kind=\"allocated\"}") >= keys * 112);
        assertTrue(metric("tally_journal_flush_seconds_count") > flushesBefore, "the journal flushed batches");
        assertTrue(metric("tally_journal_append_seconds_count") > 0);
        assertTrue(metric("tally_journal_batch_commands_sum") >= 8, "every command of the workload was in a journal batch");
        assertTrue(metric("tally_ring_wait_seconds_count") > 0, "requests waited (briefly) in the ring");
        assertTrue(metric("tally_business_busy_seconds_total") > busyBefore, "the business thread's busy time grows");
        assertEquals(0, metric("tally_ring_rejections_total"), "the ring never filled");
        assertTrue(metric("tally_http_connections_open") >= 1, "the client's connection");
        assertEquals(0, metric("tally_http_connections_refused_total"));
        assertEquals(0, metric("tally_http_read_timeouts_total"));
    }

    @Test
    void shouldCountMovesThatTouchAHotAccount()
    {
        createAccount(1, false);
        createAccount(2, true);
        assertEquals(201, client.post("/v1/accounts", "hot-3",
            "{\"id\": 3, \"currency\": \"TRY\", \"subBalances\": 4, \"debitsMustNotExceedCredits\": true}").status());
        final double before = metric("tally_ledger_hot_account_moves_total");

        assertEquals(201, client.transfer("h-1", 1, 3, "10.00", TRY, null).status());
        assertEquals(201, client.transfer("h-2", 1, 3, "10.00", TRY, null).status());
        assertEquals(201, client.transfer("h-3", 1, 2, "10.00", TRY, null).status());
        assertEquals(201, client.transfer("h-1", 1, 3, "10.00", TRY, null).status());

        assertEquals(before + 2, metric("tally_ledger_hot_account_moves_total"), "two moves into the hot account; a replay moves nothing");
    }

    /** @return the value of the first sample whose name (and labels) match {@code sampleRegex}. */
    private double metric(final String sampleRegex)
    {
        final Reply reply = client.get("/metrics");
        assertEquals(200, reply.status());
        final Matcher m = Pattern.compile("(?m)^" + sampleRegex + " ([0-9.eE+-]+)$").matcher(reply.body());
        assertTrue(m.find(), () -> "no sample " + sampleRegex + " in\n" + reply.body());
        return Double.parseDouble(m.group(1));
    }
}
