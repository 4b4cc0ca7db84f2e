package dev.tally.gateway.api;

import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.routing.Route;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.result.Result;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Decode, journal-stamp, apply and render in one call, with a real in-memory {@link Ledger}: the path a
 * request takes through the gateway, minus Netty, the ring and the journal.
 */
final class LedgerHarness
{
    /** One rendered reply. */
    record Reply(int status, String contentType, boolean replayed, int retryAfterSeconds, String body)
    {
    }

    private final Ledger ledger = new Ledger(LedgerConfig.small());
    private final RequestDecoder decoder = new RequestDecoder();
    private final ResponseRenderer renderer = new ResponseRenderer();
    private final Command command = new Command();
    private final Command[] batch = Requests.commands();
    private final Result[] results = new Result[batch.length];
    private final long tenantId;
    private long journalIndex;
    private long timestampNs;

    LedgerHarness(final long tenantId, final long startNs)
    {
        this.tenantId = tenantId;
        this.timestampNs = startNs;
        for (int i = 0; i < results.length; i++)
        {
            results[i] = new Result();
        }
    }

    Ledger ledger()
    {
        return ledger;
    }

    /** Moves journaled time forward. */
    void advanceMs(final long ms)
    {
        timestampNs += ms * 1_000_000L;
    }

    Reply submit(final Route route, final String key, final String pathId, final String json)
    {
        final Problem problem = decoder.decode(route, tenantId, key, pathId, Requests.body(json), command);
        assertNull(problem, () -> "decode " + json + ": " + problem);
        stamp(command);
        final Result result = ledger.apply(command);
        final ByteBuf body = Unpooled.buffer();
        final RenderedResponse response = renderer.render(command, result, body);
        return reply(response, body);
    }

    Reply submitBatch(final String json)
    {
        final Problem problem = decoder.decodeBatch(tenantId, Requests.body(json), batch);
        assertNull(problem, () -> "decode batch: " + problem);
        final int count = decoder.batchSize();
        for (int i = 0; i < count; i++)
        {
            stamp(batch[i]);
            ledger.apply(batch[i]);
        }
        for (int i = 0; i < count; i++)
        {
            // results of an atomic batch may change until its last operation: read them after
            results[i].copyFrom(ledger.result(i));
        }
        final ByteBuf body = Unpooled.buffer();
        final RenderedResponse response = renderer.renderBatch(batch, results, count, body);
        return reply(response, body);
    }

    private void stamp(final Command c)
    {
        c.journalIndex = ++journalIndex;
        timestampNs += 1_000;
        c.timestampNs = timestampNs;
    }

    private static Reply reply(final RenderedResponse response, final ByteBuf body)
    {
        final String text = body.toString(StandardCharsets.UTF_8);
        body.release();
        return new Reply(response.status(), response.contentType(), response.replayed(), response.retryAfterSeconds(), text);
    }
}
